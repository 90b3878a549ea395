#pragma once
/// `tpnet compare` (and, with its verdicts, `tpnet check`): a grid of layouts x
/// links x prompts, one row per combination: bytes, compute share, the
/// TTFT-penalty bound, memory fit, decode slowdown and, from a measured TTFT,
/// the projected TTFT increase (docs/formulas.md s.10); with a calibration,
/// point estimates beside the bounds (s.19).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tpnet/base/limits.hpp"
#include "tpnet/fabric/collective_settings.hpp"
#include "tpnet/fabric/cost.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/fabric/profiled_link.hpp"
#include "tpnet/measured/point_estimate.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/sim/disaggregation.hpp"
#include "tpnet/usecase/budgets.hpp"
#include "tpnet/usecase/calibration_use.hpp"
#include "tpnet/usecase/document.hpp"
#include "tpnet/usecase/expect.hpp"
#include "tpnet/usecase/memory.hpp"
#include "tpnet/usecase/penalty.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

namespace tpnet {

/// A TTFT measured for one layout and prompt on one link (`projection.*`).
struct TtftBaseline {
  ParallelLayout layout;
  Seconds ttft;
  PromptSpec prompt;
  Link link;
};

/// Everything a compare grid depends on. Field paths in errors follow the
/// plan file's keys (docs/plan.md): `layout.tp`, `links.from`,
/// `workload.prompts`, `projection.ttft`, `memory.*`, `budgets.*`.
struct CompareRequest {
  ModelArch model;
  /// Engine settings; tensor_parallel_size is each layout's tp.
  EngineConfig engine;
  std::vector<ParallelLayout> layouts;
  /// The links each row goes from and to. With a profile on every one
  /// (`fabric`), each TP-only row's predicted extra time through the
  /// scheduler (docs/formulas.md s.25); else none.
  std::vector<ProfiledLink> from;
  std::vector<ProfiledLink> to;
  /// Prompt scenarios; empty = the GLM-5.3 study's P1-P6. A scenario that
  /// carries a baseline TTFT was measured on `measured_layout` at the first
  /// `from` link and is its own projection baseline.
  std::vector<PrefillScenario> prompts;
  ParallelLayout measured_layout;
  /// Ratios are against this layout; unset: reference_layout() picks it.
  std::optional<ParallelLayout> reference;
  /// A TTFT measured elsewhere (another TP size, say) that every prompt
  /// without its own baseline projects from.
  std::optional<TtftBaseline> projection;
  NodeSpec node;  ///< memory fit and, unless memory_bandwidth is set, decode's floor
  MemorySettings memory;
  std::optional<BitRate> memory_bandwidth;  ///< memory.memory_bandwidth: replaces the node's
  int decode_requests = 1;                  ///< workload.decode_requests
  Budgets budgets;
  std::optional<CalibrationInput> calibration;
  std::optional<double> accepted_tokens;  ///< for decodes sharing prefill steps; unset: 1 + drafts

  /// Side by side (docs/formulas.md s.10.1): with a cluster of this many
  /// nodes, or with xPyD layouts, each layout's expected TTFT and decode
  /// speed from the node's public runs, its replicas on the cluster and the
  /// nodes' cost, ranked. Unset and no disaggregations: no such table.
  std::optional<int> cluster_nodes;
  /// Prefill/decode disaggregated layouts to set beside the grid's, each at
  /// every TP of the grid's layouts (both pools at that TP).
  std::vector<DisaggregationLayout> disaggregations;
  /// The profiles a link without its own is priced on for the expectation
  /// (a switch's, the node's built-in one), read at the edge; empty: nominal.
  std::vector<FabricProfile> fabric_catalog;
  /// NCCL's setup or the user's alpha-beta override: what a link without its
  /// own profile is priced with in the side by side.
  CollectiveSettings collective;
  /// Prices for the nodes' cost; absent: not priced.
  std::optional<PriceCatalog> prices;
  CalendarDate today;  ///< prices seen more than a year before it draw a warning

