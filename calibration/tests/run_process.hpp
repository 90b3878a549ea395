#pragma once
// Runs tpnet-calibrate, tpnet or mpirun as a user would (through the shell
// only to redirect output; every argument is quoted) and captures the result.

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace tpnet::test {

inline CliResult run_program(const std::vector<std::string>& argv) {
  static int counter = 0;
  const auto dir = std::filesystem::temp_directory_path();
  const std::string stem =
      "tpnet_calibrate_" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
  const auto out_path = dir / (stem + ".out");
  const auto err_path = dir / (stem + ".err");
  std::string command;
  for (const auto& arg : argv) command += (command.empty() ? "" : " ") + shell_quote(arg);
  command += " >" + shell_quote(out_path.string()) + " 2>" + shell_quote(err_path.string()) +
             " </dev/null";
  const int status = std::system(command.c_str());
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = slurp(out_path);
  result.err = slurp(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return result;
}

/// tpnet-calibrate with these arguments.
inline CliResult run_calibrate(std::vector<std::string> args) {
  args.insert(args.begin(), TPNET_CALIBRATE_PATH);
  return run_program(args);
}

/// A fresh, empty folder under the temporary directory.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tpnet_calibrate_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace tpnet::test
