#pragma once
// Every subcommand, in the order `tpnet --help` lists them: the one list main
// registers and the tests walk (every flag the CLI defines, every command
// with JSON output).

#include <CLI/CLI.hpp>

#include <vector>

#include "common.hpp"

namespace tpnet::cli {

/// Adds every subcommand to `app` and returns them.
[[nodiscard]] std::vector<Command> setup_commands(CLI::App& app);

}  // namespace tpnet::cli
