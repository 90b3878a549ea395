// The one trim every reader uses (tpnet/base/text.hpp).

#include "catch.hpp"
#include "tpnet/base/text.hpp"

TEST_CASE("trim_space takes ASCII whitespace off both ends and nothing else", "[text]") {
  using tpnet::trim_space;
  CHECK(trim_space("  200 Gb/sec\n") == "200 Gb/sec");
  CHECK(trim_space("\t4096\r\n") == "4096");
  CHECK(trim_space("a b") == "a b");
  CHECK(trim_space(" \t\r\n\v\f").empty());
  CHECK(trim_space("").empty());
  // Not ASCII whitespace: a no-break space (UTF-8 C2 A0) stays.
  CHECK(trim_space("\xC2\xA0x") == "\xC2\xA0x");
  static_assert(trim_space(" x ") == "x");
}
