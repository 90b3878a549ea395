#pragma once
/// The one parser for quantities typed by people: link rates, token counts,
/// prompt mixes, durations, byte sizes, percentages. Every parser reports
/// errors in one style, naming the flag or key it was given in `where`.

#include <string>
#include <string_view>

#include "tpnet/base/checked_math.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/base/units.hpp"

namespace tpnet {

/// `200G`, `200Gb/s`, `200Gbps`, `109.07G`, `400M`, `1.6T` (bits, decimal) and
/// `25GB/s` (bytes per second, x8). A bare number is refused: 200 what?
/// Must lie from 1 b/s to 10 Pb/s.
BitRate parse_bit_rate(std::string_view text, const InputLocation& where);

/// `8192`, `8k`, `8K` (k = 1,024 tokens, as context lengths are quoted),
/// `1M` (1,048,576). Must be a whole number from 1 to kMaxTokens.
TokenCount parse_tokens(std::string_view text, const InputLocation& where);

/// A prompt scenario: `8k` is one request of 8,192 tokens, `4x8k` four
/// concurrent requests of 8,192 tokens each.
struct PromptSpec {
  long long requests = 1;
  TokenCount tokens_each = 0;

  /// requests x tokens_each; throws InputError rather than overflow.
  [[nodiscard]] TokenCount total_tokens() const {
    return checked_mul(requests, tokens_each, "prompt tokens (requests x tokens each)");
  }
};
/// Refuses a mix of more than kMaxPromptRequests requests or kMaxTokens
/// tokens in all (`1000x1M`), saying the limit.
PromptSpec parse_prompt(std::string_view text, const InputLocation& where);

/// The limits parse_prompt enforces, for readers that take requests and
/// tokens from separate places (the baseline CSV's columns): requests 1 to
/// kMaxPromptRequests at `requests_at`, tokens each 1 to kMaxTokens and the
/// mix at most kMaxTokens in all at `tokens_at`.
void require_prompt_limits(const PromptSpec& spec, const InputLocation& requests_at,
                           const InputLocation& tokens_at);

/// `1000ms`, `45s`, `100us`, `2min`. Must lie from 1 ns to 100,000 h.
Seconds parse_duration(std::string_view text, const InputLocation& where);

/// `3.57MB`, `2.8GB`, `50.3MiB`, `4096B`. Decimal and binary prefixes are
/// both explicit: MB = 10^6 B, MiB = 2^20 B. Must lie from 1 B to 10^18 B. A
/// bare number is refused naming the units: what a person types as `10`
/// for a memory size means 10 GB far more often than 10 B.
Bytes parse_bytes(std::string_view text, const InputLocation& where);

/// parse_bytes, and a bare number is bytes: for the catalog fields whose
/// format says so (an nccl-tests size column, `size: 8192`).
Bytes parse_bytes_or_count(std::string_view text, const InputLocation& where);

/// `20%` as the fraction 0.2. Must end in % and lie in [0, 10000]%.
double parse_percent(std::string_view text, const InputLocation& where);

/// The parsers' inverse, for text people read: the number in the largest
/// decimal unit that keeps it at least 1, with up to `digits` significant
/// digits, trailing zeros dropped and never an exponent: "200 Gb/s",
/// "109.07 Gb/s", "1 b/s", "10000 Tb/s"; "6.6 us", "1 ns", "87660 h";
/// "3.37613 MB", "4.096 kB". The matching parser reads each back to the digits
/// kept. Zero prints as "0" with the base unit; negative values keep their sign.
[[nodiscard]] std::string format_bit_rate(BitRate rate, int digits = 6);
[[nodiscard]] std::string format_duration(Seconds time, int digits = 6);

/// A number for text people read (titles, labels, messages): up to
/// `significant` digits, trailing zeros dropped, never an exponent ("0.001",
/// "1000000"); a value that is not finite is written as such ("inf").
[[nodiscard]] std::string plain_number(double value, int significant = 6);
[[nodiscard]] std::string format_bytes(Bytes bytes, int digits = 6);

/// `15`, `15tok/s` or `15tokens/s`: tokens per second, positive.
TokenRate parse_token_rate(std::string_view text, const InputLocation& where);

/// A plain positive number such as `273` or `4.5`; `what` names what it is
/// for the error message.
double parse_positive_number(std::string_view text, const InputLocation& where,
                             std::string_view what);

}  // namespace tpnet
