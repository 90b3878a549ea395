#pragma once
// Runs the tpnet binary as a user would and captures what it printed.

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

namespace tpnet::test {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string shell_quote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) {
    if (c == '\'')
      quoted += "'\\''";
    else
      quoted += c;
  }
  return quoted + "'";
}

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// What the shell around a run changes (tests of failed output).
struct ShellSetup {
  /// Shell commands run first, e.g. "trap '' XFSZ; ulimit -f 1" (a file
  /// size limit: writes past it fail with EFBIG, as on a full disk).
  std::string before;
  /// Where stdout goes instead of being captured: ">/dev/full", ">&-" (closed).
  std::string stdout_to;
};

/// Runs `program` (a path) with `args`, stdin empty, and captures its output.
inline CliResult run_program(const std::string& program, const std::vector<std::string>& args,
                             const ShellSetup& setup) {
  static int counter = 0;
  const auto dir = std::filesystem::temp_directory_path();
  const std::string stem =
      "tpnet_cli_" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
  const auto out_path = dir / (stem + ".out");
  const auto err_path = dir / (stem + ".err");
  // Text output fits the terminal's width, COLUMNS or 100 (docs: README's
  // "Output"): runs see none of the caller's, so outputs do not depend on it.
  // Every run is bounded: a reader that waits forever (a FIFO, a device)
  // fails its test with exit 124 instead of stalling the suite. Generous,
  // for sanitizer builds.
  std::string command = "timeout -k 5 300 env -u COLUMNS " + shell_quote(program);
  for (const auto& arg : args) command += " " + shell_quote(arg);
  command +=
      (setup.stdout_to.empty() ? " >" + shell_quote(out_path.string()) : " " + setup.stdout_to) +
      " 2>" + shell_quote(err_path.string()) + " </dev/null";
  if (!setup.before.empty()) command = "(" + setup.before + "; " + command + ")";
  const int status = std::system(command.c_str());
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = slurp(out_path);
  result.err = slurp(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return result;
}

inline CliResult run_program(const std::string& program, const std::vector<std::string>& args) {
  return run_program(program, args, ShellSetup{});
}

inline CliResult run_tpnet(const std::vector<std::string>& args) {
  return run_program(TPNET_CLI_PATH, args);
}

inline CliResult run_tpnet(std::initializer_list<std::string> args) {
  return run_tpnet(std::vector<std::string>(args));
}

}  // namespace tpnet::test
