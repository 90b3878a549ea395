// What moving bytes over one link instead of another adds
// (tpnet/traffic/transfer_time.hpp, docs/formulas.md s.4):
// bytes x 8 x (1/to - 1/from), signed.

#include "catch.hpp"
#include "tpnet/traffic/transfer_time.hpp"

using namespace tpnet;

TEST_CASE("the extra time to send bytes at a slower rate, signed", "[prefill]") {
  const BitRate g200 = BitRate::gigabits_per_second(200);
  const BitRate g100 = BitRate::gigabits_per_second(100);
  // formulas.md s.4, P2: 27,657,240,576 B x 8 x (1/100G - 1/200G) = 1.10629 s,
  // the time to send the bytes at 200 Gb/s.
  const Bytes p2(27657240576.0);
  CHECK_THAT(extra_transfer_time(p2, g200, g100).value(), WithinRel(1.10628962304, 1e-12));
  CHECK_THAT(extra_transfer_time(p2, g200, g100).value(), WithinRel((p2 / g200).value(), 1e-12));
  // The other way the link is faster and the bound is negative, of the same size.
  CHECK_THAT(extra_transfer_time(p2, g100, g200).value(), WithinRel(-1.10628962304, 1e-12));
  CHECK(extra_transfer_time(p2, g200, g200).value() == 0.0);
  CHECK(extra_transfer_time(Bytes(0.0), g200, g100).value() == 0.0);
  // 1 GB from 109 to 100 Gb/s: 8e9 x (1/100e9 - 1/109e9) = 6.6055 ms.
  CHECK_THAT(extra_transfer_time(Bytes(1e9), BitRate::gigabits_per_second(109), g100).value(),
             WithinRel(8.0 * 9.0 / 10900.0, 1e-12));
}
