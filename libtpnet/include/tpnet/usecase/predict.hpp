#pragma once
/// What users will see at each link: vLLM's scheduler step by step, each
/// step priced by the compute model and the link's fabric profile; per
/// request TTFT, the last first token, decode speed and the network share,
/// and between the first two links the extra time beside the bound
/// (docs/formulas.md s.25, docs/prediction.md).

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tpnet/fabric/expected_rates.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/fabric/profiled_link.hpp"
#include "tpnet/measured/counters.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/sim/compute_fit.hpp"
#include "tpnet/sim/disaggregated_schedule.hpp"
#include "tpnet/sim/engine_schedule.hpp"
#include "tpnet/sim/expert_parallel_step.hpp"
#include "tpnet/sim/kv_transfer_time.hpp"
#include "tpnet/sim/step_cost.hpp"
#include "tpnet/sim/step_schedule.hpp"
#include "tpnet/usecase/document.hpp"
#include "tpnet/usecase/memory.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

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

struct PricedStepEvent;

struct PredictRequest {
  ModelArch model;
  EngineConfig engine;
  /// The links to predict at, each with the fabric profile (required) that
  /// prices its collectives.
  std::vector<ProfiledLink> links;
  std::vector<PredictScenario> scenarios;
  /// Measured single-request TTFTs at links[0] to fit prefill compute to.
  std::vector<PrefillScenario> baseline;
  std::string baseline_origin;
  std::optional<GivenCompute> compute;                 ///< used when `baseline` is empty
  std::vector<DecodeMeasurement> decode_measurements;  ///< at links[0]
  BitRate memory_bandwidth;                            ///< the node's
  /// What public runs achieved on the node: prices what nothing measured
  /// prices (prefill without a baseline or given compute, decode without a
  /// measured ITL), with the range of their spread.
  std::optional<ExpectedRates> expected;
  /// The layout's memory on its node: a layout that does not fit is said
  /// first; CUDA graphs off (cuda_graphs 0) and the KV cache dtype price decode.
  std::optional<MemoryRequest> memory;
  /// Output tokens a decode forward yields per request; unset: 1 + drafts
  /// (every draft accepted), with a warning when there are drafts.
  std::optional<double> accepted_tokens;
  double overlap = 0.0;  ///< share of communication hidden under compute
  /// vLLM's data_parallel_size: DP ranks of engine.tensor_parallel_size
  /// nodes each, the requests spread over them in arrival order, round robin
  /// (docs/prediction.md s.7). Above 1 it needs `enable_expert_parallel`.
  int data_parallel_size = 1;
  /// vLLM's enable_expert_parallel: the routed experts spread over every
  /// rank (tp x dp), each MoE layer's tokens sent to them by all-to-all.
  bool enable_expert_parallel = false;
  /// The all-to-all's settings beside the engine's backend.
  ExpertAllToAllSettings alltoall;
  /// Keep every priced step of the first scenario at the first link (what
  /// --traffic samples); the other runs keep none.
  bool keep_steps = false;
  /// Each link keeps the spans of its first `spans_of_requests` requests (a
  /// chart's rows): bounded whatever the run's length.
  std::size_t spans_of_requests = 0;
  /// Called with every priced step of every scenario and link, in order, as
  /// it is priced (a timeline written as the run goes, so nothing is kept).
  /// A run with a sink is held to kMaxTimelineRows request-steps over all
  /// its links (InputError naming `predict.timeline`).
  std::function<void(const PricedStepEvent&)> step_sink;
  /// What the caller chose for the user (a default it filled in), said
  /// after the report's own notes.
  std::vector<std::string> notes;
  /// Prefill and decode on separate instances (xPyD): each scenario at each
  /// link runs through simulate_disaggregated, each pool's forwards at its
  /// own TP and the KV hand-off on the same link's profile (prediction.md).
  std::optional<DisaggregationLayout> disaggregation;
  /// The hand-off's blocks (vLLM's --block-size; the KV dtype is memory's).
  TokenCount kv_block_size = 16;
};

/// One step as priced.
struct PricedStep {
  ScheduledStep step;
  Seconds compute;
  Seconds communication;
  Bytes sent_per_node;
  std::vector<std::pair<Bytes, Seconds>> collectives;  ///< bytes and time of each
};

/// What a step sink receives: which run, the step's number in it (from 1),
/// and the step as priced.
struct PricedStepEvent {
  std::size_t scenario = 0;
  std::size_t link = 0;
  int number = 0;
  const PricedStep& step;
};

/// A stretch of consecutive steps one request ran in, all prefill or all decode.
struct RequestSpan {
  double start_s = 0.0;
  double end_s = 0.0;
  bool prefill = false;
};

/// The most spans a request keeps (a chart is narrower than that in
/// pixels); past it, a step extends the request's last span of its kind.
inline constexpr std::size_t kMaxSpansPerRequest = 4096;

/// A prediction at the two ends of the expected rates' spread (the slow end
/// first): what the same run gives at the slowest and the fastest rates
/// public runs on the node show.
struct ExpectedRange {
  Seconds last_first_token_slow;
  Seconds last_first_token_fast;
  double decode_tokens_per_s_slow = 0.0;
  double decode_tokens_per_s_fast = 0.0;
};

