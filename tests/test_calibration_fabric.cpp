// A calibration as a fabric profile, with its measured all-to-all
// (tpnet/measured/calibration_fabric.hpp, docs/formulas.md s.31.1).

#include "catch.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/measured/calibration_fabric.hpp"

using namespace tpnet;

namespace {

Calibration measured_at_200g(bool with_alltoall) {
  Calibration c;
  c.origin = "cal.yaml";
  AllReduceCalibration allreduce;
  allreduce.source = "allreduce.log";
  allreduce.ranks = 2;
  allreduce.link = "200G";
  allreduce.link_rate = BitRate::gigabits_per_second(200.0);
  allreduce.alpha = Seconds::microseconds(20.0);
  allreduce.beta = BitRate::gigabits_per_second(150.0);
  allreduce.min_size = Bytes::kilobytes(1.0);
  allreduce.max_size = Bytes::megabytes(64.0);
  allreduce.points = 2;
  allreduce.curve = {{Bytes::kilobytes(1.0), Seconds::microseconds(20.0),
                      BitRate::gigabits_per_second(0.4), BitRate::gigabits_per_second(0.4)},
                     {Bytes::megabytes(64.0), Seconds::milliseconds(3.43),
                      BitRate::gigabits_per_second(149.0), BitRate::gigabits_per_second(149.0)}};
  c.allreduce = allreduce;
  if (with_alltoall) {
    AllToAllCalibration alltoall;
    alltoall.source = "alltoall.log";
    alltoall.ranks = 4;
    alltoall.link = "200G";
    alltoall.alpha = Seconds::microseconds(25.0);
    alltoall.rate = BitRate::gigabits_per_second(160.0);
    alltoall.min_size = Bytes::kilobytes(1.0);
    alltoall.max_size = Bytes::megabytes(1.0);
    alltoall.points = 11;
    c.alltoall = alltoall;
  }
  return c;
}

Link link_of(const char* name) { return parse_link(name, InputLocation::for_key("link")); }

}  // namespace

TEST_CASE("a calibration's all-to-all travels with its fabric profile", "[calibration-fabric]") {
  const FabricProfile p = calibration_fabric(measured_at_200g(true), link_of("200G"));
  CHECK(p.source == FabricSource::calibration);
  CHECK(p.name == "cal.yaml");
  REQUIRE(p.measured_curve);
  REQUIRE(p.alltoall);
  CHECK(p.alltoall->origin == "cal.yaml");
  CHECK(p.alltoall->source == "alltoall.log");
  CHECK(p.alltoall->ranks == 4);
  CHECK(p.alltoall->alpha.value() == Approx(25e-6));
  CHECK(p.alltoall->rate.bits_per_second() == Approx(160e9));
  CHECK(p.alltoall->max_size.count() == Approx(1e6));
  CHECK(p.provenance.back().find("alltoall.log") != std::string::npos);
}

TEST_CASE("a calibration's all-to-all rate moves to another link as the all-reduce's does",
          "[calibration-fabric]") {
  // measured at 200G, priced at 100G: 160 x 100 / 200 = 80 Gb/s; alpha stays
  const FabricProfile p = calibration_fabric(measured_at_200g(true), link_of("100G"));
  REQUIRE(p.alltoall);
  CHECK(p.alltoall->rate.bits_per_second() == Approx(80e9));
  CHECK(p.alltoall->alpha.value() == Approx(25e-6));
  // measured on a link the all-reduce does not describe: kept as measured
  Calibration other = measured_at_200g(true);
  other.alltoall->link = "400G";
  CHECK(calibration_fabric(other, link_of("100G")).alltoall->rate.bits_per_second() ==
        Approx(160e9));
}

TEST_CASE("a calibration without an all-to-all prices by its all-reduce alone",
          "[calibration-fabric]") {
  const FabricProfile p = calibration_fabric(measured_at_200g(false), link_of("200G"));
  CHECK_FALSE(p.alltoall.has_value());
  CHECK(p.provenance.size() == 1);
  Calibration none = measured_at_200g(true);
  none.allreduce.reset();
  CHECK_THROWS_AS(calibration_fabric(none, link_of("200G")), InputError);
}
