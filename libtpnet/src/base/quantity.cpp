#include "tpnet/base/quantity.hpp"
#include "tpnet/base/text.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace tpnet {
namespace {

struct Split {
  double number = 0.0;
  std::string_view suffix;
};

/// Splits "109.07Gb/s" into 109.07 and "Gb/s"; nullopt-like failure via bool.
bool split_number(std::string_view text, Split& out) {
  text = trim_space(text);
  const char* first = text.data();
  const char* last = text.data() + text.size();
  double value = 0.0;
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr == first) return false;
  if (!std::isfinite(value)) return false;
  out.number = value;
  out.suffix = trim_space(std::string_view(ptr, static_cast<std::size_t>(last - ptr)));
  return true;
}

template <std::size_t N>
bool lookup(std::string_view suffix,
            const std::array<std::pair<std::string_view, double>, N>& table, double& factor) {
  for (const auto& [name, f] : table) {
    if (suffix == name) {
      factor = f;
      return true;
    }
  }
  return false;
}

/// 'text', for messages (fmt: GCC 12 warns falsely on "'" + std::string).
std::string quoted(std::string_view text) { return fmt::format("'{}'", text); }

[[noreturn]] void fail(std::string_view text, std::string_view what, const InputLocation& where) {
  throw InputError(quoted(text) + " is not " + std::string(what), where);
}

/// number x unit factor. A product a double cannot hold is refused: 1e308T
/// overflows to inf and 1e-320ns underflows to (almost) 0, and either would
/// turn every later sum or rate into inf (found by tests/fuzz).
double scaled(double number, double factor, std::string_view text, std::string_view what,
              const InputLocation& where) {
  const double value = number * factor;
  if (!std::isfinite(value) || value < std::numeric_limits<double>::min()) {
    throw InputError(fmt::format("{} is out of range for {}", quoted(text), what), where);
  }
  return value;
}

/// A parsed value outside [lo, hi] is refused naming the range; `range` says
/// it in the parser's own units. The lower end allows for the rounding of
/// number x factor ("0.001us" is 1 ns).
double within(double value, double lo, double hi, std::string_view text, std::string_view what,
              std::string_view range, const InputLocation& where) {
  if (value < lo * (1.0 - 1e-12) || value > hi) {
    throw InputError(
        fmt::format("{} is outside the {} tpnet computes with: {}", quoted(text), what, range),
        where);
  }
  return value;
}

/// `value` with up to `digits` significant digits, fixed-point, trailing
/// zeros dropped.

struct Unit {
  std::string_view name;
  double scale;
};

/// `value` in the largest of `units` (ascending) it reaches at least 1 of.
template <std::size_t N>
std::string with_unit(double value, const std::array<Unit, N>& units, int digits) {
  const Unit* unit = &units.front();
  for (const auto& u : units) {
    if (std::fabs(value) >= u.scale) unit = &u;
  }
  return fmt::format("{} {}", plain_number(value / unit->scale, digits), unit->name);
}

}  // namespace

std::string plain_number(double value, int digits) {
  if (value == 0.0 || !std::isfinite(value)) return value == 0.0 ? "0" : fmt::format("{}", value);
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  const int decimals = std::clamp(digits - 1 - magnitude, 0, 17);
  std::string out = fmt::format("{:.{}f}", value, decimals);
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out == "-0" ? "0" : out;
}

std::string format_bit_rate(BitRate rate, int digits) {
  static constexpr std::array<Unit, 5> kUnits{
      {{"b/s", 1.0}, {"kb/s", 1e3}, {"Mb/s", 1e6}, {"Gb/s", 1e9}, {"Tb/s", 1e12}}};
  return with_unit(rate.bits_per_second(), kUnits, digits);
}

std::string format_duration(Seconds time, int digits) {
  static constexpr std::array<Unit, 5> kUnits{
      {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"h", 3600.0}}};
  return with_unit(time.value(), kUnits, digits);
}

std::string format_bytes(Bytes bytes, int digits) {
  static constexpr std::array<Unit, 5> kUnits{
      {{"B", 1.0}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}}};
  return with_unit(bytes.count(), kUnits, digits);
}

