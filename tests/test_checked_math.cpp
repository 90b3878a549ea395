// Checked counts (tpnet/base/checked_math.hpp, docs/hardening.md "Arithmetic
// limits"): products and sums of counts are exact up to 2^62 and refused,
// naming what overflowed, past it.

#include <functional>
#include <limits>
#include <string>

#include "catch.hpp"
#include "tpnet/base/checked_math.hpp"

using namespace tpnet;

namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("checked counts multiply and add exactly up to 2^62", "[limits]") {
  CHECK(checked_mul(8192, 6144, "block") == 50331648);
  CHECK(checked_mul(0, kMaxCheckedCount, "block") == 0);
  CHECK(checked_mul(1LL << 31, 1LL << 31, "block") == 1LL << 62);
  CHECK(checked_add(kMaxCheckedCount - 1, 1, "sum") == kMaxCheckedCount);
}

TEST_CASE("checked counts refuse overflow and negative factors, naming what overflowed",
          "[limits]") {
  const auto where = InputLocation::for_key("--prompt");
  const std::string mul =
      message_of([&] { (void)checked_mul(1LL << 40, 1LL << 30, "prompt tokens", where); });
  CHECK_THAT(mul, ContainsSubstring("--prompt: prompt tokens (1099511627776 x 1073741824)"));
  CHECK_THAT(mul, ContainsSubstring("2^62"));
  CHECK_THROWS_AS(checked_mul(std::numeric_limits<long long>::max(), 2, "x"), InputError);
  CHECK_THROWS_AS(checked_mul(-1, 2, "x"), InputError);
  CHECK_THROWS_AS(checked_add(kMaxCheckedCount, 1, "x"), InputError);
  CHECK_THROWS_AS(checked_add(std::numeric_limits<long long>::max(), 1, "x"), InputError);
  CHECK_THROWS_AS(checked_add(1, -2, "x"), InputError);
}
