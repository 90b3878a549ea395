#pragma once
/// What N nodes will give a model, layout by layout, when the user measured
/// nothing: each layout's memory fit, its expected TTFT at a prompt and its
/// decode speed per request and in aggregate at chosen concurrencies, each
/// with the range of the node's public runs (docs/prediction.md s.5). The
/// forwards are priced as `predict` prices them (step_cost), with the
/// node's expected rates.

#include <optional>
#include <string>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/sim/disaggregation.hpp"
#include "tpnet/usecase/document.hpp"
#include "tpnet/usecase/memory.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

namespace tpnet {

/// The requests at once an aggregate decode is compared at when layouts
/// are set side by side (plan, compare): enough to fill a batch, few enough
/// for every KV cache here to hold them.
inline constexpr int kSideBySideRequests = 32;

struct ExpectRequest {
  ModelArch model;
  /// The engine's settings; each layout sets its own tensor_parallel_size.
  EngineConfig engine;
  NodeSpec node;  ///< needs `expected` rates
  int nodes = 1;
  /// The profile of the link between the nodes; its `link` is the link the
  /// answer names, so the two cannot disagree.
  FabricProfile fabric;
  MemorySettings memory;
  TokenCount prompt_tokens = kDefaultPromptTokens;
  TokenCount output_tokens = 512;
  std::vector<int> concurrency{1, 8, 32, 64};
  /// Output tokens a decode forward yields per request; unset: 1 + drafts.
  std::optional<double> accepted_tokens;
  /// Only these layouts; empty: every TP x PP whose nodes divide `nodes`,
  /// the rest of the nodes serving replicas of it. A layout with ep > tp is
  /// expert parallelism with data-parallel attention (vLLM's
  /// --enable-expert-parallel with --data-parallel-size ep / tp).
  std::vector<ParallelLayout> layouts;
  /// Prefill/decode disaggregated layouts (xPyD) to price beside `layouts`;
  /// never enumerated by default.
  std::vector<DisaggregationLayout> disaggregations;
};

/// One quantity at the slow end of the node's spread, typically, and at the
/// fast end.
struct ExpectedValue {
  double slow = 0.0;
  double typical = 0.0;
  double fast = 0.0;
};

struct ExpectConcurrency {
  int requests = 0;           ///< over every replica
  int batch = 0;              ///< the requests the busiest replica runs at once
  ExpectedValue per_request;  ///< decode tokens/s of one request
  ExpectedValue aggregate;    ///< decode tokens/s of all of them
  /// Requests the busiest replica's KV cache holds at the context; below
  /// `batch`, vLLM queues the rest (the numbers are for the ones it runs).
  long long kv_sequences = 0;
};

struct ExpectLayout {
  ParallelLayout layout;  ///< one replica's (for xPyD: the decode instances')
  /// Set: the layout is xPyD, prefill and decode on separate instances.
  std::optional<DisaggregationLayout> disaggregation;
  int replicas = 1;
  bool fits = false;
  MemoryLimit limit = MemoryLimit::none;
  std::string refusal;   ///< vLLM refuses the TP (tp_refusal); empty when it starts
  ExpectedValue ttft_s;  ///< one request's, alone, at the prompt
  std::vector<ExpectConcurrency> decode;
  double floor_tokens_per_s = 0.0;  ///< the weight-read bound of one request, alone
  /// Seconds one request takes alone: TTFT and its output tokens (typical).
  double request_seconds = 0.0;
};

struct ExpectReport {
  std::vector<ExpectLayout> layouts;
  int best_latency = -1;     ///< index: the least time for one request alone
  int best_throughput = -1;  ///< index: the most aggregate tokens/s at the largest concurrency
  double accepted_tokens = 1.0;
  std::string source;  ///< the runs the expected rates come from
  /// Decode of one request alone on the best-latency layout as its context
  /// grows: (context tokens, tokens/s typical).
  std::vector<std::pair<TokenCount, double>> context_slowdown;
  std::vector<std::string> warnings;
  std::vector<std::string> notes;
};

/// Throws InputError naming the field: a node without expected rates
/// (`node`), nodes below 1 (`cluster.nodes`), no concurrency or one below 1
/// (`expect.concurrency`), prompt or output tokens below 1.
[[nodiscard]] ExpectReport run_expect(const ExpectRequest& request);

/// One layout, or with `disaggregation` one xPyD group, priced alone as
/// run_expect prices it: its row (whether it fits and starts is the row's
/// to say), or the input the pricing refused (a fabric that cannot join the
/// layout's nodes). What plan and compare set side by side.
struct SingleLayoutExpectation {
  std::optional<ExpectLayout> row;
  std::optional<InputError> refused;
};
[[nodiscard]] SingleLayoutExpectation expect_single_layout(
    ExpectRequest request, const ParallelLayout& layout,
    const std::optional<DisaggregationLayout>& disaggregation);

/// The cluster asked about, the layouts best for one request's latency and
/// for aggregate tokens/s, each layout's fit, TTFT and decode speeds (the
/// table typical, the wide table and JSON with the slow and fast ends), and
/// decode's slowdown with context: every key of `tpnet expect`'s JSON
/// (docs/json.md). The layouts' label says the wide table adds the ranges;
/// the CLI names its flag.
[[nodiscard]] Document expect_document(const ExpectRequest& request, const ExpectReport& report);

}  // namespace tpnet
