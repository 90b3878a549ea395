#include "integer_flags.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string>
#include <string_view>

namespace tpnet::cli {
namespace {

/// Empty when `text` is a plain decimal integer, else why not.
std::string decimal_problem(const std::string& text) {
  std::string_view digits(text);
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
  const bool all_digits =
      !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
  if (!all_digits) {
    return fmt::format("'{}' is not a whole number; write it in decimal digits, e.g. 8", text);
  }
  if (digits.size() > 1 && digits.front() == '0') {
    const std::size_t first = digits.find_first_not_of('0');
    return fmt::format("'{}' has a leading zero (some tools read it as octal); write {}", text,
                       first == std::string_view::npos ? "0" : std::string(digits.substr(first)));
  }
  return {};
}

}  // namespace

CLI::Validator whole_number_in(long long lo, long long hi) {
  return {
      [lo, hi](const std::string& text) -> std::string {
        long long value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && end == text.data() + text.size() && value >= lo && value <= hi) {
          return {};
        }
        return fmt::format("'{}' is out of range; allowed {} to {}", text, lo, hi);
      },
      fmt::format("{}-{}", lo, hi), "whole number range"};
}

void require_decimal_integers(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string type = option->get_type_name();
    if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0) {
      option->check(CLI::Validator(decimal_problem, "", "decimal"));
    }
  }
  for (CLI::App* sub : app.get_subcommands({})) require_decimal_integers(*sub);
}

}  // namespace tpnet::cli
