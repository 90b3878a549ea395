#pragma once
/// The one parser for quantities typed by people: link rates, token counts,
/// prompt mixes, durations, byte sizes, percentages. Every parser reports
/// errors in one style, naming the flag or key it was given in `where`.

#include <string_view>

#include "tpnet/error.hpp"
#include "tpnet/units.hpp"

namespace tpnet {

/// `200G`, `200Gb/s`, `200Gbps`, `109.07G`, `400M`, `1.6T` (bits, decimal) and
/// `25GB/s` (bytes per second, x8). A bare number is refused: 200 what?
BitRate parse_bit_rate(std::string_view text, const InputLocation& where);

/// `8192`, `8k`, `8K` (k = 1,024 tokens, as context lengths are quoted),
/// `1M` (1,048,576). Must be a whole number of at least 1.
TokenCount parse_tokens(std::string_view text, const InputLocation& where);

/// A prompt scenario: `8k` is one request of 8,192 tokens, `4x8k` four
/// concurrent requests of 8,192 tokens each.
struct PromptSpec {
  long long requests = 1;
  TokenCount tokens_each = 0;

  [[nodiscard]] TokenCount total_tokens() const { return requests * tokens_each; }
};
PromptSpec parse_prompt(std::string_view text, const InputLocation& where);

/// `1000ms`, `45s`, `100us`, `2min`. Must be positive.
Seconds parse_duration(std::string_view text, const InputLocation& where);

/// `3.57MB`, `2.8GB`, `50.3MiB`, `4096` (bytes). Decimal and binary prefixes
/// are both explicit: MB = 10^6 B, MiB = 2^20 B. Must be positive.
Bytes parse_bytes(std::string_view text, const InputLocation& where);

/// `20%` as the fraction 0.2. Must end in % and lie in [0, 10000]%.
double parse_percent(std::string_view text, const InputLocation& where);

/// A plain positive number such as `273` or `4.5`; `what` names what it is
/// for the error message.
double parse_positive_number(std::string_view text, const InputLocation& where,
                             std::string_view what);

}  // namespace tpnet
