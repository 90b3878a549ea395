#include "integer_flags.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
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

/// Empty when `text` is a finite decimal number such as 0.9, -2, 1e-3 or
/// .5, else why not.
std::string decimal_real_problem(const std::string& text) {
  std::string_view rest(text);
  if (!rest.empty() && (rest.front() == '-' || rest.front() == '+')) rest.remove_prefix(1);
  const std::size_t mantissa_end = rest.find_first_of("eE");
  const std::string_view mantissa = rest.substr(0, mantissa_end);
  const bool mantissa_ok = mantissa.find_first_not_of("0123456789.") == std::string_view::npos &&
                           mantissa.find_first_of("0123456789") != std::string_view::npos &&
                           mantissa.find('.') == mantissa.rfind('.');
  bool exponent_ok = true;
  if (mantissa_end != std::string_view::npos) {
    std::string_view exponent = rest.substr(mantissa_end + 1);
    if (!exponent.empty() && (exponent.front() == '-' || exponent.front() == '+')) {
      exponent.remove_prefix(1);
    }
    exponent_ok = !exponent.empty() && exponent.size() <= 4 &&
                  exponent.find_first_not_of("0123456789") == std::string_view::npos;
  }
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data() + (text.front() == '+' ? 1 : 0),
                                         text.data() + text.size(), value);
  if (!mantissa_ok || !exponent_ok || ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value)) {
    return fmt::format("'{}' is not a decimal number; write it in digits, e.g. 0.9 or 1e-3", text);
  }
  return {};
}

std::string empty_problem(const std::string& text) {
  return text.empty() ? std::string(
                            "the value is empty; give one, or leave the flag out for its "
                            "default")
                      : std::string();
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
    if (option->get_items_expected_min() < 1) continue;  // a switch such as --strict
    // transform() puts a check before those the command added (ranges,
    // sets), so that "0x10" reads as not decimal rather than out of range;
    // the empty check goes in last, so that it runs first.
    // CLI11 names a hidden option (group "") as "" in its errors: the check
    // names it itself.
    const std::string name = option->get_group().empty() && !option->get_lnames().empty()
                                 ? "--" + option->get_lnames().front() + ": "
                                 : std::string();
    auto named = [name](std::string (*problem)(const std::string&)) {
      return CLI::Validator(
          [name, problem](const std::string& text) {
            std::string why = problem(text);
            return why.empty() ? why : name + why;
          },
          "", "");
    };
    const std::string type = option->get_type_name();
    if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0) {
      option->transform(named(decimal_problem));
    } else if (type.rfind("FLOAT", 0) == 0) {
      option->transform(named(decimal_real_problem));
    }
    option->transform(named(empty_problem));
  }
  for (CLI::App* sub : app.get_subcommands({})) require_decimal_integers(*sub);
}

}  // namespace tpnet::cli
