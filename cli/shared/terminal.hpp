#pragma once
// What the terminal adds to rendering, for both front ends (tpnet and
// tpnet-calibrate): its width, and the --format and --wide options.

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

#include "tpnet/io/document_render.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet::cli {

/// stdout's width when it is a terminal, else COLUMNS when set to a number,
/// else 100; never below 40.
[[nodiscard]] std::size_t output_width();

/// --wide, as every subcommand's add_format_option registers it.
[[nodiscard]] bool& wide_output();

/// The layout of table output on this terminal: its width, --wide, and
/// --wide named under a table that left columns out.
[[nodiscard]] TextLayout terminal_layout();

/// Adds --format table|json|csv|markdown, and --wide (wide_output()).
void add_format_option(CLI::App* app, std::string& format);

}  // namespace tpnet::cli
