// xPyD through vLLM's scheduler (tpnet/sim/disaggregated_schedule.hpp,
// docs/prediction.md "A disaggregated run"), worked by hand with fixed step
// costs; and each pool's forwards priced at its own TP.

#include <vector>

#include "catch.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/sim/disaggregated_schedule.hpp"

using namespace tpnet;

namespace {

DisaggregationLayout xpyd(int prefill, int decode) {
  DisaggregationLayout layout;
  layout.prefill_instances = prefill;
  layout.decode_instances = decode;
  return layout;
}

/// Prefill steps: 0.5 s + 0.1 ms a token. Decode steps: 50 ms + 1 us per
/// token of context read. Hand-off: 0.1 ms per prompt token.
struct FixedCosts {
  TokenCount most_prefill_tokens_in_decode = 0;
  std::vector<TokenCount> decode_contexts;
  DisaggregatedPricing pricing() {
    return DisaggregatedPricing{
        [](const ScheduledStep& step) { return 0.5 + 1e-4 * static_cast<double>(step.tokens()); },
        [this](const ScheduledStep& step) {
          double context = 0.0;
          for (const StepWork& w : step.work) {
            most_prefill_tokens_in_decode =
                std::max(most_prefill_tokens_in_decode, w.prefill_tokens);
            decode_contexts.push_back(w.context_tokens);
            context += static_cast<double>(w.context_tokens);
          }
          return 0.05 + 1e-6 * context;
        },
        [](const ScheduledRequest& r) { return 1e-4 * static_cast<double>(r.prompt_tokens); }};
  }
};

}  // namespace

TEST_CASE("1P1D, two prompts: one prefill step, hand-offs one after another, decodes only",
          "[disaggregated_schedule][golden]") {
  const std::vector<ScheduledRequest> requests{{0.0, 1000, 3}, {0.0, 3000, 3}};
  FixedCosts costs;
  const DisaggregatedResult r =
      simulate_disaggregated(requests, xpyd(1, 1), SchedulerSettings{}, costs.pricing());
  REQUIRE(r.requests.size() == 2);
  const DisaggregatedRequest& a = r.requests[0];
  const DisaggregatedRequest& b = r.requests[1];
  // Both prompts share one 4,000-token prefill step: 0.5 + 0.4 s.
  CHECK(a.prefill_end_s == Approx(0.9));
  CHECK(b.prefill_end_s == Approx(0.9));
  // The decode instance pulls A's cache (0.1 s), then B's (0.3 s).
  CHECK(a.hand_off_start_s == Approx(0.9));
  CHECK(a.hand_off_end_s == Approx(1.0));
  CHECK(b.hand_off_start_s == Approx(1.0));
  CHECK(b.hand_off_end_s == Approx(1.3));
  // A joins at 1.0: its first step recomputes its last prompt token against
  // 999 cached (0.050999 s), then two decodes at 1,000 and 1,001.
  CHECK(a.first_token_s == Approx(1.050999).epsilon(1e-9));
  CHECK(a.finished_s == Approx(1.050999 + 0.051 + 0.051001).epsilon(1e-9));
  // B joins at 1.3, after A has finished.
  CHECK(b.first_token_s == Approx(1.352999).epsilon(1e-9));
  CHECK(b.finished_s == Approx(1.352999 + 0.053 + 0.053001).epsilon(1e-9));
  CHECK(costs.most_prefill_tokens_in_decode == 0);
  CHECK(costs.decode_contexts == std::vector<TokenCount>{999, 1000, 1001, 2999, 3000, 3001});

  CHECK(r.mean_ttft_s == Approx((1.050999 + 1.352999) / 2.0));
  CHECK(r.mean_hand_off_s == Approx(0.2));
  CHECK(r.hand_off_share_of_ttft == Approx(0.4 / (1.050999 + 1.352999)));
  CHECK(r.decode_tokens_per_s == Approx((2.0 / 0.102001 + 2.0 / 0.106001) / 2.0));
  CHECK(r.last_first_token_s == Approx(1.352999));
  CHECK(r.finished_s == Approx(1.459));
  CHECK(r.prefill.steps == 1);
  CHECK(r.decode.steps == 6);
  CHECK(r.prefill.busy_s == Approx(0.9));
  CHECK(r.decode.busy_s == Approx(0.312));
  CHECK(r.prefill.utilisation == Approx(0.9 / 1.459));
  CHECK(r.decode.utilisation == Approx(0.312 / 1.459));
  CHECK(r.prefill_busier);
}

