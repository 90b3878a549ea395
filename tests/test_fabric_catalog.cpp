// Fabric profiles by name (tpnet/io/fabric_catalog.hpp, docs/formulas.md
// s.28): the built-in ones and where their numbers come from, the default a
// node's link gets for each topology, and the one order profiles are chosen in.

#include <string>
#include <vector>

#include "catch.hpp"
#include "study_fixtures.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/link_presets.hpp"

using namespace tpnet;
using tpnet::test::builtin_profile;
using tpnet::test::preset;

TEST_CASE("every built-in fabric profile says where each number comes from") {
  REQUIRE(builtin_fabric_profiles().size() == 5);
  for (const auto& p : builtin_fabric_profiles()) {
    INFO(p.name);
    CHECK(p.source == FabricSource::builtin);
    CHECK(p.node == "dgx-spark");
    // RDMA rate, NCCL run, fixed cost; the prefill bursts where measured;
    // a ring's own small all-reduces and the NCCL settings it needs.
    REQUIRE(p.provenance.size() >= (p.topology == FabricTopology::ring ? 9U : 3U));
    CHECK(p.provenance[0].find("RDMA rate") == 0);
    CHECK(p.provenance[0].find("measured") != std::string::npos);
    CHECK(p.provenance[2].find("NVIDIA/dgx-spark-playbooks pull request #103") !=
          std::string::npos);
    CHECK(p.provenance[2].find("local-inference-lab/b12x") != std::string::npos);
    REQUIRE_FALSE(p.curve.points.empty());
    CHECK(p.curve.seconds_per_byte.size() == p.curve.points.size());
  }
  // Each path's NCCL curve is its own measurement...
  CHECK(builtin_profile("dgx-spark-200g-switch").provenance[1].find("KoyoImai") !=
        std::string::npos);
  CHECK(builtin_profile("dgx-spark-200g-direct").provenance[1].find("sc13912") !=
        std::string::npos);
  const FabricProfile& direct_half = builtin_profile("dgx-spark-one-half-direct");
  CHECK(direct_half.provenance[1].find("microscaler/cylon-local-infra") != std::string::npos);
  CHECK(direct_half.curve.points.size() == 6);
  CHECK(direct_half.curve_scale == 1.0);
  // ...but one half through a switch, measured only by ib_write_bw: the same
  // half's direct NCCL curve at the ratio of the two measured RDMA rates.
  const FabricProfile& half = builtin_profile("dgx-spark-one-half-switch");
  CHECK_THAT(half.curve_scale, WithinRel(109.11 / 111.86, 1e-12));
  CHECK(half.provenance[1].find("no NCCL measurement on this path") == 0);
  CHECK(half.rdma_devices == 1);
  CHECK_THAT(half.bus_bandwidth.bytes_per_second(), WithinRel(13.93e9 * 109.11 / 111.86, 1e-9));
  // No profile is derived for a path nobody measured (a real 100G lane).
  for (const auto& p : builtin_fabric_profiles()) CHECK(p.for_link != "100G");
}

