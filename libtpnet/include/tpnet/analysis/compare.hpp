#pragma once
/// A grid of layouts x links x prompts, one row per combination: bytes,
/// compute share, the TTFT-penalty bound and, from one measured baseline, the
/// projected TTFT increase (DOMAIN.md s.4 "Other TP sizes", docs/formulas.md s.10).

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "tpnet/analysis/budgets.hpp"
#include "tpnet/analysis/penalty.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// A TTFT measured for one layout and prompt on one link.
struct TtftBaseline {
  ParallelLayout layout;
  Seconds ttft;
  PromptSpec prompt;
  Link link;
};

/// What a node offers the model: usable memory, the share vLLM may take
/// (--gpu-memory-utilization) and what NCCL and the runtime hold besides.
struct NodeMemory {
  Bytes usable = Bytes::gigabytes(121.0);   ///< DGX Spark: 128 GB less ~7 GB for the OS
  double utilization = 0.9;                 ///< vLLM's default
  Bytes reserved = Bytes::gigabytes(11.0);  ///< NCCL buffers at 8 channels (DOMAIN.md s.8)

  [[nodiscard]] Bytes for_weights() const { return usable * utilization - reserved; }
};

struct CompareSpec {
  std::vector<ParallelLayout> layouts;
  std::vector<Link> from;
  std::vector<Link> to;
  std::vector<PrefillScenario> prompts;
  ParallelLayout reference;  ///< ratios are against this layout
  std::optional<TtftBaseline> baseline;
  NodeMemory memory;
  int decode_requests = 1;
  BitRate memory_bandwidth = BitRate::gigabytes_per_second(273.0);
  Budgets budgets;
};

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
  Bytes weights_per_node;
  bool fits_memory = true;
  Bytes decode_forward_bytes;  ///< per node, one decode forward with its logits
  Seconds decode_floor;        ///< active weights per node / memory bandwidth
  /// From the baseline: compute seconds per prompt token for the whole
  /// instance, assuming compute divides evenly over nodes.
  std::optional<Seconds> compute_per_token;
};

struct CompareRow {
  const LayoutSummary* layout = nullptr;
  const Link* from = nullptr;
  const Link* to = nullptr;
  const PrefillScenario* prompt = nullptr;
  Bytes prefill_bytes;
  Seconds comm_time_from;
  Seconds extra_bound;
  Seconds extra_per_1k;
  Seconds comm_per_1k;                       ///< network time per 1,000 prompt tokens at `from`
  double decode_slowdown = 0.0;              ///< most the link adds per decode forward / the floor
  std::optional<double> projected_increase;  ///< fraction of the projected TTFT at `from`
  bool within_budget = true;
};

/// The most rows a grid may have; larger grids are refused with their count.
inline constexpr std::uint64_t kMaxCompareRows = 100000000;

/// Rows of the grid; throws InputError naming the count when it exceeds
/// kMaxCompareRows or is zero.
std::uint64_t compare_row_count(const CompareSpec& spec);

/// From a measured TTFT: compute seconds per prompt token times the nodes
/// that shared it (TTFT minus its own network time, per token, x nodes).
/// Divide by a layout's nodes for its compute per token, assuming compute
/// divides evenly. Throws InputError when the TTFT is not longer than the
/// network time (the key names --baseline-ttft).
[[nodiscard]] Seconds compute_node_seconds_per_token(const ModelArch& model,
                                                     const EngineConfig& engine,
                                                     const TtftBaseline& baseline);

/// Validates every layout and computes its summary (throws InputError for an
/// impossible layout or a baseline shorter than its own network time).
std::vector<LayoutSummary> summarize_layouts(const ModelArch& model, const EngineConfig& engine,
                                             const CompareSpec& spec);

/// Calls `visit` for each row, layouts outermost, prompts innermost; rows
/// are computed on the fly so grids of millions of rows need no memory.
void for_each_compare_row(const CompareSpec& spec, const std::vector<LayoutSummary>& layouts,
                          const std::function<void(const CompareRow&)>& visit);

/// True when the row stays within every budget that applies to it.
[[nodiscard]] bool within_budgets(const CompareRow& row, const Budgets& budgets);

/// The row's budgets as verdicts (for `tpnet check`). Budgets that depend on
/// the prompt are always added; those that depend only on the layout and the
/// links (per 1,000 tokens, decode slowdown) only with `include_link_budgets`,
/// so a report lists them once per link pair.
void row_verdicts(const CompareRow& row, const Budgets& budgets, bool include_link_budgets,
                  std::vector<Verdict>& out);

}  // namespace tpnet
