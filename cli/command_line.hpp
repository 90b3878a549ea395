#pragma once
// The tpnet binary's whole behaviour: main() only calls this.

namespace tpnet::cli {

/// Parses `argv`, runs the subcommand it names, writes its output to stdout and
/// its errors to stderr, and returns the exit code: 0 ok; 1 a CI gate failed (a
/// budget, or doctor finding the fabric unhealthy); 2 bad input or usage; 3
/// internal error.
[[nodiscard]] int run_command_line(int argc, char** argv);

}  // namespace tpnet::cli