TEST_CASE("each DGX Spark link preset gets its measured profile, other nodes and rates nominal") {
  CHECK(default_fabric(preset("200G"), CollectiveSettings{}, "dgx-spark").name ==
        "dgx-spark-200g-switch");
  CHECK(default_fabric(preset("emulated-100G"), CollectiveSettings{}, "dgx-spark").name ==
        "dgx-spark-one-half-switch");
  // 100G between Sparks was never measured: nominal, and it says so.
  const FabricProfile hundred = default_fabric(preset("100G"), CollectiveSettings{}, "dgx-spark");
  CHECK(hundred.source == FabricSource::nominal);
  CHECK(hundred.description.find("no measured profile for this path") == 0);
  CHECK(hundred.provenance.front().find("no measured profile for this path") == 0);
  // Its fixed cost is the node's measured one: never below a measured link's.
  CHECK_THAT(fabric_allreduce(hundred, Bytes(8192), 2, CollectiveAlgorithm::ring).latency.value(),
             WithinRel(fabric_allreduce(builtin_profile("dgx-spark-200g-switch"), Bytes(8192), 2,
                                        CollectiveAlgorithm::ring)
                           .latency.value(),
                       1e-12));
  CHECK(default_fabric(preset("400G"), CollectiveSettings{}, "dgx-spark").source ==
        FabricSource::nominal);
  CHECK(default_fabric(preset("200G"), CollectiveSettings{}, "my-node").source ==
        FabricSource::nominal);
  CHECK(default_fabric(preset("200G"), CollectiveSettings{}, "my-node")
            .description.find("no measured") == std::string::npos);
  CollectiveSettings overridden;
  overridden.latency_override = StepLatency{};
  CHECK(default_fabric(preset("200G"), overridden, "dgx-spark").source == FabricSource::nominal);
  CHECK(resolve_fabric("nominal", preset("200G"), CollectiveSettings{}, "dgx-spark").source ==
        FabricSource::nominal);
  CHECK(resolve_fabric("dgx-spark-200g-direct", preset("200G"), CollectiveSettings{}, "dgx-spark")
            .name == "dgx-spark-200g-direct");
  CHECK_THROWS_WITH(
      resolve_fabric("dgx-spark-200g-direct", preset("100G"), CollectiveSettings{}, "dgx-spark"),
      ContainsSubstring("describes 200G links"));
  CHECK_THROWS_WITH(
      resolve_fabric("dgx-spark-200g-swich", preset("200G"), CollectiveSettings{}, "dgx-spark"),
      ContainsSubstring("did you mean dgx-spark-200g-switch"));
}

TEST_CASE("each topology gets its own profile of the link", "[fabric]") {
  CHECK(default_fabric(preset("200G"), CollectiveSettings{}, "dgx-spark").name ==
        "dgx-spark-200g-switch");
  CHECK(default_fabric(preset("200G"), CollectiveSettings{}, "dgx-spark", FabricTopology::direct)
            .name == "dgx-spark-200g-direct");
  CHECK(default_fabric(preset("emulated-100G"), CollectiveSettings{}, "dgx-spark",
                       FabricTopology::direct)
            .name == "dgx-spark-one-half-direct");
  const FabricProfile unmeasured =
      default_fabric(preset("100G"), CollectiveSettings{}, "dgx-spark", FabricTopology::ring);
  CHECK(unmeasured.source == FabricSource::nominal);
  CHECK_THAT(unmeasured.description, ContainsSubstring("100G, ring on dgx-spark"));
}

TEST_CASE("choose_fabrics: asked profiles first, else the layout's topology", "[fabric]") {
  const std::vector<Link> links{preset("200G"), preset("emulated-100G")};
  FabricAsk ask;
  ask.topology = FabricTopology::direct;
  auto chosen = choose_fabrics(ask, links, "dgx-spark");
  CHECK(chosen[0].name == "dgx-spark-200g-direct");
  CHECK(chosen[1].name == "dgx-spark-one-half-direct");
  ask.specs = {"dgx-spark-200g-switch", "auto"};
  chosen = choose_fabrics(ask, links, "dgx-spark");
  CHECK(chosen[0].name == "dgx-spark-200g-switch");
  CHECK(chosen[1].name == "dgx-spark-one-half-direct");
  ask.specs = {"auto", "auto", "auto"};
  CHECK_THROWS_WITH(choose_fabrics(ask, links, "dgx-spark"),
                    ContainsSubstring("3 profiles for 2 links"));
  CHECK(names_calibration_file("runs/calibration.yaml"));
  CHECK(names_calibration_file("mine.yml"));
  CHECK_FALSE(names_calibration_file("dgx-spark-200g-ring"));
  CHECK_FALSE(names_calibration_file("auto"));
}
