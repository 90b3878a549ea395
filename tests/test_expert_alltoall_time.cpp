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

namespace {

// A made-up fit: 25 us a round, 160 Gb/s (20 GB/s), 4 ranks, 1 kB to 8 MB.
FabricProfile with_measured_alltoall(int ranks) {
  FabricProfile p = nominal_at("200G");
  MeasuredAllToAll m;
  m.origin = "cal.yaml";
  m.source = "alltoall.log";
  m.link = "200G";
  m.ranks = ranks;
  m.alpha = Seconds::microseconds(25.0);
  m.rate = BitRate::gigabits_per_second(160.0);
  m.min_size = Bytes::kilobytes(1.0);
  m.max_size = Bytes::megabytes(8.0);
  p.alltoall = m;
  return p;
}

ExpertAllToAll four_ranks(AllToAllBackend backend) {
  ExpertAllToAll a;
  a.backend = backend;
  a.ranks = 4;
  a.dispatch_sent = Bytes::megabytes(3.0);
  a.combine_sent = Bytes::megabytes(6.0);
  a.imbalance = 1.25;
  a.tp_allgather_sent = Bytes::megabytes(1.0);
  return a;
}

}  // namespace

TEST_CASE("a measured all-to-all prices DeepEP's phases: one round of the busiest rank's bytes",
          "[expert-alltoall][golden]") {
  const FabricProfile fabric = with_measured_alltoall(4);
  const ExpertAllToAll a = four_ranks(AllToAllBackend::deepep_low_latency);
  const ExpertAllToAllTime t = expert_alltoall_time(fabric, a, 2, 10);
  CHECK(t.measured);
  // dispatch: 3 MB x 1.25 = 3.75 MB at 20 GB/s = 187.5 us, + 25 us
  CHECK(t.dispatch.value() == Approx(212.5e-6));
  CHECK(t.dispatch_size.count() == Approx(5e6));  // 3.75 MB x 4/3
  // combine: 7.5 MB = 375 us + 25 us; a 10 MB round, beyond the 8 MB measured
  CHECK(t.combine.value() == Approx(400e-6));
  CHECK(t.combine_size.count() == Approx(10e6));
  CHECK(t.extrapolated);
  // the TP all-gather stays on the profile's all-reduce model
  CHECK(t.tp_allgather.value() == fabric_allgather(fabric, a.tp_allgather_sent, 2).value());
  CHECK(t.per_forward.value() == Approx(10 * (612.5e-6 + t.tp_allgather.value())));
}

TEST_CASE(
    "a measured all-to-all prices allgather_reducescatter's phases by the bytes each rank "
    "sends",
    "[expert-alltoall][golden]") {
  const ExpertAllToAll a = four_ranks(AllToAllBackend::allgather_reducescatter);
  const ExpertAllToAllTime t = expert_alltoall_time(with_measured_alltoall(4), a, 1, 10);
  // every row reaches every rank, so routing skew does not count: 3 MB is
  // 150 us + 25 us, 6 MB 300 us + 25 us, a 4 MB and an 8 MB round
  CHECK(t.dispatch.value() == Approx(175e-6));
  CHECK(t.combine.value() == Approx(325e-6));
  CHECK(t.dispatch_size.count() == Approx(4e6));
  CHECK(t.combine_size.count() == Approx(8e6));
  CHECK_FALSE(t.extrapolated);
  CHECK(t.per_forward.value() == Approx(5e-3));
}

TEST_CASE("without a measured all-to-all the all-reduce model prices every phase",
          "[expert-alltoall]") {
  const FabricProfile fabric = nominal_at("200G");
  const ExpertAllToAll a = four_ranks(AllToAllBackend::allgather_reducescatter);
  const ExpertAllToAllTime t = expert_alltoall_time(fabric, a, 1, 10);
  CHECK_FALSE(t.measured);
  CHECK_FALSE(t.extrapolated);
  CHECK(t.dispatch.value() == fabric_allgather(fabric, a.dispatch_sent, 4).value());
  CHECK(t.dispatch.value() != Approx(175e-6));
}

TEST_CASE("the pricing notes say what priced the all-to-all and where it is stretched",
          "[expert-alltoall]") {
  const ExpertAllToAll few = four_ranks(AllToAllBackend::allgather_reducescatter);
  ExpertAllToAll many = few;
  many.combine_sent = Bytes::megabytes(9.0);  // a 12 MB round
  const auto measured = expert_alltoall_pricing_notes(with_measured_alltoall(4), few, few);
  REQUIRE(measured.size() == 1);
  CHECK(measured[0] ==
        "all-to-all measured at 4 ranks from cal.yaml (25 us a round, 160 Gb/s): each dispatch "
        "and combine one round of the busiest rank's bytes (docs/formulas.md s.31.1)");
  const auto stretched = expert_alltoall_pricing_notes(with_measured_alltoall(8), few, many);
  REQUIRE(stretched.size() == 3);
  CHECK(stretched[1] ==
        "the all-to-all was measured at 8 ranks, the EP group has 4: its fixed time and rate are "
        "taken as they are at 4 ranks");
  CHECK(stretched[2] ==
        "extrapolated: the all-to-all rounds span 4 MB to 12 MB (nccl-tests' size), the sweep "
        "measured 1 kB to 8 MB");
  const auto reduce = expert_alltoall_pricing_notes(nominal_at("200G"), few, few);
  REQUIRE(reduce.size() == 1);
  CHECK(reduce[0].rfind("all-to-all priced on the all-reduce profile nominal", 0) == 0);
}