BitRate parse_bit_rate(std::string_view text, const InputLocation& where) {
  static constexpr std::string_view kAllowed =
      "a bit rate; use a number with a unit: 200G, 200Gb/s, 200Gbps, 400M, 1.6T or 25GB/s";
  static constexpr std::array<std::pair<std::string_view, double>, 27> kUnits{{
      {"G", 1e9},     {"Gb/s", 1e9},  {"Gbps", 1e9},    {"Gbit/s", 1e9}, {"g", 1e9},
      {"M", 1e6},     {"Mb/s", 1e6},  {"Mbps", 1e6},    {"Mbit/s", 1e6}, {"T", 1e12},
      {"Tb/s", 1e12}, {"Tbps", 1e12}, {"Tbit/s", 1e12}, {"GB/s", 8e9},   {"GBps", 8e9},
      {"MB/s", 8e6},  {"MBps", 8e6},  {"TB/s", 8e12},   {"TBps", 8e12},  {"kb/s", 1e3},
      {"kbps", 1e3},  {"Kb/s", 1e3},  {"b/s", 1.0},     {"bps", 1.0},    {"bit/s", 1.0},
      {"B/s", 8.0},   {"kB/s", 8e3},
  }};
  Split s;
  double factor = 0.0;
  if (!split_number(text, s) || !lookup(s.suffix, kUnits, factor)) fail(text, kAllowed, where);
  if (s.number <= 0.0) {
    throw InputError(quoted(text) + " must be a positive bit rate", where);
  }
  return BitRate(within(scaled(s.number, factor, text, "a bit rate", where), kMinBitsPerSecond,
                        kMaxBitsPerSecond, text, "link rates", "1 b/s to 10 Pb/s (10000T)", where));
}

TokenCount parse_tokens(std::string_view text, const InputLocation& where) {
  static constexpr std::string_view kAllowed =
      "a token count; use a whole number such as 8192, 8k or 8K (k = 1,024 tokens) or 1M";
  static constexpr std::array<std::pair<std::string_view, double>, 5> kUnits{{
      {"", 1.0},
      {"k", 1024.0},
      {"K", 1024.0},
      {"M", 1048576.0},
      {"m", 1048576.0},
  }};
  Split s;
  double factor = 0.0;
  if (!split_number(text, s) || !lookup(s.suffix, kUnits, factor)) fail(text, kAllowed, where);
  const double tokens = s.number * factor;
  if (tokens < 1.0 || tokens != std::floor(tokens) || tokens > static_cast<double>(kMaxTokens)) {
    throw InputError(quoted(text) +
                         " must be a whole number of tokens from 1 to 128M (134,217,728), e.g. "
                         "1k, 8k or 32768",
                     where);
  }
  return static_cast<TokenCount>(tokens);
}

void require_prompt_limits(const PromptSpec& spec, const InputLocation& requests_at,
                           const InputLocation& tokens_at) {
  if (spec.requests < 1 || spec.requests > kMaxPromptRequests) {
    throw InputError(
        fmt::format("{} requests is out of range; allowed 1 to 1,000,000", spec.requests),
        requests_at);
  }
  if (spec.tokens_each < 1 || spec.tokens_each > kMaxTokens) {
    throw InputError(fmt::format("{} tokens is out of range; allowed 1 to 128M (134,217,728) "
                                 "tokens per request",
                                 spec.tokens_each),
                     tokens_at);
  }
  // Both factors are bounded, so the product cannot overflow before this check.
  if (spec.total_tokens() > kMaxTokens) {
    throw InputError(fmt::format("{} x {} is {} prompt tokens in all; a prompt mix may hold at "
                                 "most 128M (134,217,728)",
                                 spec.requests, spec.tokens_each, spec.total_tokens()),
                     tokens_at);
  }
}

PromptSpec parse_prompt(std::string_view text, const InputLocation& where) {
  const std::string_view trimmed = trim_space(text);
  PromptSpec spec;
  const auto x = trimmed.find_first_of("xX*");
  if (x == std::string_view::npos) {
    spec.tokens_each = parse_tokens(trimmed, where);
    return spec;
  }
  static constexpr std::string_view kMix =
      "use TOKENS or REQUESTSxTOKENS such as 8k or 4x8k (requests from 1 to 1,000,000)";
  const std::string_view count = trim_space(trimmed.substr(0, x));
  const std::string_view tokens = trim_space(trimmed.substr(x + 1));
  if (count.empty() || tokens.empty()) {
    throw InputError(fmt::format("{} is not a prompt mix: {} missing {} the '{}'; {}", quoted(text),
                                 count.empty() ? "the request count is" : "tokens are",
                                 count.empty() ? "before" : "after", trimmed[x], kMix),
                     where);
  }
  long long requests = 0;
  auto [ptr, ec] = std::from_chars(count.data(), count.data() + count.size(), requests);
  if (ec != std::errc() || ptr != count.data() + count.size() || requests < 1 ||
      requests > kMaxPromptRequests) {
    throw InputError(quoted(text) + " is not a prompt mix; " + std::string(kMix), where);
  }
  spec.requests = requests;
  spec.tokens_each = parse_tokens(tokens, where);
  if (spec.total_tokens() > kMaxTokens) {
    throw InputError(fmt::format("{} asks for {} prompt tokens in all; a prompt mix may hold at "
                                 "most 128M (134,217,728)",
                                 quoted(text), spec.total_tokens()),
                     where);
  }
  return spec;
}

