// One data-parallel rank's forward of an expert-parallel layout
// (tpnet/sim/expert_parallel_step.hpp, docs/formulas.md s.31.2): the decode
// reads over the EP group, the MoE layers' all-to-alls instead of their
// all-reduces, the busiest rank's expert GEMMs; plain TP priced as before.

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/sim/decode_floor.hpp"
#include "tpnet/sim/expert_alltoall_time.hpp"
#include "tpnet/sim/expert_parallel_step.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"

using namespace tpnet;
using namespace tpnet::test;

namespace {

FabricProfile nominal_200g() {
  return nominal_fabric(parse_link("200G", InputLocation::for_key("link")), CollectiveSettings{});
}

EngineConfig engine_at(int tp) {
  EngineConfig e;
  e.tensor_parallel_size = tp;
  return e;
}

/// A 4,096-token prompt chunk that completes its prompt.
ScheduledStep prompt_step() {
  ScheduledStep s;
  s.work = {StepWork{0, 4096, 0, 0, true}};
  return s;
}

/// Eight requests decoding one token each at 2,000 tokens of context.
ScheduledStep decode_step() {
  ScheduledStep s;
  for (int i = 0; i < 8; ++i) s.work.push_back(StepWork{i, 0, 2000, 1, false});
  return s;
}

StepCostModel cost_for(const ModelArch& model, int tp) {
  StepCostModel cost;
  cost.prefill = PrefillComputeModel{Seconds(0.01), 1e-14, 2e-14, std::nullopt};
  cost.decode.reads = decode_weight_reads(model);
  cost.decode.tp = tp;
  cost.decode.memory_bandwidth = BitRate::gigabytes_per_second(273);
  cost.flops_per_token = gemm_flops_per_token(model, tp);
  cost.expert_flops_per_token = expert_gemm_flops_per_token(model, tp);
  return cost;
}

}  // namespace

TEST_CASE("an EP rank reads its dense part over tp and the experts it holds that the group touches",
          "[golden][expert-parallel]") {
  // 10 GB active, 8 GB of it two routed experts (k = 2) of E = 8: 4 GB an expert.
  DecodeWeightReads reads{Bytes(10e9), Bytes(8e9), 8, 2};
  // TP1 x DP4, one token a rank: 2 GB dense; 2 experts held, each touched by
  // 4 tokens with probability 1 - 0.75^4 = 0.68359375: 2 x 4 GB x that.
  CHECK_THAT(expert_parallel_weight_bytes(reads, 1, 4, 1).count(), WithinRel(7.46875e9, 1e-12));
  // TP2 x DP2, two tokens a rank: the same 4 tokens over the group, dense over 2.
  CHECK_THAT(expert_parallel_weight_bytes(reads, 2, 2, 2).count(), WithinRel(6.46875e9, 1e-12));
  // A large batch touches every expert a rank holds: 2 GB + 2 x 4 GB.
  CHECK_THAT(expert_parallel_weight_bytes(reads, 1, 4, 10000).count(), WithinRel(10e9, 1e-9));
  DecodeComputeModel decode;
  decode.reads = reads;
  decode.tp = 1;
  decode.data_parallel = 4;
  decode.memory_bandwidth = BitRate::gigabytes_per_second(100);
  CHECK_THAT(decode.weight_read(1).value(), WithinRel(0.0746875, 1e-12));
  decode.data_parallel = 1;  // plain TP: every expert the one token touches, k of them
  CHECK_THAT(decode.weight_read(1).value(), WithinRel(0.1, 1e-12));
}

TEST_CASE("plain TP through the pricer is the step caches and price_step, bit for bit",
          "[expert-parallel]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  const EngineConfig engine = engine_at(4);
  const FabricProfile fabric = nominal_200g();
  const StepCostModel cost = cost_for(v3, 4);
  StepPricer pricer(v3, engine, fabric, cost);
  for (const ScheduledStep& step : {prompt_step(), decode_step()}) {
    const PricedForward p = pricer(step, true);
    StepFeaturesCache features(v3, 4, cost.flops_per_token, cost.expert_flops_per_token);
    const StepFeatures f = features(step);
    const StepCommunication c = step_communication(v3, engine, fabric, step, true);
    const StepCost expected = price_step(cost, f, c);
    CHECK(p.cost.total.value() == expected.total.value());
    CHECK(p.communication.collectives == c.collectives);
    CHECK(p.communication.each.size() == c.each.size());
    CHECK(p.alltoall.value() == 0.0);
  }
}

