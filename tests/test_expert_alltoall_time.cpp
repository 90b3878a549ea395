// An MoE layer's dispatch and combine priced on a fabric profile
// (tpnet/sim/expert_alltoall_time.hpp, docs/formulas.md s.31).

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/sim/expert_alltoall_time.hpp"

using namespace tpnet;
using namespace tpnet::test;

namespace {

FabricProfile nominal_at(const char* link) {
  return nominal_fabric(parse_link(link, InputLocation::for_key("link")), CollectiveSettings{});
}

}  // namespace

TEST_CASE("allgather_reducescatter phases are ring all-gathers of the node's rows",
          "[expert-alltoall]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  const FabricProfile fabric = nominal_at("200G");
  const ExpertAllToAll a = expert_alltoall(v3, EngineConfig{}, ParallelLayout{1, 1, 8}, {}, 100.0);
  const int moe_layers = tally_layers(v3).moe;
  const ExpertAllToAllTime t = expert_alltoall_time(fabric, a, 1, moe_layers);
  CHECK(t.dispatch.value() == fabric_allgather(fabric, a.dispatch_sent, 8).value());
  CHECK(t.combine.value() == fabric_allgather(fabric, a.combine_sent, 8).value());
  CHECK(t.tp_allgather.value() == 0.0);
  CHECK(t.moe_layers == 58);
  CHECK(t.per_forward.value() == Approx(58 * (t.dispatch + t.combine).value()));
  // the bytes alone at 200 Gb/s bound each phase from below
  CHECK(t.dispatch.value() > a.dispatch_sent.count() * 8 / 200e9);
}

TEST_CASE("DeepEP low latency phases are one round carrying the busiest rank's bytes",
          "[expert-alltoall]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  const FabricProfile fabric = nominal_at("200G");
  EngineConfig engine;
  engine.all2all_backend = AllToAllBackend::deepep_low_latency;
  ExpertAllToAllSettings deepep;
  deepep.routing_imbalance = 1.25;
  const ExpertAllToAll a = expert_alltoall(v3, engine, ParallelLayout{2, 1, 8}, deepep, 64.0);
  const ExpertAllToAllTime t = expert_alltoall_time(fabric, a, 2, 58);
  CHECK(t.dispatch.value() == fabric_allgather(fabric, a.dispatch_sent * 1.25, 2).value());
  CHECK(t.combine.value() == fabric_allgather(fabric, a.combine_sent * 1.25, 2).value());
  CHECK(t.tp_allgather.value() == fabric_allgather(fabric, a.tp_allgather_sent, 2).value());
  CHECK(t.per_layer.value() == Approx((t.dispatch + t.combine + t.tp_allgather).value()));
  // the slower link costs more at the same bytes
  const ExpertAllToAllTime slow = expert_alltoall_time(nominal_at("100G"), a, 2, 58);
  CHECK(slow.per_forward.value() > t.per_forward.value());
}

TEST_CASE("an all-to-all is refused on cables that do not join every pair of nodes",
          "[expert-alltoall]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  FabricProfile ring = nominal_at("200G");
  ring.topology = FabricTopology::ring;
  const ExpertAllToAll four = expert_alltoall(v3, EngineConfig{}, ParallelLayout{1, 1, 4}, {}, 8.0);
  const ExpertAllToAll three =
      expert_alltoall(v3, EngineConfig{}, ParallelLayout{1, 1, 3}, {}, 8.0);
  CHECK_THROWS_WITH(expert_alltoall_time(ring, four, 1, 58), Catch::Contains("every pair"));
  CHECK_NOTHROW(expert_alltoall_time(ring, three, 1, 58));
  FabricProfile cable = nominal_at("200G");
  cable.topology = FabricTopology::direct;
  CHECK_THROWS_WITH(expert_alltoall_time(cable, three, 1, 58), Catch::Contains("switch profile"));
}
