// Counts carried into real-valued formulas (tpnet/base/count_math.hpp): the
// share of the largest rank when a count splits over ranks rounds up.

#include <limits>

#include "catch.hpp"
#include "tpnet/base/count_math.hpp"

using namespace tpnet;

TEST_CASE("ceil_div gives the largest rank's share of a count split over ranks", "[base]") {
  // 8 KV heads over TP16 leave one head on every rank, not half of one.
  CHECK(ceil_div(8, 16) == 1);
  // 61 layers over 4 stages: 15.25 rounds up to 16 on the largest stage.
  CHECK(ceil_div(61, 4) == 16);
  CHECK(ceil_div(64, 4) == 16);  // an even split adds nothing
  CHECK(ceil_div(0, 8) == 0);
  CHECK(ceil_div(1, 1) == 1);
  static_assert(ceil_div(7, 2) == 4, "usable in constant expressions");
}

TEST_CASE("to_real keeps counts exact up to 2^53", "[base]") {
  CHECK(to_real(6144) == 6144.0);
  constexpr long long two_53 = 1LL << 53;
  CHECK(to_real(two_53) == 9007199254740992.0);
  CHECK(static_cast<long long>(to_real(two_53 - 1)) == two_53 - 1);
  CHECK(to_real(-3) == -3.0);
}
