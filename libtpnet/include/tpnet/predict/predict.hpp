#pragma once
/// What users will see at each link: vLLM's scheduler step by step, each
/// step priced by the compute model and the link's fabric profile; per
/// request TTFT, the last first token, decode speed and the network share,
/// and between the first two links the extra time beside the bound
/// (docs/formulas.md s.25, docs/prediction.md).

#include <optional>
#include <string>
#include <vector>

#include "tpnet/analysis/penalty.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/measured/counters.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/predict/compute_fit.hpp"
#include "tpnet/predict/step_cost.hpp"
#include "tpnet/predict/step_schedule.hpp"

namespace tpnet {

/// One workload: requests arriving (a prompt scenario: all at t = 0).
struct PredictScenario {
  std::string name;  ///< "4x16k", or the trace file
  std::vector<ScheduledRequest> requests;
};

/// Where prefill compute comes from when no baseline is fitted.
struct GivenCompute {
  PrefillComputeModel model;
  std::string source;  ///< "calibration FILE (GEMM timings)", "given (--step-overhead ...)"
  std::vector<std::string> warnings;
};

struct PredictRequest {
  ModelArch model;
  EngineConfig engine;
  /// The links to predict at, each with its fabric profile (same order).
  std::vector<Link> links;
  std::vector<FabricProfile> fabrics;
  std::vector<PredictScenario> scenarios;
  /// Measured single-request TTFTs at links[0] to fit prefill compute to.
  std::vector<PrefillScenario> baseline;
  std::string baseline_origin;
  std::optional<GivenCompute> compute;                 ///< used when `baseline` is empty
  std::vector<DecodeMeasurement> decode_measurements;  ///< at links[0]
  BitRate memory_bandwidth;                            ///< the node's
  /// Output tokens a decode forward yields per request; unset: 1 + drafts
  /// (every draft accepted), with a warning when there are drafts.
  std::optional<double> accepted_tokens;
  double overlap = 0.0;     ///< share of communication hidden under compute
  bool keep_steps = false;  ///< for timelines and traffic
};

/// One step as priced.
struct PricedStep {
  ScheduledStep step;
  Seconds compute;
  Seconds communication;
  Bytes sent_per_node;
  std::vector<std::pair<Bytes, Seconds>> collectives;  ///< bytes and time of each
};

struct PredictLink {
  Link link;
  FabricProfile fabric;
  ScheduleResult schedule;
  std::vector<Seconds> first_token;  ///< TTFT per request, arrival order
  Seconds last_first_token;          ///< from the first arrival to the last first token
  Seconds mean_ttft;
  double decode_tokens_per_s = 0.0;  ///< per request: (output - 1) / (finish - first token), mean
  double network_share = 0.0;        ///< communication / time, until the last first token
  Seconds communication;             ///< in the steps until the last first token
  Bytes sent_per_node;               ///< every step's, whole run
  Seconds finished;                  ///< end of the last step
  int most_prefills_in_a_step = 0;   ///< the most prompts one step carried
  std::vector<PricedStep> steps;     ///< when kept
};

struct PredictScenarioResult {
  std::string name;
  int requests = 0;
  TokenCount prompt_tokens_each = 0;  ///< 0 when the requests differ
  TokenCount output_tokens_each = 0;  ///< 0 when the requests differ
  TokenCount prompt_tokens = 0;
  std::vector<PredictLink> links;
  // Between links[0] and links[1] (when there are two):
  std::optional<Seconds> extra_last_first_token;
  std::optional<Seconds> extra_mean_ttft;
  std::optional<double> increase_last_first_token;
  std::optional<double> increase_mean_ttft;
  std::optional<Seconds> bound_extra;  ///< the penalty bound for the same prompt tokens
  /// Why: the most requests that shared a prefill step, and the reason lines.
  int most_prefills_in_a_step = 0;
  std::vector<std::string> why;
};

struct PredictReport {
  PrefillFit fit;  ///< or the given/calibrated compute, rows empty
  DecodeFit decode;
  DecodeComputeModel decode_model;
  int decode_model_drafts = 0;  ///< draft tokens a decode forward carries per request
  double accepted_tokens = 1.0;
  StepCostModel cost;
  std::vector<PredictScenarioResult> scenarios;
  std::vector<std::string> warnings;
  std::vector<std::string> notes;
};

/// One scenario per baseline row, all its requests arriving at once, each
/// with the row's output tokens or `output` where the row states none.
[[nodiscard]] std::vector<PredictScenario> scenarios_from_baseline(
    const std::vector<PrefillScenario>& baseline, TokenCount output);

/// Throws InputError naming the field: no links, fabrics not one per link,
/// no scenario, no compute (`workload.baseline`), an overlap outside [0, 1)
/// (`predict.overlap`), and whatever the fit and the scheduler refuse.
[[nodiscard]] PredictReport run_predict(const PredictRequest& request);

/// Output tokens a decode forward yields per request: `given` (1 to 1 +
/// drafts; InputError naming `engine.accepted_tokens_per_decode` otherwise),
/// else 1 + drafts (every draft accepted).
[[nodiscard]] double accepted_tokens_per_decode(const EngineConfig& engine,
                                                std::optional<double> given);

/// The scheduler settings of an engine (its vLLM flags) with an acceptance.
[[nodiscard]] SchedulerSettings scheduler_settings(const EngineConfig& engine,
                                                   double accepted_tokens);

/// The most scheduler steps a column beside the bounds simulates
/// (prefill_communication over every penalty scenario or compare row): about
/// 2 us a step, so a few seconds at most.
inline constexpr double kMaxSimulatedSteps = 2e6;
/// The most steps tpnet predict simulates, every link together (each step
/// also prices its compute): a day of traffic at a few requests a second.
inline constexpr double kMaxPredictedSteps = 2e7;

/// About how many steps simulating `prompt` takes: ceil(prompt tokens /
/// prefill_step_budget) for the prefill, plus with `with_decode` batches of
/// max_num_seqs requests x ceil(outputs / accepted) decode steps.
[[nodiscard]] double estimated_steps(const EngineConfig& engine, const PromptSpec& prompt,
                                     TokenCount output_tokens, double accepted_tokens,
                                     bool with_decode);

/// Throws InputError naming `field` when `steps` exceed `limit`, saying what
/// to give instead.
void require_simulated_steps(double steps, const char* field, double limit = kMaxSimulatedSteps);

/// A prompt scenario's communication at two links, step by step through the
/// scheduler until its last first token. Compute is the same at both links
/// (the same steps carry the same tokens), so `extra` is what the second
/// link adds to the last first token: predict's extra_last_first_token
/// without overlap, and penalty's predicted column.
struct PrefillCommunication {
  Seconds from;
  Seconds to;
  Seconds extra;  ///< to - from
  int steps = 0;  ///< steps until the last first token
  /// The achieved-rate bound of `extra` (s.25): every all-reduce's sent bytes
  /// at the largest per-byte gap of the two profiles (`gap`), plus what `to`
  /// adds in fixed cost; never below `extra`.
  Seconds bound;
  PerByteGap gap;
};

/// All `prompt.requests` arrive at once with `output_tokens` each; decodes
/// of requests that finished their prompts share the steps (1 + drafts
/// tokens, `accepted_tokens` yielded each).
[[nodiscard]] PrefillCommunication prefill_communication(
    const ModelArch& model, const EngineConfig& engine, const FabricProfile& from,
    const FabricProfile& to, const PromptSpec& prompt, TokenCount output_tokens,
    double accepted_tokens);

/// Predicted RDMA counter samples of one node every `interval` over a priced
/// run (kept steps): each step's collectives as bursts at their priced rate,
/// spread between equal slices of its compute, split evenly over the
/// profile's RDMA devices (one for nominal); transmit and receive alike (a
/// ring sends what it receives). Counters in the kernel's 4-byte units, as
/// `tpnet traffic --samples` reads them. Throws InputError naming
/// `predict.traffic` past 10^7 samples.
[[nodiscard]] CounterSeries predicted_counters(const PredictLink& run, Seconds interval,
                                               double overlap);

}  // namespace tpnet