  /// Every link has its profile: the rows carry a predicted extra.
  [[nodiscard]] bool predicted() const { return all_profiled(from) && all_profiled(to); }
};

/// The layout ratios are taken against: the request's reference, else the
/// projection's layout (unless a single node), else TP8 when the grid has it
/// (background's reference), else the grid's first layout.
[[nodiscard]] ParallelLayout reference_layout(const CompareRequest& request);

/// Everything about a layout that does not depend on links or prompts.
struct LayoutSummary {
  ParallelLayout layout;
  Bytes per_token_bytes;
  double bytes_ratio = 0.0;        ///< per-token bytes / the reference layout's
  double compute_ratio = 0.0;      ///< reference nodes / nodes: compute per node
  int steps_per_forward = 0;       ///< sequential latency-bound steps of one forward
  Bytes prefill_forward_bytes;     ///< per node, one full-chunk prefill forward
  long long prefill_messages = 0;  ///< messages the busiest node sends in it
  long long decode_messages = 0;   ///< messages in one decode forward (with the logits gather)
  MemoryReport memory;             ///< the memory fit, as `tpnet memory` answers it
  Bytes decode_forward_bytes;      ///< per node, one decode forward with its logits
  Seconds decode_floor;            ///< active weights per node / memory bandwidth

  [[nodiscard]] Bytes weights_per_node() const { return memory.weights_bytes; }
  [[nodiscard]] bool fits_memory() const { return memory.fits; }
};

struct CompareRow {
  const LayoutSummary* layout = nullptr;
  const Link* from = nullptr;
  const Link* to = nullptr;
  std::size_t from_index = 0;  ///< of `from` in the request's links
  std::size_t to_index = 0;    ///< of `to` in the request's links
  const PrefillScenario* prompt = nullptr;
  std::size_t prompt_index = 0;  ///< 0 for the first prompt of a link pair
  Bytes prefill_bytes;
  Seconds comm_time_from;
  Seconds extra_bound;
  Seconds extra_per_1k;
  Seconds comm_per_1k;           ///< network time per 1,000 prompt tokens at `from`
  double decode_slowdown = 0.0;  ///< most the link adds per decode forward / the floor
  /// Fraction of the TTFT at `from`: measured when the prompt carries its own
  /// baseline, else projected from the request's projection.
  std::optional<double> ttft_increase;
  bool ttft_measured = false;                    ///< ttft_increase comes from the prompt's own TTFT
  std::optional<PrefillPoint> calibrated_point;  ///< with a calibration
  /// With fabric profiles, TP-only layouts: what `to` adds to the last first
  /// token through the scheduler (PP and EP layouts: unset).
  std::optional<Seconds> predicted_extra;
  std::optional<Seconds> achieved_bound;  ///< its achieved-rate bound (s.25)
  bool within_budget = true;
};

/// One layout side by side with the others: what the node's public runs say
/// it gives on the cluster (docs/formulas.md s.10.1).
struct CompareExpectation {
  std::string name;  ///< "TP4xEP8", "2 x TP4", "1P1D TP2"
  ParallelLayout layout;
  std::optional<DisaggregationLayout> disaggregation;
  int nodes = 0;     ///< one instance's
  int replicas = 1;  ///< cluster_nodes / nodes (1 without a cluster)
  /// On the first `to` link's profile; absent with `refusal` said.
  std::optional<ExpectLayout> expected;
  /// The same layout's expected TTFT on the first `from` link's profile.
  std::optional<double> ttft_from_s;
  std::string refusal;           ///< why nothing is expected: no fit, vLLM refuses, the fabric
  std::optional<PlanCost> cost;  ///< the nodes used, priced; the fabric is plan's to buy
  std::optional<double> tokens_per_dollar;  ///< aggregate decode / cost.total, when complete
  [[nodiscard]] std::optional<double> throughput() const;  ///< aggregate at the most requests
};

/// The grid, computed row by row on demand so millions of rows need no memory.
/// Rows point into the report: it must outlive them.
struct CompareReport {
  CompareRequest request;  ///< as run: prompts filled in, links kept
  ParallelLayout reference;
  std::vector<LayoutSummary> layouts;
  std::optional<CalibrationUse> calibration;
  std::uint64_t row_count = 0;
  std::vector<std::string> warnings;
  /// Per prompt: compute seconds per prompt token times the nodes that shared
  /// it (its own baseline, else the projection); absent without either.
  std::vector<std::optional<Seconds>> compute_node_seconds;
  /// Side by side, best first (by tokens/s per money unit with prices, else
  /// by aggregate tokens/s); empty unless the request asked for it.
  std::vector<CompareExpectation> expectations;

