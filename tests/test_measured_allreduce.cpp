// A measured all-reduce curve (tpnet/fabric/measured_allreduce.hpp,
// docs/formulas.md s.19): interpolated between measured sizes, the fitted
// line outside them, and moved to other links and rank counts, each by
// hand-computed numbers on the 4-rank curve of calibration_fixtures.hpp.

#include <cmath>

#include "calibration_fixtures.hpp"
#include "catch.hpp"
#include "tpnet/fabric/measured_allreduce.hpp"

using namespace tpnet;
using tpnet::test::four_ranks;

namespace {

double us(Seconds t) { return t.value() * 1e6; }

}  // namespace

TEST_CASE("the measured curve: exact at measured sizes, log-log between them",
          "[calibration][golden]") {
  const AllReduceCalibration c = four_ranks();
  CHECK_THAT(us(measured_allreduce_time(c, Bytes(1e6))), WithinRel(100.0, 1e-12));
  CHECK_THAT(us(measured_allreduce_time(c, Bytes(16e6))), WithinRel(1000.0, 1e-12));
  // 2 MB is halfway in log size between 1 and 4 MB: 100 x (400/100)^0.5 = 200 us.
  CHECK_THAT(us(measured_allreduce_time(c, Bytes(2e6))), WithinRel(200.0, 1e-12));
  // 8 MB: 400 x (1000/400)^0.5 = 632.456 us.
  CHECK_THAT(us(measured_allreduce_time(c, Bytes(8e6))), WithinRel(400.0 * std::sqrt(2.5), 1e-12));
}

TEST_CASE("outside the measured sizes the fitted alpha-beta line applies",
          "[calibration][golden]") {
  const AllReduceCalibration c = four_ranks();
  // 32 MB: 10 us + 1.5 x 32e6 x 8 / 120e9 = 10 + 3200 us.
  CHECK_THAT(us(measured_allreduce_time(c, Bytes(32e6))), WithinRel(3210.0, 1e-12));
  // 100 kB: 10 us + 1.5 x 1e5 x 8 / 120e9 = 10 + 10 us.
  CHECK_THAT(us(measured_allreduce_time(c, Bytes(1e5))), WithinRel(20.0, 1e-12));
  // A negative fitted alpha makes the line useless for tiny blocks: the
  // smallest measured time stands in.
  AllReduceCalibration negative = c;
  negative.alpha = Seconds::microseconds(-5.0);
  CHECK_THAT(us(measured_allreduce_time(negative, Bytes(100.0))), WithinRel(100.0, 1e-12));
}

TEST_CASE("a slower link stretches only the transfer part: 10 + (200 - 10) x 2 = 390 us",
          "[calibration][golden]") {
  const AllReduceCalibration c = four_ranks();
  const BitRate g200 = BitRate::gigabits_per_second(200.0);
  const BitRate g100 = BitRate::gigabits_per_second(100.0);
  CHECK_THAT(us(calibrated_allreduce_time(c, Bytes(2e6), 4, g200)), WithinRel(200.0, 1e-12));
  CHECK_THAT(us(calibrated_allreduce_time(c, Bytes(2e6), 4, g100)), WithinRel(390.0, 1e-12));
  // The fitted beta moves with the link: 120 Gb/s x 100/200.
  CHECK_THAT(calibrated_rate(c, g100).bits_per_second(), WithinRel(60e9, 1e-12));
  // A negative alpha counts as 0: all of the measured time is transfer.
  AllReduceCalibration negative = c;
  negative.alpha = Seconds::microseconds(-5.0);
  CHECK_THAT(us(calibrated_allreduce_time(negative, Bytes(2e6), 4, g100)), WithinRel(400.0, 1e-12));
}

TEST_CASE("another rank count keeps the latency per step and the bytes each rank sends",
          "[calibration][golden]") {
  const AllReduceCalibration c = four_ranks();
  const BitRate g200 = BitRate::gigabits_per_second(200.0);
  // TP8 from a 4-rank sweep: alpha x 14/6 = 23.333 us; the 2 MB block sends
  // as much per rank as 2 MB x 1.75/1.5 = 2.333 MB did on 4 ranks, measured
  // (t proportional to size between 1 and 4 MB) 233.333 us; 233.333 - 10 =
  // 223.333 us of transfer. Total 246.667 us.
  CHECK_THAT(us(calibrated_allreduce_time(c, Bytes(2e6), 8, g200)),
             WithinRel(10.0 * 14.0 / 6.0 + (700.0 / 3.0 - 10.0), 1e-12));
  CHECK_THAT(us(calibrated_allreduce_time(c, Bytes(2e6), 8, g200)), WithinRel(246.6667, 1e-6));
  CHECK_THROWS_AS(calibrated_allreduce_time(c, Bytes(2e6), 1, g200), InputError);
}
