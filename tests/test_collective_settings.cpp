// The cluster's NCCL settings (tpnet/fabric/collective_settings.hpp): NCCL's
// tuner restricted to the engine's algorithm by default, the user's
// alpha-beta override when given, and a nominal profile pricing with the
// settings it was built with rather than with its link (docs/formulas.md s.5
// and s.20).

#include "catch.hpp"
#include "tpnet/fabric/allreduce_time.hpp"
#include "tpnet/fabric/collective_settings.hpp"
#include "tpnet/fabric/fabric_profile.hpp"

using namespace tpnet;

namespace {

const Link k200G{"200G", BitRate::gigabits_per_second(200), "200G"};

}  // namespace

TEST_CASE("by default NCCL's model prices latency, on the engine's algorithm only",
          "[collective-settings]") {
  const CollectiveSettings settings;
  CHECK_FALSE(settings.latency_override.has_value());
  CHECK(settings.nccl_algorithm_from_engine);
  // An override left half unset keeps NCCL's ring LL constants.
  const StepLatency half;
  CHECK_THAT(half.base.value(), WithinRel(6.6e-6, 1e-12));
  CHECK_THAT(half.per_step.value(), WithinRel(2.7e-6, 1e-12));
}

TEST_CASE("a nominal profile prices with the settings it was built with",
          "[collective-settings][fabric]") {
  // One link, two clusters: NCCL's tuner (ring/LL, 6.6 + 14 x 5.0 = 76.6 us
  // for GLM-5.3's TP8 decode block) and a user's 10 us + 1 us per step.
  CollectiveSettings overridden;
  overridden.latency_override =
      StepLatency{Seconds::microseconds(10.0), Seconds::microseconds(1.0)};
  const FabricProfile nccl = nominal_fabric(k200G, CollectiveSettings{});
  const FabricProfile user = nominal_fabric(k200G, overridden);
  CHECK(user.link.name == nccl.link.name);
  CHECK(user.collective.latency_override.has_value());
  CHECK_THAT(fabric_allreduce(nccl, Bytes(61440), 8, CollectiveAlgorithm::ring).latency.value(),
             WithinRel(76.6e-6, 1e-12));
  CHECK_THAT(fabric_allreduce(user, Bytes(61440), 8, CollectiveAlgorithm::ring).latency.value(),
             WithinRel((10.0 + 14 * 1.0) * 1e-6, 1e-12));
  CHECK(describe(user) == "nominal (user's alpha-beta latency)");
  CHECK(describe(nccl) == "nominal (NCCL tuner model)");
  // A latency override asks for the alpha-beta model even where the node has
  // a measured profile of the link.
  const std::vector<FabricProfile> no_catalog;
  CHECK(default_fabric(no_catalog, k200G, overridden, "dgx-spark").collective.latency_override);
}