  [[nodiscard]] bool projected() const;  ///< some row has a TTFT increase
  [[nodiscard]] bool gated() const { return request.budgets.any(); }
};

/// Rows of the grid; throws InputError naming `layout.tp` when it exceeds
/// kMaxCompareRows or is zero.
std::uint64_t compare_row_count(const CompareRequest& request);

/// From a measured TTFT: compute seconds per prompt token times the nodes
/// that shared it (TTFT minus its own network time, per token, x nodes).
/// Divide by a layout's nodes for its compute per token, assuming compute
/// divides evenly. Throws InputError naming `field` when the TTFT is not
/// longer than the network time.
[[nodiscard]] Seconds compute_node_seconds_per_token(const ModelArch& model,
                                                     const EngineConfig& engine,
                                                     const TtftBaseline& baseline,
                                                     const std::string& field = "projection.ttft");

/// Validates every layout, fits each in memory and prices what does not
/// depend on the row; throws InputError for an impossible layout, a baseline
/// shorter than its own network time, or a TTFT budget with no TTFT.
[[nodiscard]] CompareReport run_compare(CompareRequest request);

/// The answer first, in three sentences: the layout that fits (and, with
/// budgets, keeps every row within them) whose worst row costs the least on
/// the slower links, by the projected TTFT increase when a TTFT projects,
/// else by the extra TTFT per 1,000 prompt tokens; that cost at its link and
/// prompt; and what the slower link adds to its decode forward. Empty for an
/// empty grid.
[[nodiscard]] std::vector<std::string> compare_answer(const CompareReport& report);

/// The answer, what the grid is of (the title: the model, layouts, link pairs and
/// prompts), the model, the layout ratios are against, the node, the prefill
/// chunk, the row count, the projection's baseline and the calibration: the
/// keys of `tpnet compare`'s JSON before its rows (docs/json.md), and the
/// report's warnings as the use case words them. `baseline_prompt` is the
/// projection's prompt as the user wrote it ("8k"); empty: its tokens. The
/// rows are the caller's to add (a large grid is streamed).
[[nodiscard]] Document compare_document(const CompareReport& report,
                                        const std::string& baseline_prompt = {});

/// Each layout's and each xPyD's expectation on the cluster, best first
/// (CompareReport::expectations); throws InputError naming `cluster.nodes`
/// for nodes below 1 and `node` for a node without expected rates.
[[nodiscard]] std::vector<CompareExpectation> compare_expectations(const CompareRequest& request);

/// The side by side's answer: the layout expected to give the most tokens/s
/// (per dollar with prices), its TTFT and decode; empty without expectations.
[[nodiscard]] std::vector<std::string> side_by_side_answer(const CompareReport& report);

/// The side by side as a table, best first: each layout's nodes, expected
/// TTFT (and against the faster link), decode alone and at
/// kSideBySideRequests, the nodes' cost and tokens/s per money unit.
[[nodiscard]] Field side_by_side_field(const CompareReport& report);

/// Calls `visit` for each row, layouts outermost, prompts innermost.
void for_each_compare_row(const CompareReport& report,
                          const std::function<void(const CompareRow&)>& visit);

/// Each layout's worst prompt per link pair: what compare's chart draws.
struct WorstByLayout {
  /// True: the projected TTFT increase (a fraction); false: the extra TTFT
  /// bound per 1,000 prompt tokens, in seconds (no TTFT to project from).
  bool projected = false;
  /// [link pair][layout], pairs from-major (from[0]->to[0], from[0]->to[1],
  /// ...); absent where no row of that layout and pair has the value.
  std::vector<std::vector<std::optional<double>>> by_pair;
};

/// The worst over the prompts of every layout and link pair, one pass over
/// the rows.
[[nodiscard]] WorstByLayout worst_by_layout(const CompareReport& report);

/// The row's budgets as verdicts (for `tpnet check`). Budgets that depend on
/// the prompt are always added; those that depend only on the layout and the
/// links (per 1,000 tokens, decode slowdown) only for the first prompt of a
/// link pair, so a report lists them once per link pair.
void row_verdicts(const CompareRow& row, const Budgets& budgets, std::vector<Verdict>& out);

}  // namespace tpnet