/// One xPyD run at one link: the run, and the formula's inputs for the
/// scenario's longest prompt (docs/formulas.md s.32).
struct DisaggregatedLink {
  DisaggregationLayout layout;
  DisaggregatedResult run;
  KvTransfer longest_transfer;
  KvTransferTime longest_transfer_time;
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
  /// Per request of the first `spans_of_requests`, in order: its spans.
  std::vector<std::vector<RequestSpan>> spans;
  /// When expected rates price any of it.
  std::optional<ExpectedRange> expected;
  /// Set when the run was xPyD: its pools, hand-offs and the formula's inputs.
  std::optional<DisaggregatedLink> disaggregated;
  /// An EP layout's: its MoE layers' all-to-alls over all its communication
  /// (the whole run, after overlap).
  std::optional<double> alltoall_share;
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
  /// extra_last_first_token at the two ends of what the links' profiles
  /// measured (docs/formulas.md s.29): the same compute, the first link at
  /// its slowest curve and the second at its fastest, and the other way round.
  std::optional<ExtraRange> extra_last_first_token_range;
  std::optional<Seconds> bound_extra;  ///< the penalty bound for the same prompt tokens
  /// Why: the most requests that shared a prefill step, and the reason lines.
  int most_prefills_in_a_step = 0;
  std::vector<std::string> why;
};

struct PredictReport {
  PrefillFit fit;  ///< or the given/calibrated/expected compute, rows empty
  DecodeFit decode;
  bool prefill_expected = false;  ///< prefill priced by the node's expected rates
  bool decode_expected = false;   ///< decode priced by them
  std::string expected_source;    ///< the runs behind them
  /// The layout's memory fit, when the request had one.
  std::optional<MemoryReport> memory;
  DecodeComputeModel decode_model;
  int decode_model_drafts = 0;  ///< draft tokens a decode forward carries per request
  double accepted_tokens = 1.0;
  StepCostModel cost;
  std::vector<PredictScenarioResult> scenarios;
  std::vector<std::string> warnings;
  std::vector<std::string> notes;
};

/// The answer first, in at most three sentences: the last scenario's TTFT
/// on each link (with the extra the second link costs, predicted and
/// bounded), its decode speed a request, and where the compute rates came
/// from when the user measured nothing. Empty without scenarios.
[[nodiscard]] std::vector<std::string> predict_answer(const PredictReport& report);

/// The answer first, then the settings, each link's fabric profile, the
/// compute and decode fits, a table per link and the scenarios between the
/// first two links: every key of `tpnet predict`'s JSON (docs/json.md).
/// The profiles' sources (some 45 lines of provenance) are in JSON always,
/// and in tables and Markdown only with `show_sources`: the answer comes first.
[[nodiscard]] Document predict_document(const PredictRequest& request, const PredictReport& report,
                                        bool show_sources = false);

/// One scenario per baseline row, all its requests arriving at once, each
/// with the row's output tokens or `output` where the row states none.
[[nodiscard]] std::vector<PredictScenario> scenarios_from_baseline(
    const std::vector<PrefillScenario>& baseline, TokenCount output);

/// The ExpertParallel `request` asks for (data_parallel 1: plain TP).
/// Throws InputError naming `layout.data_parallel_size` for DP ranks without
/// expert parallelism (vLLM then shards the experts by TP over the DP ranks:
/// not modelled) and `layout.enable_expert_parallel` on a dense model.
[[nodiscard]] ExpertParallel predict_expert_parallel(const PredictRequest& request);

/// Throws InputError naming the field: no links, a link without its profile,
/// no scenario, no compute (`workload.baseline`), an overlap outside [0, 1)
/// (`predict.overlap`), and whatever the fit and the scheduler refuse.
[[nodiscard]] PredictReport run_predict(const PredictRequest& request);

/// The most steps tpnet predict simulates, every link together (each step
/// also prices its compute): a day of traffic at a few requests a second.
inline constexpr double kMaxPredictedSteps = 2e7;
/// The most request-steps (one request's share of one step: each decode
/// forward of each request, each prefill chunk) tpnet predict simulates,
/// every link together. The steps alone do not bound the work: one step may
/// carry a million requests. About 75 ns each, so some 15 s at most.
inline constexpr double kMaxPredictedRequestSteps = 2e8;
/// The most rows a timeline may have (one per request-step, every link):
/// about 70 bytes each, so under a gigabyte, as --traffic's 10^7 samples.
inline constexpr double kMaxTimelineRows = 1e7;

/// What a predict run will simulate, estimated before it starts, over all
/// links: steps, and request-steps (its rows of work), each split into the
/// prompts' share and the outputs' (decode forwards).
struct PredictWork {
  double prefill_steps = 0.0;
  double decode_steps = 0.0;
  double prefill_request_steps = 0.0;
  double decode_request_steps = 0.0;
  [[nodiscard]] double steps() const { return prefill_steps + decode_steps; }
  [[nodiscard]] double request_steps() const {
    return prefill_request_steps + decode_request_steps;
  }
};
[[nodiscard]] PredictWork estimated_work(const EngineConfig& engine,
                                         const std::vector<PredictScenario>& scenarios,
                                         std::size_t links, double accepted_tokens);
/// Throws InputError when `work` exceeds kMaxPredictedSteps or
/// kMaxPredictedRequestSteps (naming `workload.output_tokens` when decode
/// forwards make up most of it, else `workload.prompts`), or with
/// `timeline` kMaxTimelineRows (naming `predict.timeline`).
void require_predicted_work(const PredictWork& work, bool timeline);

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
