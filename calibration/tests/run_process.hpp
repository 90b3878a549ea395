#pragma once
// Runs tpnet-calibrate, tpnet or mpirun as a user would, through
// cli_runner.hpp's run_program, and captures the result.

#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace tpnet::test {

/// argv[0] is the program (a path), the rest its arguments; see cli_runner.hpp.
inline CliResult run_program(const std::vector<std::string>& argv) {
  return run_program(argv.front(), std::vector<std::string>(argv.begin() + 1, argv.end()));
}

/// tpnet-calibrate with these arguments.
inline CliResult run_calibrate(std::vector<std::string> args) {
  args.insert(args.begin(), TPNET_CALIBRATE_PATH);
  return run_program(args);
}

}  // namespace tpnet::test
