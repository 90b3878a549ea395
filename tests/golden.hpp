#pragma once
// Helpers for golden tests: docs/background.md prints numbers rounded to a precision;
// a golden test checks that our value rounds to exactly what it prints.

#include <cmath>

namespace tpnet::test {

/// `value` rounded half away from zero to `decimals` places.
inline double rounded(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

/// True when `value` prints as `printed` with `decimals` places.
inline bool prints_as(double value, double printed, int decimals) {
  return std::fabs(rounded(value, decimals) - printed) < 1e-9 * std::fmax(1.0, std::fabs(printed));
}

}  // namespace tpnet::test
