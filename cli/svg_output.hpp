#pragma once
// --svg FILE on the commands that draw: the flag, and writing the figure
// (atomically, as --out and --timeline are) with a line saying where.

#include <CLI/CLI.hpp>

#include <string>

#include "chart.hpp"
#include "terminal.hpp"

namespace tpnet::cli {

/// A check for a flag that names a file to write: an empty value (`--svg ""`,
/// an unset shell variable) is refused, never taken as "not given".
[[nodiscard]] CLI::Validator output_path_given();

/// Adds --svg FILE with `what` the chart shows.
void add_svg_option(CLI::App* app, std::string& path, const std::string& what);

/// Refuses (exit 2, naming --svg) a path that cannot be replaced, before
/// the command does its work; nothing when `path` is empty.
void check_svg_path(const std::string& path);

/// Writes the SVG text to `path` and adds an `svg` field naming it.
void write_svg(const std::string& path, const std::string& svg, Document& doc);
void write_svg(const std::string& path, const chart::Figure& figure, Document& doc);

}  // namespace tpnet::cli
