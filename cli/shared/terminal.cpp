#include "terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace tpnet::cli {

std::size_t output_width() {
  constexpr std::size_t kNarrowest = 40;
  winsize size{};
  if (::isatty(STDOUT_FILENO) == 1 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 &&
      size.ws_col > 0) {
    return std::max<std::size_t>(size.ws_col, kNarrowest);
  }
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && value > 0 && value < 100000) {
      return std::max<std::size_t>(static_cast<std::size_t>(value), kNarrowest);
    }
  }
  return kDefaultTextWidth;
}

bool& wide_output() {
  static bool wide = false;
  return wide;
}

TextLayout terminal_layout() { return TextLayout{output_width(), wide_output(), "--wide"}; }

void add_format_option(CLI::App* app, std::string& format) {
  app->add_option("--format", format, "Output: table (with a units row), json, csv or markdown")
      ->check(CLI::IsMember({"table", "json", "csv", "markdown"}))
      ->default_str("table");
  app->add_flag("--wide", wide_output(),
                "Tables: every column, however wide (the default shows the columns that answer "
                "the question and fits the terminal, COLUMNS or 100 characters)");
}

}  // namespace tpnet::cli
