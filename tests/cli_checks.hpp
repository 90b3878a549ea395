#pragma once
// Checks shared by the CLI tests: JSON of a successful run, the bad-input
// contract (exit 2, one stderr line naming what is wrong), temporary inputs.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "cli_runner.hpp"

namespace tpnet::test {

/// The run's stdout parsed as JSON; the run must have succeeded.
inline YAML::Node json_of(const CliResult& r) {
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return YAML::Load(r.out);
}

/// Bad input: exit 2, exactly one line on stderr that contains `needle`, nothing on stdout.
inline void expect_bad_input(const CliResult& r, const std::string& needle) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_THAT(r.err, ContainsSubstring(needle));
}

/// Writes `text` to a file of that name in the temporary folder.
inline std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream out(path);
  out << text;
  return path;
}

}  // namespace tpnet::test
