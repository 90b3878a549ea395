#pragma once
// Every subcommand's --help ends with the exit codes it can return. Most
// return 0, 2 or 3; a command that gates CI also returns 1 and says when.

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

namespace tpnet::cli {

/// The footer listing 0, 2 and 3 and, when `gate_failed` is not empty,
/// "1  <gate_failed>" (e.g. "a budget is exceeded").
[[nodiscard]] std::string exit_codes_footer(std::string_view gate_failed = {});

/// Ends `sub`'s --help with its exit codes; call it for a command that can
/// exit 1, saying when it does.
void set_gate_exit_codes(CLI::App* sub, std::string_view gate_failed);

/// Gives every subcommand of `app` (and theirs) that has no exit-code footer
/// yet the default one: 0 ok, 2 bad input or usage, 3 internal error.
void document_exit_codes(CLI::App& app);

}  // namespace tpnet::cli
