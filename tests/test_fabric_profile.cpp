// Fabric profiles by topology (tpnet/fabric/fabric_profile.hpp): the direct
// cable's and the switchless ring's (docs/formulas.md s.28). The order every
// command chooses profiles in is tested in test_fabric_catalog.cpp.

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "study_fixtures.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/link_presets.hpp"

using namespace tpnet;
using tpnet::test::preset;

namespace {

double allreduce_us(const FabricProfile& p, double bytes, int ranks) {
  return fabric_allreduce(p, Bytes(bytes), ranks, CollectiveAlgorithm::ring).time.value() * 1e6;
}

}  // namespace

TEST_CASE("a four-Spark ring prices an 8 KB all-reduce at sparkring's measured 42 us",
          "[golden][fabric]") {
  const FabricProfile ring =
      default_fabric(preset("200G"), CollectiveSettings{}, "dgx-spark", FabricTopology::ring);
  REQUIRE(ring.name == "dgx-spark-200g-ring");
  CHECK(ring.topology == FabricTopology::ring);
  CHECK(ring.max_ranks == 4);
  // FujitsuPolycom/sparkring issue #273: "~42 us per 8 KB all-reduce" on four.
  CHECK_THAT(allreduce_us(ring, 8192, 4), WithinRel(42.0, 0.03));
  // Three ranks lie between the node's 2-rank table and the ring's 4-rank one.
  const double three = allreduce_us(ring, 8192, 3);
  CHECK(three > allreduce_us(ring, 8192, 2));
  CHECK(three < allreduce_us(ring, 8192, 4));
}

TEST_CASE("a four-Spark ring moves a 1 GiB all-reduce at one PCIe half's 13.93 GB/s",
          "[golden][fabric]") {
  const FabricProfile ring =
      default_fabric(preset("200G"), CollectiveSettings{}, "dgx-spark", FabricTopology::ring);
  // Each rank sends on one RDMA device (sparkring #273): the direct one-half
  // curve's 1 GiB point (13.93 GB/s), 1.5 x 1 GiB sent at four ranks, and no
  // fixed cost left at that size.
  const double expected_ms = 1.5 * 1073741824.0 / 13.93e9 * 1e3;
  CHECK_THAT(allreduce_us(ring, 1073741824.0, 4) / 1e3, WithinRel(expected_ms, 1e-3));
  CHECK_THAT(expected_ms, WithinRel(115.62, 1e-3));
  // Half a switch's: the switch profile's both halves move it far faster.
  const FabricProfile sw = default_fabric(preset("200G"), CollectiveSettings{}, "dgx-spark");
  CHECK(allreduce_us(sw, 1073741824.0, 4) < 0.75 * allreduce_us(ring, 1073741824.0, 4));
}

TEST_CASE("a direct cable's or a ring's profile refuses more ranks than it joins",
          "[fabric][bad-input]") {
  const FabricProfile direct =
      resolve_fabric("dgx-spark-200g-direct", preset("200G"), CollectiveSettings{}, "dgx-spark");
  CHECK(direct.max_ranks == 2);
  CHECK_NOTHROW(allreduce_us(direct, 8192, 2));
  CHECK_THROWS_WITH(allreduce_us(direct, 8192, 4),
                    ContainsSubstring("measured on a direct cable joining 2 nodes; 4 ranks need "
                                      "a switch"));
  const FabricProfile ring =
      resolve_fabric("dgx-spark-200g-ring", preset("200G"), CollectiveSettings{}, "dgx-spark");
  CHECK_THROWS_AS(fabric_allgather(ring, Bytes(8192), 8), InputError);
}

// The cross-check of the ring's rate on a real ring record
// (tests/data/rings/SOURCES): the slope between its two largest rows.
TEST_CASE("sparkring's four-ring NCCL control moves bytes at one PCIe half's rate",
          "[golden][fabric]") {
  std::ifstream in(std::string(TPNET_SOURCE_DIR) +
                   "/tests/data/rings/sparkring-4ring-nccl2.30.7-allreduce-control.md");
  REQUIRE(in);
  std::vector<std::pair<double, double>> rows;  // bytes, p50 us
  std::string line;
  while (std::getline(in, line)) {
    std::string digits;
    for (const char c : line) {
      if (c != ',') digits += c == '|' ? ' ' : c;
    }
    std::istringstream fields(digits);
    double bytes = 0.0;
    double p50 = 0.0;
    if (fields >> bytes >> p50) rows.emplace_back(bytes, p50);
  }
  REQUIRE(rows.size() == 6);
  const auto [b0, t0] = rows[4];
  const auto [b1, t1] = rows[5];
  // 1.5 x the bytes more (four ranks) in the microseconds more.
  const double slope_bps = 1.5 * (b1 - b0) * 8.0 / ((t1 - t0) * 1e-6);
  CHECK_THAT(slope_bps / 1e9, WithinRel(104.6, 1e-3));
  const FabricProfile ring =
      default_fabric(preset("200G"), CollectiveSettings{}, "dgx-spark", FabricTopology::ring);
  const double ring_bps = 8.0 / builtin_seconds_per_byte(ring, Bytes(4194304.0));
  CHECK_THAT(ring_bps, WithinRel(slope_bps, 0.10));
  // Both halves through a switch are far faster than the ring measured at
  // the all-reduces prefill sends (a 2,048-token step's 25 MB block, where
  // the study's bursts ran at 150-180 Gb/s).
  const FabricProfile sw = default_fabric(preset("200G"), CollectiveSettings{}, "dgx-spark");
  CHECK(8.0 / builtin_seconds_per_byte(sw, Bytes(25.2e6)) > 1.3 * slope_bps);
}
