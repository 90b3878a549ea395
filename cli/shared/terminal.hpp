#pragma once
// What the terminal adds to rendering, for both front ends (tpnet and
// tpnet-calibrate): its width, and the --format and --wide options.

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>
#include <string_view>

#include "tpnet/io/document_render.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet::cli {

/// stdout's width when it is a terminal, else COLUMNS when set to a number,
/// else 100; never below 40.
[[nodiscard]] std::size_t output_width();

/// Whether `command`'s own --wide (add_format_option's) was given: each
/// command keeps its value, nothing process-wide.
[[nodiscard]] bool wide_requested(const CLI::App& command);

/// The layout of table output on this terminal: its width, `wide`, and
/// --wide named under a table that left columns out.
[[nodiscard]] TextLayout terminal_layout(bool wide);

/// `text`'s lines, each longer than `width` broken at spaces, its later
/// lines hanging under where the first line's text starts: after a run of
/// two or more spaces (a help entry's description), else after its indent.
[[nodiscard]] std::string wrap_lines(const std::string& text, std::size_t width);

/// "PROGRAM: KIND: MESSAGE" wrapped at the width of the terminal stderr is,
/// else at COLUMNS, later lines hanging under MESSAGE; one line when neither
/// says a width (a script reads it): how both front ends write errors,
/// warnings and notes.
[[nodiscard]] std::string stderr_line(std::string_view program, std::string_view kind,
                                      std::string_view message);

/// Makes `app`'s --help, and that of every subcommand added after this call,
/// wrap at output_width().
void wrap_help_at_terminal(CLI::App& app);

/// Adds --format table|json|csv|markdown, and --wide (read with wide_requested).
void add_format_option(CLI::App* app, std::string& format);

}  // namespace tpnet::cli
