#pragma once
// The contract every fuzz target checks (docs/hardening.md): a parser given
// any bytes either throws tpnet::InputError with a message that names where
// the fault is, or returns a result whose numbers are finite and in range.
// Anything else (another exception type, NaN, inf, a negative size, a
// sanitizer report) aborts, and libFuzzer saves the input as a crash.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <typeinfo>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"

namespace tpnet::fuzz {

[[noreturn]] inline void violated(std::string_view what, std::string_view detail = {}) {
  std::fprintf(stderr, "fuzz contract violated: %.*s%s%.*s\n", static_cast<int>(what.size()),
               what.data(), detail.empty() ? "" : ": ", static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A finite number.
inline double finite(double v, std::string_view what) {
  if (!std::isfinite(v)) violated("not finite", what);
  return v;
}
/// A finite number >= 0.
inline double non_negative(double v, std::string_view what) {
  if (finite(v, what) < 0.0) violated("negative", what);
  return v;
}
/// A finite number > 0.
inline double positive(double v, std::string_view what) {
  if (finite(v, what) <= 0.0) violated("not positive", what);
  return v;
}
/// A finite number in [lo, hi].
inline double within(double v, double lo, double hi, std::string_view what) {
  if (finite(v, what) < lo || v > hi) violated("out of range", what);
  return v;
}

inline double non_negative(Bytes v, std::string_view what) { return non_negative(v.count(), what); }
inline double non_negative(Seconds v, std::string_view what) {
  return non_negative(v.value(), what);
}
inline double non_negative(BitRate v, std::string_view what) {
  return non_negative(v.bits_per_second(), what);
}
inline double positive(Bytes v, std::string_view what) { return positive(v.count(), what); }
inline double positive(Seconds v, std::string_view what) { return positive(v.value(), what); }
inline double positive(BitRate v, std::string_view what) {
  return positive(v.bits_per_second(), what);
}

/// What an InputError must say: a message, and where (a file for file
/// parsers, a key or flag for quantities; `any` for analyses, whose errors
/// may name a flag, a file or a setting).
enum class Origin { file, key, any };

/// Runs `body`; an InputError that names its place is a pass, every other
/// exception a contract violation.
template <typename Body>
void contract(Origin origin, Body&& body) {
  try {
    body();
  } catch (const InputError& e) {
    if (e.detail().empty()) violated("InputError without a message", e.what());
    if (origin == Origin::file && e.where().file.empty()) {
      violated("InputError naming no file", e.what());
    }
    if (origin == Origin::key && e.where().key.empty()) {
      violated("InputError naming no key", e.what());
    }
  } catch (const std::exception& e) {
    violated(typeid(e).name(), e.what());
  } catch (...) {
    violated("an exception that is not a std::exception");
  }
}

}  // namespace tpnet::fuzz
