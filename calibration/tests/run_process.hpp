#pragma once
// Runs tpnet-calibrate, tpnet or mpirun as a user would, through
// cli_runner.hpp's run_program, and captures the result.

#include <cstdlib>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace tpnet::test {

/// A path the build compiled in, unless the environment variable names
/// another: calibration/scripts/device-check.sh runs these tests from a copied
/// bundle on a GPU machine, where the build's absolute paths do not exist.
inline std::string path_from_env(const char* variable, const char* built_in) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? std::string(value) : std::string(built_in);
}

/// tpnet-calibrate's binary (TPNET_TEST_CALIBRATE overrides).
inline std::string calibrate_program() {
  return path_from_env("TPNET_TEST_CALIBRATE", TPNET_CALIBRATE_PATH);
}

/// tpnet's binary (TPNET_TEST_CLI overrides).
inline std::string tpnet_program() { return path_from_env("TPNET_TEST_CLI", TPNET_CLI_PATH); }

/// The source tree, for the repo's model files (TPNET_TEST_SOURCE_DIR overrides).
inline std::string source_dir() { return path_from_env("TPNET_TEST_SOURCE_DIR", TPNET_SOURCE_DIR); }

/// argv[0] is the program (a path), the rest its arguments; see cli_runner.hpp.
inline CliResult run_program(const std::vector<std::string>& argv) {
  return run_program(argv.front(), std::vector<std::string>(argv.begin() + 1, argv.end()));
}

/// tpnet-calibrate with these arguments.
inline CliResult run_calibrate(std::vector<std::string> args) {
  args.insert(args.begin(), calibrate_program());
  return run_program(args);
}

/// mpirun with `ranks` ranks on this machine: CI runs as root, on 2 cores,
/// in containers where shared-memory single copy (CMA) is often not allowed.
inline std::vector<std::string> mpirun(int ranks) {
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  return {TPNET_MPIEXEC,
          "-np",
          std::to_string(ranks),
          "--oversubscribe",
          "--mca",
          "btl_vader_single_copy_mechanism",
          "none",
          calibrate_program()};
}

/// `head` followed by `tail`: a launcher's words, then the command's.
inline std::vector<std::string> joined(std::vector<std::string> head,
                                       const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

}  // namespace tpnet::test
