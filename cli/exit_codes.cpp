// The exit codes of every subcommand, as its --help lists them. main.cpp maps
// errors to these codes in one place; README.md repeats the table per command.

#include "exit_codes.hpp"

#include <fmt/format.h>

namespace tpnet::cli {
namespace {

constexpr std::string_view kHeading = "Exit codes:";

}  // namespace

std::string exit_codes_footer(std::string_view gate_failed) {
  std::string out = fmt::format("{}\n  0  ok\n", kHeading);
  if (!gate_failed.empty()) out += fmt::format("  1  {} (a CI gate failed)\n", gate_failed);
  out +=
      "  2  bad input or usage (one line on stderr naming the file, line, key or flag)\n"
      "  3  internal error\n";
  return out;
}

void set_gate_exit_codes(CLI::App* sub, std::string_view gate_failed) {
  sub->footer(exit_codes_footer(gate_failed));
}

void document_exit_codes(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    // A nested subcommand inherits its parent's footer when it is created.
    if (sub->get_footer().find(kHeading) == std::string::npos) sub->footer(exit_codes_footer());
    document_exit_codes(*sub);
  }
}

}  // namespace tpnet::cli
