// An all-reduce over a link (tpnet/fabric/allreduce_time.hpp): alpha from the
// user's alpha-beta override or NCCL's model, alpha + beta, and which term
// dominates (docs/formulas.md s.5 and s.20).

#include <vector>

#include "catch.hpp"
#include "tpnet/fabric/allreduce_time.hpp"
#include "tpnet/traffic/collective.hpp"

using namespace tpnet;

namespace {

const Link k200G{"200G", BitRate::gigabits_per_second(200), {}};

/// Settings whose latency is the user's alpha-beta override.
CollectiveSettings with_override(StepLatency alpha) {
  CollectiveSettings settings;
  settings.latency_override = alpha;
  return settings;
}

}  // namespace

TEST_CASE("alpha-beta override: fixed latency plus bytes over the rate", "[collective]") {
  const AllReduceTraffic traffic =
      allreduce_traffic(Bytes::megabytes(1), 8, CollectiveAlgorithm::ring);
  const CollectiveSettings settings =
      with_override({Seconds::microseconds(6.6), Seconds::microseconds(2.7)});
  const double latency = 6.6e-6 + 14 * 2.7e-6;
  const double transfer = 1.75e6 * 8 / 200e9;
  CHECK_THAT(allreduce_latency(traffic, *settings.latency_override).value(),
             WithinRel(latency, 1e-12));
  CHECK_THAT(allreduce_latency(traffic, k200G, settings).value(), WithinRel(latency, 1e-12));
  CHECK_FALSE(price_allreduce_latency(traffic, k200G, settings).nccl.has_value());
  CHECK_THAT(allreduce_transfer_time(traffic, k200G.rate).value(), WithinRel(transfer, 1e-12));
  CHECK_THAT(allreduce_time(traffic, k200G, settings).value(),
             WithinRel(latency + transfer, 1e-12));
}

TEST_CASE("by default NCCL's model prices alpha, restricted to the all-reduce's algorithm",
          "[collective][nccl]") {
  // GLM-5.3 TP8 decode block, 200G: ring/LL, 6.6 + 14 x 5.0 = 76.6 us (test_nccl_model.cpp).
  const AllReduceTraffic ring = allreduce_traffic(Bytes(61440), 8, CollectiveAlgorithm::ring);
  const CollectiveSettings nccl;
  const AllReduceLatency priced = price_allreduce_latency(ring, k200G, nccl);
  REQUIRE(priced.nccl.has_value());
  CHECK(priced.nccl->chosen.algorithm == CollectiveAlgorithm::ring);
  CHECK(priced.nccl->chosen.protocol == NcclProtocol::ll);
  CHECK_THAT(priced.alpha.value(), WithinRel(76.6e-6, 1e-12));
  // The same block with --algorithm tree: tree/LL, 6.8 + 2 x 3 x 5.0 = 36.8 us.
  const AllReduceTraffic tree = allreduce_traffic(Bytes(61440), 8, CollectiveAlgorithm::tree);
  CHECK_THAT(allreduce_latency(tree, k200G, nccl).value(), WithinRel(36.8e-6, 1e-12));
  // Let the tuner choose (--nccl-algo auto): tree/LL is the cheaper at this size.
  CollectiveSettings unrestricted = nccl;
  unrestricted.nccl_algorithm_from_engine = false;
  CHECK(price_allreduce_latency(ring, k200G, unrestricted).nccl->chosen.algorithm ==
        CollectiveAlgorithm::tree);
  const NcclSetup setup = nccl_setup(ring, k200G, nccl);
  CHECK(setup.ranks == 8);
  CHECK(setup.nodes == 8);
  CHECK(setup.link_rate.bits_per_second() == 200e9);
  CHECK(setup.algorithms == std::vector<CollectiveAlgorithm>{CollectiveAlgorithm::ring});
}

TEST_CASE("small blocks are latency-bound, large ones bandwidth-bound", "[collective]") {
  for (const CollectiveSettings& settings : {with_override(StepLatency{}), CollectiveSettings{}}) {
    CHECK(classify(allreduce_traffic(Bytes(61440), 8, CollectiveAlgorithm::ring), k200G,
                   settings) == CommRegime::latency_bound);
    CHECK(classify(allreduce_traffic(Bytes(50331648), 8, CollectiveAlgorithm::ring), k200G,
                   settings) == CommRegime::bandwidth_bound);
  }
  CHECK(to_string(CommRegime::latency_bound) == "latency-bound");
}