Seconds parse_duration(std::string_view text, const InputLocation& where) {
  static constexpr std::string_view kAllowed =
      "a duration; use a number with a unit: 45s, 1000ms, 100us, 2min";
  static constexpr std::array<std::pair<std::string_view, double>, 8> kUnits{{
      {"s", 1.0},
      {"ms", 1e-3},
      {"us", 1e-6},
      {"\xC2\xB5s", 1e-6},
      {"ns", 1e-9},
      {"min", 60.0},
      {"h", 3600.0},
      {"sec", 1.0},
  }};
  Split s;
  double factor = 0.0;
  if (!split_number(text, s) || !lookup(s.suffix, kUnits, factor)) fail(text, kAllowed, where);
  if (s.number <= 0.0) {
    throw InputError(quoted(text) + " must be a positive duration", where);
  }
  return Seconds(within(scaled(s.number, factor, text, "a duration", where), kMinSeconds,
                        kMaxSeconds, text, "durations", "1ns to 100000h (about 11 years)", where));
}

Bytes parse_bytes(std::string_view text, const InputLocation& where) {
  static constexpr std::string_view kAllowed =
      "a byte size; use a number with B, kB, MB, GB, TB (decimal) or KiB, MiB, GiB, TiB "
      "(binary), e.g. 3.57MB or 50.3MiB";
  static constexpr std::array<std::pair<std::string_view, double>, 10> kUnits{{
      {"B", 1.0},
      {"kB", 1e3},
      {"KB", 1e3},
      {"MB", 1e6},
      {"GB", 1e9},
      {"TB", 1e12},
      {"KiB", 1024.0},
      {"MiB", 1048576.0},
      {"GiB", 1073741824.0},
      {"TiB", 1099511627776.0},
  }};
  Split s;
  double factor = 0.0;
  // A bare number is refused, not read as bytes: "--autotune-spike 10" most
  // likely means 10 GB, and 10 B would pass silently.
  if (split_number(text, s) && s.suffix.empty()) {
    throw InputError(
        fmt::format("{} has no unit; write the byte size with one, e.g. {}GB or {}B", quoted(text),
                    plain_number(s.number, 6), plain_number(s.number, 6)),
        where);
  }
  if (!split_number(text, s) || !lookup(s.suffix, kUnits, factor)) fail(text, kAllowed, where);
  if (s.number <= 0.0) {
    throw InputError(quoted(text) + " must be a positive byte size", where);
  }
  return Bytes(within(scaled(s.number, factor, text, "a byte size", where), kMinByteCount,
                      kMaxByteCount, text, "byte sizes", "1B to 1000000TB (10^18 B)", where));
}

Bytes parse_bytes_or_count(std::string_view text, const InputLocation& where) {
  Split s;
  if (split_number(text, s) && s.suffix.empty())
    return parse_bytes(fmt::format("{}B", text), where);
  return parse_bytes(text, where);
}

double parse_percent(std::string_view text, const InputLocation& where) {
  Split s;
  if (!split_number(text, s) || s.suffix != "%") {
    fail(text, "a percentage; write it with a % sign, e.g. 20%", where);
  }
  if (s.number < 0.0 || s.number > 10000.0) {
    throw InputError(quoted(text) + " must be from 0% to 10000%", where);
  }
  return s.number / 100.0;
}

double parse_positive_number(std::string_view text, const InputLocation& where,
                             std::string_view what) {
  Split s;
  if (!split_number(text, s) || !s.suffix.empty()) {
    fail(text, fmt::format("a number ({})", what), where);
  }
  if (s.number <= 0.0) {
    throw InputError(quoted(text) + " must be positive (" + std::string(what) + ")", where);
  }
  return s.number;
}

TokenRate parse_token_rate(std::string_view text, const InputLocation& where) {
  for (const std::string_view suffix : {std::string_view("tokens/s"), std::string_view("tok/s")}) {
    if (text.size() > suffix.size() && text.ends_with(suffix)) {
      text.remove_suffix(suffix.size());
      break;
    }
  }
  const double rate = parse_positive_number(text, where, "tokens per second, e.g. 15");
  if (rate < kMinTokensPerSecond || rate > kMaxTokensPerSecond) {
    throw InputError(quoted(text) + " tokens/s is out of range; allowed 0.001 to 1000000", where);
  }
  return TokenRate(rate);
}

}  // namespace tpnet
