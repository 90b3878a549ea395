#pragma once
/// Prefill/decode disaggregation (xPyD) run through vLLM's scheduler
/// (docs/prediction.md, "A disaggregated run"; docs/formulas.md s.32): each
/// prefill instance's scheduler runs the prompts it is given with one output
/// token each (vLLM's prefill instance serves the proxy's max_tokens 1); the
/// decode instance then pulls the request's KV cache (NIXL's read), one
/// hand-off at a time into each decode instance, in the order the prefills
/// end; the request joins that instance's scheduler, whose first step for it
/// recomputes the prompt's last token and samples the first token (what the
/// proxy streams: TTFT), and whose every step after is decodes only.
/// Requests go to the instances round robin in arrival order, prefill and
/// decode alike (the proxy's own policy).

#include <functional>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/sim/disaggregation.hpp"
#include "tpnet/sim/step_cost.hpp"
#include "tpnet/sim/step_schedule.hpp"

namespace tpnet {

/// What a disaggregated run's steps and hand-offs cost, from the caller.
struct DisaggregatedPricing {
  StepSeconds prefill_step;  ///< one forward of a prefill instance
  /// One forward of a decode instance: decodes only, each work's context
  /// the request's whole cache (its prompt included).
  StepSeconds decode_step;
  /// One request's KV hand-off, in seconds (at least 0).
  std::function<double(const ScheduledRequest& request)> hand_off_seconds;
};

/// One request's way through the pools, in seconds from the start.
struct DisaggregatedRequest {
  int prefill_instance = 0;
  int decode_instance = 0;
  double arrival_s = 0.0;
  double prefill_start_s = 0.0;   ///< its first prefill step began
  double prefill_end_s = 0.0;     ///< the prefill step that ended its prompt
  double hand_off_start_s = 0.0;  ///< the decode instance began pulling its cache
  double hand_off_end_s = 0.0;    ///< it joins the decode instance's scheduler
  double first_token_s = 0.0;     ///< the decode instance's first step for it ended
  double finished_s = 0.0;        ///< its last output token
  [[nodiscard]] double ttft_s() const { return first_token_s - arrival_s; }
  [[nodiscard]] double hand_off_s() const { return hand_off_end_s - hand_off_start_s; }
};

/// One pool's instances over the run.
struct DisaggregatedPool {
  int instances = 0;
  int steps = 0;        ///< forwards, every instance together
  double busy_s = 0.0;  ///< their seconds, every instance together
  /// busy_s / (instances x the run's span, first arrival to last token).
  double utilisation = 0.0;
};

struct DisaggregatedResult {
  std::vector<DisaggregatedRequest> requests;  ///< in arrival-list order
  DisaggregatedPool prefill;
  DisaggregatedPool decode;
  bool prefill_busier = false;  ///< the prefill pool has the larger utilisation
  double mean_ttft_s = 0.0;
  double mean_hand_off_s = 0.0;
  /// Every request's hand-off over every request's TTFT.
  double hand_off_share_of_ttft = 0.0;
  /// Per request, (output - 1) / (finished - first token), mean over those
  /// with more than one output token; 0 when none has.
  double decode_tokens_per_s = 0.0;
  double last_first_token_s = 0.0;  ///< from the first arrival
  double finished_s = 0.0;          ///< the last token
};

/// Runs `requests` through `layout`'s instances with `settings` in every
/// instance's scheduler. Deterministic. Throws InputError naming
/// `disaggregation.*` for instance counts below 1, `disaggregation.kv_transfer`
/// for a hand-off time below 0 or not finite, and whatever simulate_schedule
/// refuses.
[[nodiscard]] DisaggregatedResult simulate_disaggregated(
    const std::vector<ScheduledRequest>& requests, const DisaggregationLayout& layout,
    const SchedulerSettings& settings, const DisaggregatedPricing& pricing);

/// `cost`, a step cost model at one TP, for instances of `tp` nodes each:
/// a node's GEMM FLOPs per token and its share of the weights read are the
/// new TP's, the rates (fitted or expected per node) stay.
[[nodiscard]] StepCostModel step_cost_at_tp(const StepCostModel& cost, const ModelArch& model,
                                            int tp);

/// One pool's forwards priced as predict prices a step (step_features,
/// step_communication, price_step) at the pool's TP on `fabric`. Keeps
/// references to `model` and `fabric`, which must outlive it.
class PoolStepPrice {
 public:
  PoolStepPrice(const ModelArch& model, const EngineConfig& engine, const StepCostModel& cost,
                const FabricProfile& fabric, int tp);
  PoolStepPrice(const PoolStepPrice&) = delete;
  PoolStepPrice& operator=(const PoolStepPrice&) = delete;
  PoolStepPrice(PoolStepPrice&&) = delete;
  PoolStepPrice& operator=(PoolStepPrice&&) = delete;
  ~PoolStepPrice() = default;

  [[nodiscard]] StepCost operator()(const ScheduledStep& step);
  [[nodiscard]] const StepCostModel& cost() const { return cost_; }
  /// What one node sent in every step priced so far.
  [[nodiscard]] Bytes sent_per_node() const { return sent_; }

 private:
  EngineConfig engine_;  ///< the request's, at the pool's TP
  StepCostModel cost_;
  StepFeaturesCache features_;
  StepCommunicationCache communication_;
  Bytes sent_;
};

}  // namespace tpnet
