// One round of a measured all-to-all (tpnet/fabric/measured_alltoall.hpp,
// docs/formulas.md s.31.1).

#include "catch.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/fabric/measured_alltoall.hpp"

using namespace tpnet;

namespace {

// The SYNTHETIC log's fit: 25 us a round, 160 Gb/s, 4 ranks, 1 kB to 1 MB.
MeasuredAllToAll synthetic_fit() {
  MeasuredAllToAll m;
  m.origin = "cal.yaml";
  m.source = "alltoall.log";
  m.link = "200G";
  m.ranks = 4;
  m.alpha = Seconds::microseconds(25.0);
  m.rate = BitRate::gigabits_per_second(160.0);
  m.min_size = Bytes::kilobytes(1.0);
  m.max_size = Bytes::megabytes(1.0);
  return m;
}

}  // namespace

TEST_CASE("a measured round is alpha plus the rank's sent bytes at the measured rate",
          "[measured-alltoall][golden]") {
  const MeasuredAllToAll m = synthetic_fit();
  // 0.6 MB to the 3 others: 25 us + 4.8 Mb / 160 Gb/s = 25 + 30 = 55 us;
  // nccl-tests' size counts the block a rank keeps: 0.6 x 4/3 = 0.8 MB.
  const MeasuredAllToAllRound inside = measured_alltoall_round(m, Bytes::megabytes(0.6), 4);
  CHECK(inside.time.value() == Approx(55e-6));
  CHECK(inside.size.count() == Approx(0.8e6));
  CHECK_FALSE(inside.extrapolated);
  // 1.5 MB on 4 ranks: 25 + 75 = 100 us, 2 MB: beyond the 1 MB measured.
  const MeasuredAllToAllRound above = measured_alltoall_round(m, Bytes::megabytes(1.5), 4);
  CHECK(above.time.value() == Approx(100e-6));
  CHECK(above.size.count() == Approx(2e6));
  CHECK(above.extrapolated);
  // 600 B on 2 ranks is a 1.2 kB round: inside; 400 B a 800 B one: below.
  CHECK_FALSE(measured_alltoall_round(m, Bytes(600.0), 2).extrapolated);
  CHECK(measured_alltoall_round(m, Bytes(400.0), 2).extrapolated);
  // the fit's rate is per byte a rank sends, so other ranks keep the time
  CHECK(measured_alltoall_round(m, Bytes::megabytes(0.6), 8).time.value() ==
        Approx(inside.time.value()));
}

TEST_CASE("a measured round refuses one rank and negative bytes", "[measured-alltoall]") {
  const MeasuredAllToAll m = synthetic_fit();
  CHECK_THROWS_AS(measured_alltoall_round(m, Bytes(100.0), 1), InputError);
  CHECK_THROWS_AS(measured_alltoall_round(m, Bytes(-1.0), 4), InputError);
}

TEST_CASE("a measured all-to-all names its ranks, file, alpha and rate", "[measured-alltoall]") {
  CHECK(describe(synthetic_fit()) == "measured at 4 ranks from cal.yaml (25 us a round, 160 Gb/s)");
}