TEST_CASE("2P1D: the prompts go round robin to the prefill instances", "[disaggregated_schedule]") {
  const std::vector<ScheduledRequest> requests{{0.0, 1000, 1}, {0.0, 3000, 1}, {0.0, 1000, 1}};
  FixedCosts costs;
  const DisaggregatedResult r =
      simulate_disaggregated(requests, xpyd(2, 1), SchedulerSettings{}, costs.pricing());
  CHECK(r.requests[0].prefill_instance == 0);
  CHECK(r.requests[1].prefill_instance == 1);
  CHECK(r.requests[2].prefill_instance == 0);
  // Instance 0 runs the two 1,000-token prompts in one step (0.7 s),
  // instance 1 the 3,000-token one alone (0.8 s).
  CHECK(r.requests[0].prefill_end_s == Approx(0.7));
  CHECK(r.requests[2].prefill_end_s == Approx(0.7));
  CHECK(r.requests[1].prefill_end_s == Approx(0.8));
  // One decode instance pulls in the order the prefills ended: 0, 2, then 1.
  CHECK(r.requests[0].hand_off_end_s == Approx(0.8));
  CHECK(r.requests[2].hand_off_end_s == Approx(0.9));
  CHECK(r.requests[1].hand_off_start_s == Approx(0.9));
  CHECK(r.requests[1].hand_off_end_s == Approx(1.2));
  // One output token: the decode instance's first step is its last.
  for (const DisaggregatedRequest& q : r.requests) CHECK(q.finished_s == q.first_token_s);
  CHECK(r.decode_tokens_per_s == 0.0);
  CHECK(r.prefill.steps == 2);
}

TEST_CASE("two decode instances take the requests in turn, each pulling its own",
          "[disaggregated_schedule]") {
  const std::vector<ScheduledRequest> requests{{0.0, 1000, 2}, {0.5, 1000, 2}};
  FixedCosts costs;
  const DisaggregatedResult r =
      simulate_disaggregated(requests, xpyd(1, 2), SchedulerSettings{}, costs.pricing());
  CHECK(r.requests[0].decode_instance == 0);
  CHECK(r.requests[1].decode_instance == 1);
  // A alone from 0 (0.6 s); B waits for it and runs alone from 0.6 to 1.2.
  CHECK(r.requests[0].prefill_end_s == Approx(0.6));
  CHECK(r.requests[1].prefill_start_s == Approx(0.6));
  CHECK(r.requests[1].prefill_end_s == Approx(1.2));
  CHECK(r.requests[1].hand_off_start_s == Approx(1.2));
  CHECK(r.requests[1].ttft_s() == Approx(1.2 + 0.1 + 0.050999 - 0.5));
}

TEST_CASE("a disaggregated run refuses what cannot run, naming the field",
          "[disaggregated_schedule]") {
  const std::vector<ScheduledRequest> requests{{0.0, 1000, 2}};
  FixedCosts costs;
  CHECK_THROWS_WITH(
      simulate_disaggregated(requests, xpyd(0, 1), SchedulerSettings{}, costs.pricing()),
      Catch::Contains("disaggregation.prefill_instances"));
  CHECK_THROWS_WITH(
      simulate_disaggregated(requests, xpyd(1, 0), SchedulerSettings{}, costs.pricing()),
      Catch::Contains("disaggregation.decode_instances"));
  DisaggregatedPricing negative = costs.pricing();
  negative.hand_off_seconds = [](const ScheduledRequest&) { return -1.0; };
  CHECK_THROWS_WITH(simulate_disaggregated(requests, xpyd(1, 1), SchedulerSettings{}, negative),
                    Catch::Contains("disaggregation.kv_transfer"));
  CHECK_THROWS_WITH(simulate_disaggregated({}, xpyd(1, 1), SchedulerSettings{}, costs.pricing()),
                    Catch::Contains("workload.requests"));
}

TEST_CASE("each pool's forwards are priced at its own TP", "[disaggregated_schedule]") {
  const ModelArch model = builtin_model("qwen3-32b");
  const FabricProfile fabric =
      nominal_fabric(parse_link("200G", InputLocation::for_key("link")), CollectiveSettings{});
  EngineConfig engine;
  engine.tensor_parallel_size = 1;
  StepCostModel cost;
  cost.prefill.per_step = Seconds(0.01);
  cost.prefill.seconds_per_gemm_flop = 1e-14;
  cost.decode.memory_bandwidth = BitRate::gigabytes_per_second(273.0);
  cost.decode.reads = decode_weight_reads(model);
  const StepCostModel tp2 = step_cost_at_tp(cost, model, 2);
  CHECK(tp2.flops_per_token == Approx(gemm_flops_per_token(model, 2)));
  CHECK(tp2.flops_per_token == Approx(gemm_flops_per_token(model, 1) / 2.0).epsilon(0.05));
  CHECK(tp2.decode.tp == 2);
  CHECK(tp2.prefill.seconds_per_gemm_flop == cost.prefill.seconds_per_gemm_flop);

  ScheduledStep prompt;
  prompt.work = {StepWork{0, 4096, 0, 0, true}};
  PoolStepPrice one(model, engine, cost, fabric, 1);
  PoolStepPrice two(model, engine, cost, fabric, 2);
  const StepCost at_one = one(prompt);
  const StepCost at_two = two(prompt);
  CHECK(at_one.communication.value() == 0.0);  // one node: no all-reduce
  CHECK(at_two.communication.value() > 0.0);
  CHECK(at_two.compute.value() < at_one.compute.value());
  CHECK(two.cost().decode.tp == 2);
}
