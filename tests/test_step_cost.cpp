// What one scheduled forward pass costs (tpnet/sim/step_cost.hpp,
// docs/formulas.md s.23): its compute by the step's tokens and contexts,
// its collectives on a fabric, and the two together after overlap; the
// caches a run uses give the same numbers as the plain functions.

#include <vector>

#include "catch.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/sim/step_cost.hpp"

using namespace tpnet;

namespace {

EngineConfig tp8() {
  EngineConfig e;
  e.tensor_parallel_size = 8;
  return e;
}

/// One decode of 5 tokens (1 + 4 drafts) at 1,000 tokens of context.
ScheduledStep decode_step() {
  ScheduledStep s;
  s.work = {StepWork{0, 0, 1000, 5, false}};
  return s;
}

/// The decode above beside a 2,048-token prompt chunk that completes a prompt.
ScheduledStep mixed_step() {
  ScheduledStep s = decode_step();
  s.work.push_back(StepWork{1, 2048, 2048, 0, true});
  return s;
}

}  // namespace

TEST_CASE("a step's compute: the prefill coefficients, or the decode weight read", "[predict]") {
  StepCostModel cost;
  cost.prefill = PrefillComputeModel{Seconds(0.1), 1e-12, 2e-12, std::nullopt};
  cost.decode.reads.active = Bytes(1e9);
  cost.decode.tp = 2;
  cost.decode.memory_bandwidth = BitRate::gigabytes_per_second(100);
  cost.decode.efficiency = 0.5;
  cost.overlap = 0.2;
  // 0.1 s + 1e9 FLOPs x 1e-12 + 1e8 x 2e-12 = 0.1 + 0.001 + 0.0002 s.
  const StepFeatures prefill{1e9, 0.0, 1e8, true, 4096, Bytes(0.0)};
  CHECK_THAT(compute_seconds(cost, prefill).value(), WithinRel(0.1012, 1e-12));
  // Decodes only: half of 1 GB over 100 GB/s is 5 ms, at half the bandwidth 10 ms.
  const StepFeatures decode{1e9, 0.0, 1e8, false, 5, Bytes(0.0)};
  CHECK(cost.decode.weight_read(5).value() == 0.005);
  CHECK_THAT(compute_seconds(cost, decode).value(), WithinRel(0.010, 1e-12));
  // 50 ms of collectives, a fifth hidden under compute: 40 ms added.
  StepCommunication comm;
  comm.time = Seconds(0.05);
  const StepCost s = price_step(cost, prefill, comm);
  CHECK_THAT(s.communication.value(), WithinRel(0.04, 1e-12));
  CHECK_THAT(s.total.value(), WithinRel(0.1012 + 0.04, 1e-12));
}

TEST_CASE("a step's features: GEMMs over every token, mixing only when a prompt is in it",
          "[predict]") {
  const ModelArch glm = builtin_model("glm-5.3");
  const double per_token = gemm_flops_per_token(glm, 8);
  REQUIRE(per_token > 0.0);
  const StepFeatures decode = step_features(glm, 8, per_token, decode_step());
  CHECK(decode.tokens == 5);
  CHECK_FALSE(decode.has_prefill);
  CHECK(decode.gemm_flops == per_token * 5);
  CHECK(decode.mixer_flops == 0.0);  // a decode-only step costs its weight reads
  const StepFeatures mixed = step_features(glm, 8, per_token, mixed_step());
  CHECK(mixed.tokens == 2053);
  CHECK(mixed.has_prefill);
  CHECK(mixed.gemm_flops == per_token * 2053);
  CHECK(mixed.mixer_flops > 0.0);
  // A run's cache answers every step as the plain function does, bit for bit.
  StepFeaturesCache cache(glm, 8, per_token);
  for (const ScheduledStep& step : {decode_step(), mixed_step(), mixed_step(), decode_step()}) {
    const StepFeatures cached = cache(step);
    const StepFeatures plain = step_features(glm, 8, per_token, step);
    CHECK(cached.gemm_flops == plain.gemm_flops);
    CHECK(cached.mixer_flops == plain.mixer_flops);
    CHECK(cached.has_prefill == plain.has_prefill);
  }
}

TEST_CASE("a decode step sends its all-reduces and the logits gather: 18.0 MB for GLM-5.3 TP8",
          "[predict][golden]") {
  const ModelArch glm = builtin_model("glm-5.3");
  const FabricProfile fabric =
      nominal_fabric(parse_link("200G", InputLocation::for_key("link")), CollectiveSettings{});
  const StepCommunication c = step_communication(glm, tp8(), fabric, decode_step(), true);
  // formulas.md s.6: 157 x 1.75 x 61,440 B + 5 x 129,280 x 2 x 7/8 = 18,011,840 B.
  CHECK(c.collectives == 158);
  CHECK(c.sent_per_node.count() == 18011840.0);
  REQUIRE(c.each.size() == 158);
  CHECK(c.each.front().first.count() == 107520.0);
  CHECK(c.each.back().first.count() == 1131200.0);
  Seconds sum(0.0);
  for (const auto& [bytes, time] : c.each) sum += time;
  CHECK_THAT(c.time.value(), WithinRel(sum.value(), 1e-12));
  // The cache a run uses gives the same, step after step.
  const EngineConfig engine = tp8();  // the cache keeps references: no temporaries
  StepCommunicationCache cache(glm, engine, fabric);
  for (const ScheduledStep& step : {decode_step(), mixed_step(), decode_step()}) {
    const StepCommunication cached = cache(step);
    const StepCommunication plain = step_communication(glm, engine, fabric, step);
    CHECK(cached.time == plain.time);
    CHECK(cached.sent_per_node == plain.sent_per_node);
    CHECK(cached.collectives == plain.collectives);
  }
  // One rank exchanges nothing.
  EngineConfig one = tp8();
  one.tensor_parallel_size = 1;
  const StepCommunication none = step_communication(glm, one, fabric, decode_step());
  CHECK(none.collectives == 0);
  CHECK(none.sent_per_node.count() == 0.0);
}
