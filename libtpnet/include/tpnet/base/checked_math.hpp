#pragma once
/// Whole-number counts (tokens, elements, bytes of a block) multiplied and
/// added in 64-bit integers with overflow checks: a product that leaves the
/// range is refused as bad input naming what overflowed, never wrapped
/// (docs/hardening.md, "Arithmetic limits").

#include <climits>
#include <string>
#include <string_view>

#include "tpnet/base/error.hpp"

namespace tpnet {

static_assert(sizeof(long long) * CHAR_BIT == 64, "counts are 64-bit");

/// The largest count any checked product may reach: 2^62, so that a sum of
/// two such counts still fits a signed 64-bit integer.
inline constexpr long long kMaxCheckedCount = 1LL << 62;

namespace detail {

[[noreturn]] inline void count_overflow(std::string_view what, std::string_view op, long long a,
                                        long long b, const InputLocation& where) {
  throw InputError(std::string(what) + " (" + std::to_string(a) + std::string(op) +
                       std::to_string(b) +
                       ") is out of range: counts must lie from 0 to 2^62; use smaller inputs",
                   where);
}

}  // namespace detail

/// a x b for counts in [0, 2^62]; throws InputError naming `what` (e.g.
/// "prompt tokens (requests x tokens each)") when either is negative or the
/// product exceeds 2^62.
[[nodiscard]] inline long long checked_mul(long long a, long long b, std::string_view what,
                                           const InputLocation& where = {}) {
  long long product = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &product) || product > kMaxCheckedCount) {
    detail::count_overflow(what, " x ", a, b, where);
  }
  return product;
}

/// a + b for counts in [0, 2^62]; throws InputError naming `what` when either
/// is negative or the sum exceeds 2^62.
[[nodiscard]] inline long long checked_add(long long a, long long b, std::string_view what,
                                           const InputLocation& where = {}) {
  long long sum = 0;
  if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &sum) || sum > kMaxCheckedCount) {
    detail::count_overflow(what, " + ", a, b, where);
  }
  return sum;
}

}  // namespace tpnet