TEST_CASE("DeepSeek-V3 on TP2 x DP2: 65 all-reduces, 58 MoE layers of three collectives, a gather",
          "[golden][expert-parallel]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  const EngineConfig engine = engine_at(2);
  const FabricProfile fabric = nominal_200g();
  ExpertParallel ep;
  ep.data_parallel = 2;
  StepPricer pricer(v3, engine, fabric, cost_for(v3, 2), ep);
  const ScheduledStep step = prompt_step();
  const PricedForward p = pricer(step, true);
  // 61 layers of attention and FFN (2 x 61 + 1 embedding = 123); the 58 MoE
  // layers' all-reduces go to the all-to-all: 65 remain.
  CHECK(allreduces_per_forward(v3, engine) == 123);
  CHECK(tally_layers(v3).moe == 58);
  CHECK(p.communication.collectives == 65 + 58 * 3 + 1);
  CHECK(p.communication.each.size() == 65 + 58 * 3 + 1);
  const ExpertAllToAll a = expert_alltoall(v3, engine, ParallelLayout{2, 1, 4}, {}, 4096.0);
  const ExpertAllToAllTime t = expert_alltoall_time(fabric, a, 2, 58);
  CHECK(p.alltoall.value() == t.per_forward.value());
  const Bytes block = activation_block(v3, engine, 4096);
  const Seconds allreduce = fabric_allreduce(fabric, block, 2, engine.algorithm).time;
  const Seconds gather = fabric_allgather(fabric, logits_gather_bytes(v3, engine, 2, 1), 2);
  CHECK_THAT(p.communication.time.value(),
             WithinRel((allreduce * 65.0 + t.per_forward + gather).value(), 1e-12));
  CHECK(p.alltoall.value() < p.communication.time.value());
}

TEST_CASE("TP1 x DP4 sends only the all-to-alls, and its expert GEMMs wait for the busiest rank",
          "[golden][expert-parallel]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  const EngineConfig engine = engine_at(1);
  const FabricProfile fabric = nominal_200g();
  ExpertParallel ep;
  ep.data_parallel = 4;
  ep.alltoall.routing_imbalance = 1.25;
  const StepCostModel cost = cost_for(v3, 1);
  StepPricer pricer(v3, engine, fabric, cost, ep);
  const PricedForward p = pricer(prompt_step());
  // 58 layers x 8 experts x 3 GEMMs x 2 x 7168 x 2048 = 40.87 GFLOP a token.
  const double expert = expert_gemm_flops_per_token(v3, 1);
  CHECK_THAT(expert, WithinRel(58.0 * 8 * 3 * 2 * 7168 * 2048, 1e-9));
  CHECK_THAT(p.features.expert_gemm_flops, WithinRel(1.25 * 4096 * expert, 1e-12));
  CHECK_THAT(p.features.gemm_flops - p.features.expert_gemm_flops,
             WithinRel(4096 * (gemm_flops_per_token(v3, 1) - expert), 1e-12));
  const ExpertAllToAll a = expert_alltoall(v3, engine, ParallelLayout{1, 1, 4}, {}, 4096.0);
  CHECK(p.communication.time.value() == expert_alltoall_time(fabric, a, 1, 58).per_forward.value());
  CHECK(p.communication.collectives == 58 * 2);
  CHECK(p.communication.sent_per_node.count() ==
        ((a.dispatch_sent + a.combine_sent) * 58.0).count());
  // A decode step: the reads over the EP group at the rank's 8 tokens.
  const PricedForward d = pricer(decode_step());
  CHECK(pricer.cost().decode.data_parallel == 4);
  CHECK_THAT(pricer.cost().decode.weight_read(8).value(),
             WithinRel(expert_parallel_weight_bytes(cost.decode.reads, 1, 4, 8).count() /
                           cost.decode.memory_bandwidth.bytes_per_second(),
                       1e-12));
  CHECK(d.cost.compute.value() > 0.0);
}

TEST_CASE("an EP step is refused on a dense model and on a ring that does not join every pair",
          "[expert-parallel]") {
  const FabricProfile fabric = nominal_200g();
  ExpertParallel ep;
  ep.data_parallel = 4;
  const ModelArch dense = tiny_dense();
  const EngineConfig engine = engine_at(1);
  CHECK_THROWS_WITH(StepPricer(dense, engine, fabric, cost_for(dense, 1), ep),
                    Catch::Contains("MoE model"));
  const ModelArch v3 = builtin_model("deepseek-v3");
  FabricProfile ring = fabric;
  ring.topology = FabricTopology::ring;
  CHECK_THROWS_WITH(StepPricer(v3, engine, ring, cost_for(v3, 1), ep),
                    Catch::Contains("every pair"));
  ep.data_parallel = 3;
  CHECK_NOTHROW(StepPricer(v3, engine, ring, cost_for(v3, 1), ep));
}
