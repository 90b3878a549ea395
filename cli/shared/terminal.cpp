#include "terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

namespace tpnet::cli {

namespace {

constexpr std::size_t kNarrowest = 40;

/// The width of the terminal `descriptor` is, else COLUMNS when set to a
/// number; never below kNarrowest.
std::optional<std::size_t> terminal_width(int descriptor) {
  winsize size{};
  if (::isatty(descriptor) == 1 && ::ioctl(descriptor, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return std::max<std::size_t>(size.ws_col, kNarrowest);
  }
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && value > 0 && value < 100000) {
      return std::max<std::size_t>(static_cast<std::size_t>(value), kNarrowest);
    }
  }
  return std::nullopt;
}

}  // namespace

std::size_t output_width() { return terminal_width(STDOUT_FILENO).value_or(kDefaultTextWidth); }

bool wide_requested(const CLI::App& command) {
  const CLI::Option* wide = command.get_option_no_throw("--wide");
  return wide != nullptr && wide->count() > 0;
}

TextLayout terminal_layout(bool wide) { return TextLayout{output_width(), wide, "--wide"}; }

std::string wrap_lines(const std::string& text, std::size_t width) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (display_width(line) <= width) {
      out += line;
      out += '\n';
      continue;
    }
    const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
    const std::size_t gap = line.find("  ", indent);
    std::size_t hang = indent;
    if (gap != std::string::npos) hang = std::min(line.find_first_not_of(' ', gap), line.size());
    // A hang past half the line leaves too little room: hang under the indent.
    if (hang > width / 2) hang = indent;
    const std::size_t split = hang > indent ? hang : indent;
    out += wrap(line.substr(0, split), line.substr(split), hang, width);
  }
  return out;
}

std::string stderr_line(std::string_view program, std::string_view kind, std::string_view message) {
  std::string first(program);
  first += ": ";
  first += kind;
  first += ": ";
  // Without a terminal or COLUMNS a script reads it: one line a message, as
  // the exit codes promise.
  const std::optional<std::size_t> width = terminal_width(STDERR_FILENO);
  if (!width) return fmt::format("{}{}\n", first, message);
  return wrap(first, message, program.size() + 2, *width);
}

namespace {

/// CLI11's formatter, its output wrapped at the terminal's width.
class WrappingFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    return wrap_lines(CLI::Formatter::make_help(app, std::move(name), mode), output_width());
  }
};

}  // namespace

void wrap_help_at_terminal(CLI::App& app) {
  auto formatter = std::make_shared<WrappingFormatter>();
  // Option names take a third of a narrow terminal at most, 30 characters on a wide one.
  constexpr std::size_t kWidestNameColumn = 30;
  formatter->column_width(std::min(kWidestNameColumn, output_width() / 3));
  app.formatter(formatter);
}

void add_format_option(CLI::App* app, std::string& format) {
  app->add_option("--format", format, "Output: table (with a units row), json, csv or markdown")
      ->check(CLI::IsMember({"table", "json", "csv", "markdown"}))
      ->default_str("table");
  app->add_flag("--wide")->description(
      "Tables: every column, however wide (the default shows the columns that answer the "
      "question and fits the terminal, COLUMNS or 100 characters)");
}

}  // namespace tpnet::cli
