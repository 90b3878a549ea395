// tpnet-calibrate: measures a real cluster for tpnet (all-reduce sweeps, GEMM
// timing, RDMA counter sampling).
// Exit codes: 0 ok; 2 bad input or usage; 3 internal error; 4 the measurement
// failed; `counters -- CMD` exits with CMD's exit code.

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "calibrate_command.hpp"
#include "integer_flags.hpp"
#include "terminal.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/output_file.hpp"

namespace {

/// Under mpirun every rank parses the same flags: only rank 0 reports bad input.
bool is_secondary_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return std::string(value) != "0";
  }
  return false;
}

/// Ends each subcommand's --help with the exit codes it can return (README.md
/// lists the same; tests/test_cli_help.cpp checks both).
void document_exit_codes(const std::vector<tpnet::calibrate::Subcommand>& commands) {
  for (const auto& command : commands) {
    std::string footer =
        "Exit codes:\n"
        "  0  ok\n" +
        std::string(command.app->get_name() == "preflight"
                        ? "  1  a check fails on a node or across nodes\n"
                        : "") +
        "  2  bad input or usage (one line on stderr naming the flag or file)\n"
        "  3  internal error\n"
        "  4  the measurement failed (a CUDA, NCCL or MPI call, a timeout, or wrong values)\n";
    if (command.app->get_name() == "counters") footer += "  with -- CMD: CMD's exit code\n";
    command.app->footer(footer);
  }
}

int run(int argc, char** argv) {
  using namespace tpnet::calibrate;
  CLI::App app{
      "tpnet-calibrate measures a cluster for tpnet: all-reduce and all-to-all sweeps (NCCL or "
      "MPI), GEMM timing, RDMA port counters.\n"
      "Exit codes: 0 ok, 2 bad input or usage, 3 internal error, 4 the measurement failed; "
      "counters -- CMD exits with CMD's exit code; preflight exits 1 when a check fails.",
      "tpnet-calibrate"};
  tpnet::cli::wrap_help_at_terminal(app);
  app.require_subcommand(1);
  app.set_version_flag("--version", "tpnet-calibrate 0.1.0");
  std::vector<Subcommand> commands{setup_allreduce(app), setup_alltoall(app), setup_gemm(app),
                                   setup_counters(app), setup_preflight(app)};
  document_exit_codes(commands);
  tpnet::cli::require_decimal_integers(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    if (!is_secondary_rank()) {
      std::cerr << tpnet::cli::stderr_line("tpnet-calibrate", "error",
                                           std::string(e.what()) + " (see tpnet-calibrate --help)");
    }
    return 2;
  }
  for (const auto& command : commands) {
    if (!command.app->parsed()) continue;
    try {
      return command.run();
    } catch (const tpnet::InputError& e) {
      if (!is_secondary_rank())
        std::cerr << tpnet::cli::stderr_line("tpnet-calibrate", "error", e.what());
      return 2;
    } catch (const MeasurementError& e) {
      std::cerr << tpnet::cli::stderr_line("tpnet-calibrate", "measurement failed", e.what());
      return kExitMeasurementFailed;
    }
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // A closed stdout fails every write with EBADF instead of handing fd 1 to
  // the first file opened; every write to std::cout is checked.
  tpnet::reserve_standard_descriptors();
  tpnet::CheckedOutput out(std::cout, STDOUT_FILENO);
  int exit_code = 3;
  try {
    exit_code = run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << tpnet::cli::stderr_line("tpnet-calibrate", "internal error", e.what());
  } catch (...) {
    std::cerr << "tpnet-calibrate: internal error\n";
  }
  // Output that never arrived is exit 2 in place of 0; a failed measurement
  // (4) or the exit code of `counters -- CMD` is kept.
  if (const auto why = out.finish()) {
    std::cerr << tpnet::cli::stderr_line("tpnet-calibrate", "error",
                                         "could not write to standard output: " + *why);
    if (exit_code == 0) exit_code = 2;
  }
  return exit_code;
}
