#pragma once
/// A quantity in the words people read in prose, charts and the report:
/// "1.23 s", "450 ms", "3.57 MB", "157.8 Gb/s". One writer, so the verdict
/// the core words and the charts the CLI draws print a number the same way.

#include <string>
#include <string_view>

namespace tpnet {

/// The SI prefix exponent (a multiple of 3) `unit` is printed with for a value
/// of `magnitude`: the largest that keeps the number at least 1, among those
/// the unit takes ("s": n to 1; "%" and "x": none; else 1 to P).
[[nodiscard]] int si_prefix_exponent(double magnitude, std::string_view unit);

/// `unit` with the prefix of `exponent`: "ms", "GB", "u" + "s" = "us".
[[nodiscard]] std::string si_prefixed_unit(int exponent, std::string_view unit);

/// `value` with `decimals` decimals (none below 0), never "-0" or "-0.00".
[[nodiscard]] std::string fixed_decimals(double value, int decimals);

/// `value` in `unit` with up to `significant` digits, an SI prefix where the
/// unit takes one and trailing zeros dropped. Throws tpnet::Error for NaN or
/// infinity, so no such number reaches a reader.
[[nodiscard]] std::string format_quantity(double value, std::string_view unit, int significant = 4);

/// Seconds to three significant digits ("1.23 s", "450 ms"), as the report
/// and its charts print TTFT; the signed form adds "+" to an increase.
[[nodiscard]] std::string format_seconds(double seconds);
[[nodiscard]] std::string format_signed_seconds(double seconds);

}  // namespace tpnet
