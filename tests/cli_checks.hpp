#pragma once
// Checks shared by the CLI tests: JSON of a successful run, the bad-input
// contract (exit 2, one stderr line naming what is wrong), temporary inputs.

#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_runner.hpp"

namespace tpnet::test {

/// How often `needle` occurs in `text` (SVG elements, report sections).
inline int count_of(const std::string& text, const std::string& needle) {
  int n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

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

/// A fresh, empty folder under the temporary directory, unique to this
/// process and `name`.
inline std::filesystem::path fresh_dir(const std::string& name) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("tpnet_test_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// Writes `text` to a file of that name in the temporary folder.
inline std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream out(path);
  out << text;
  return path;
}

/// Names in `dir`, sorted, to check that no temporary file was left.
inline std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// The permission bits of `path`.
inline unsigned mode_of(const std::filesystem::path& path) {
  struct stat info {};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  return static_cast<unsigned>(info.st_mode) & 07777U;
}

}  // namespace tpnet::test
