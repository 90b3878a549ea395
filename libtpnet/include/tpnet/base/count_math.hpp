#pragma once
/// Whole-number counts (layers, heads, elements) carried into real-valued
/// formulas, and the rounding up that splitting a count over ranks needs.

namespace tpnet {

/// A count as a double, for the formulas that multiply counts by sizes and
/// rates; counts stay exact up to 2^53, far above any model dimension.
[[nodiscard]] constexpr double to_real(long long count) { return static_cast<double>(count); }

/// ceil(a / b) for a >= 0, b > 0: the share of the largest rank when a count
/// is split over b ranks.
[[nodiscard]] constexpr long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

}  // namespace tpnet
