#include "tpnet/base/quantity_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tpnet/base/error.hpp"

namespace tpnet {
namespace {

/// Prefix exponents a unit takes, smallest first.
std::vector<int> prefix_exponents(std::string_view unit) {
  if (unit == "%" || unit == "x") return {0};
  if (unit == "s") return {-9, -6, -3, 0};
  return {0, 3, 6, 9, 12, 15};
}

std::string_view prefix_symbol(int exponent) {
  switch (exponent) {
    case -9:
      return "n";
    case -6:
      return "u";  // as the tables print microseconds
    case -3:
      return "m";
    case 3:
      return "k";
    case 6:
      return "M";
    case 9:
      return "G";
    case 12:
      return "T";
    case 15:
      return "P";
    default:
      return "";
  }
}

int decimals_for_significant(double scaled, int significant) {
  if (scaled == 0.0) return 0;
  const int digits = static_cast<int>(std::floor(std::log10(std::fabs(scaled)))) + 1;
  return std::max(0, significant - digits);
}

std::string without_trailing_zeros(std::string text) {
  if (text.find('.') == std::string::npos) return text;
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

int si_prefix_exponent(double magnitude, std::string_view unit) {
  const std::vector<int> allowed = prefix_exponents(unit);
  if (!(magnitude > 0.0)) return allowed.front() <= 0 && allowed.back() >= 0 ? 0 : allowed.front();
  const int wanted = static_cast<int>(std::floor(std::log10(magnitude) / 3.0)) * 3;
  int best = allowed.front();
  for (const int e : allowed) {
    if (e <= wanted) best = e;
  }
  return best;
}

std::string si_prefixed_unit(int exponent, std::string_view unit) {
  return std::string(prefix_symbol(exponent)) + std::string(unit);
}

std::string fixed_decimals(double value, int decimals) {
  std::string out = fmt::format("{:.{}f}", value, std::max(0, decimals));
  if (out == "-0" || out.rfind("-0.", 0) == 0) {
    if (out.find_first_not_of("-0.") == std::string::npos) out.erase(0, 1);
  }
  return out;
}

std::string format_quantity(double value, std::string_view unit, int significant) {
  if (!std::isfinite(value)) {
    throw Error(fmt::format("a quantity in {} is not a finite number", unit.empty() ? "-" : unit));
  }
  const int exponent = si_prefix_exponent(std::fabs(value), unit);
  const double scaled = value / std::pow(10.0, exponent);
  const int decimals = decimals_for_significant(scaled, significant);
  std::string number = without_trailing_zeros(fixed_decimals(scaled, decimals));
  const std::string symbol = si_prefixed_unit(exponent, unit);
  if (symbol.empty()) return number;
  if (unit == "%" || unit == "x" || unit.empty()) return number + symbol;
  return number + " " + symbol;
}

std::string format_seconds(double seconds) { return format_quantity(seconds, "s", 3); }

std::string format_signed_seconds(double seconds) {
  return (seconds >= 0 ? "+" : "") + format_seconds(seconds);
}

}  // namespace tpnet
