#pragma once
/// Strong unit types. Decimal SI is decided here, once: 1 MB = 10^6 B,
/// 1 Gb/s = 10^9 bit/s, and a byte is 8 bits. No raw double for a physical
/// quantity crosses the public API; see docs/formulas.md, "Units".

#include <compare>

namespace tpnet {

/// A count of bytes. Fractional values are allowed because per-node shares
/// such as 2(N-1)/N of a block need not be whole bytes.
class Bytes {
 public:
  constexpr Bytes() = default;
  constexpr explicit Bytes(double count) : count_(count) {}

  static constexpr Bytes kilobytes(double v) { return Bytes(v * 1e3); }
  static constexpr Bytes megabytes(double v) { return Bytes(v * 1e6); }
  static constexpr Bytes gigabytes(double v) { return Bytes(v * 1e9); }
  static constexpr Bytes mebibytes(double v) { return Bytes(v * 1048576.0); }
  static constexpr Bytes gibibytes(double v) { return Bytes(v * 1073741824.0); }

  [[nodiscard]] constexpr double count() const { return count_; }
  [[nodiscard]] constexpr double bits() const { return count_ * 8.0; }

  constexpr Bytes operator+(Bytes o) const { return Bytes(count_ + o.count_); }
  constexpr Bytes operator-(Bytes o) const { return Bytes(count_ - o.count_); }
  constexpr Bytes operator*(double k) const { return Bytes(count_ * k); }
  constexpr Bytes operator/(double k) const { return Bytes(count_ / k); }
  constexpr double operator/(Bytes o) const { return count_ / o.count_; }
  constexpr Bytes& operator+=(Bytes o) {
    count_ += o.count_;
    return *this;
  }
  constexpr auto operator<=>(const Bytes&) const = default;  // NOLINT(modernize-use-nullptr)

 private:
  double count_ = 0.0;
};

constexpr Bytes operator*(double k, Bytes b) { return b * k; }

/// A span of time.
class Seconds {
 public:
  constexpr Seconds() = default;
  constexpr explicit Seconds(double value) : value_(value) {}

  static constexpr Seconds milliseconds(double v) { return Seconds(v * 1e-3); }
  static constexpr Seconds microseconds(double v) { return Seconds(v * 1e-6); }

  [[nodiscard]] constexpr double value() const { return value_; }

  constexpr Seconds operator+(Seconds o) const { return Seconds(value_ + o.value_); }
  constexpr Seconds operator-(Seconds o) const { return Seconds(value_ - o.value_); }
  constexpr Seconds operator*(double k) const { return Seconds(value_ * k); }
  constexpr Seconds operator/(double k) const { return Seconds(value_ / k); }
  constexpr double operator/(Seconds o) const { return value_ / o.value_; }
  constexpr Seconds& operator+=(Seconds o) {
    value_ += o.value_;
    return *this;
  }
  // clang-tidy 14 misreads the defaulted <=> as comparing with literal 0.
  constexpr auto operator<=>(const Seconds&) const = default;  // NOLINT(modernize-use-nullptr)

 private:
  double value_ = 0.0;
};

constexpr Seconds operator*(double k, Seconds s) { return s * k; }

/// A data rate in bits per second (links) that also answers in bytes per
/// second (memory bandwidth), so the x8 lives in exactly one place.
class BitRate {
 public:
  constexpr BitRate() = default;
  constexpr explicit BitRate(double bits_per_second) : bps_(bits_per_second) {}

  static constexpr BitRate gigabits_per_second(double v) { return BitRate(v * 1e9); }
  static constexpr BitRate gigabytes_per_second(double v) { return BitRate(v * 8e9); }

  [[nodiscard]] constexpr double bits_per_second() const { return bps_; }
  [[nodiscard]] constexpr double bytes_per_second() const { return bps_ / 8.0; }

  constexpr BitRate operator*(double k) const { return BitRate(bps_ * k); }
  constexpr BitRate operator/(double k) const { return BitRate(bps_ / k); }
  constexpr double operator/(BitRate o) const { return bps_ / o.bps_; }
  constexpr auto operator<=>(const BitRate&) const = default;  // NOLINT(modernize-use-nullptr)

 private:
  double bps_ = 0.0;
};

/// Time to move `b` at rate `r`: b x 8 / r.
constexpr Seconds operator/(Bytes b, BitRate r) { return Seconds(b.bits() / r.bits_per_second()); }
/// Bytes moved at rate `r` during `t`.
constexpr Bytes operator*(BitRate r, Seconds t) { return Bytes(r.bytes_per_second() * t.value()); }
/// Average rate of `b` bytes spread over `t`.
constexpr BitRate operator/(Bytes b, Seconds t) { return BitRate(b.bits() / t.value()); }

/// True when two rates are the same within a part in 10^9: rates parse from
/// text ("200G", "25 GB/s"), so the same speed can differ in its last bits.
[[nodiscard]] constexpr bool same_rate(BitRate a, BitRate b) {
  const auto magnitude = [](double v) { return v < 0.0 ? -v : v; };
  const double x = a.bits_per_second();
  const double y = b.bits_per_second();
  const double larger = magnitude(x) > magnitude(y) ? magnitude(x) : magnitude(y);
  return magnitude(x - y) <= 1e-9 * larger;
}

/// A rate of tokens per second: one request's decode rate (TPS) or an
/// instance's aggregate throughput (TPS x concurrency).
class TokenRate {
 public:
  constexpr TokenRate() = default;
  constexpr explicit TokenRate(double tokens_per_second) : value_(tokens_per_second) {}

  [[nodiscard]] constexpr double tokens_per_second() const { return value_; }

  constexpr TokenRate operator*(double k) const { return TokenRate(value_ * k); }
  constexpr double operator/(TokenRate o) const { return value_ / o.value_; }
  constexpr auto operator<=>(const TokenRate&) const = default;  // NOLINT(modernize-use-nullptr)

 private:
  double value_ = 0.0;
};

/// Decode rate from a time per output token: 1 / ITL (1000/ITL in ms ~ TPS).
[[nodiscard]] constexpr TokenRate rate_from_interval(Seconds per_token) {
  return TokenRate(1.0 / per_token.value());
}

/// A number of tokens (prompt, chunk, output). Whole tokens only.
using TokenCount = long long;

}  // namespace tpnet
