// Text quoted in a message or a table cell cannot move the cursor, ring or
// split a line (docs/hardening.md), and a long message keeps its head and
// tail.

#include <string>

#include "catch.hpp"
#include "tpnet/io/printable.hpp"

TEST_CASE("printable escapes control bytes, C1 controls and bytes that are not UTF-8",
          "[hardening][printable]") {
  using tpnet::printable;
  CHECK(printable(std::string("a\nb\0c\x1b[31m", 10)) == "a\\nb\\0c\\x1b[31m");
  CHECK(printable("caf\xc3\xa9 \xe2\x86\x92 x") == "caf\xc3\xa9 \xe2\x86\x92 x");  // UTF-8 kept
  CHECK(printable("a\xff\xc3") == "a\\xff\\xc3");         // not UTF-8; cut short
  CHECK(printable("\xc0\xaf") == "\\xc0\\xaf");           // overlong '/'
  CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate
  CHECK(printable("x\xc2\x9b"
                  "31m") == "x\\xc2\\x9b31m");  // U+009B, a terminal's CSI
}

TEST_CASE("clipped keeps a long message's head and tail", "[hardening][printable]") {
  using tpnet::clipped;
  CHECK(clipped("short", 10) == "short");
  const std::string long_text = "head" + std::string(10000, 'x') + "tail";
  const std::string c = clipped(long_text, 100);
  CHECK(c.size() < 150);
  CHECK(c.rfind("headxx", 0) == 0);
  CHECK_THAT(c, Catch::Matchers::EndsWith("xxtail"));
  CHECK_THAT(c, ContainsSubstring("[... 9908 bytes cut ...]"));
  // A multi-byte character at the cut stays whole.
  const std::string arrows = std::string(49, 'a') + "\xe2\x86\x92" + std::string(200, 'b');
  CHECK(tpnet::printable(clipped(arrows, 100)).find("\\x") == std::string::npos);
}
