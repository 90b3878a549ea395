#pragma once
// The figures the commands draw (`--svg`) and `tpnet report` inlines: each
// built from the report libtpnet already computed, so a chart never shows a
// number its command's table does not (docs/charts.md).

#include <optional>
#include <string>
#include <vector>

#include "chart.hpp"
#include "tpnet/usecase/capacity.hpp"
#include "tpnet/usecase/compare.hpp"
#include "tpnet/usecase/expect.hpp"
#include "tpnet/usecase/memory.hpp"
#include "tpnet/usecase/penalty.hpp"
#include "tpnet/usecase/predict.hpp"
#include "tpnet/usecase/traffic_report.hpp"

namespace tpnet::cli {

/// Extra TTFT per scenario from `from` to `to`: the bound and, where there is
/// one, the prediction; with a baseline, the TTFTs at both links.
[[nodiscard]] chart::Figure penalty_figure(const PenaltyReport& report, const Link& from,
                                           const Link& to, const std::string& subject);

/// Bytes per prompt token per node by layout, and by layout and link pair the
/// worst projected TTFT increase over the prompts (without a projection: the
/// extra TTFT bound per 1,000 prompt tokens).
[[nodiscard]] chart::Figure compare_figure(const CompareReport& report);

/// TPS and TTFT against the load level per config, with the SLO lines and
/// each config's C_max marked.
[[nodiscard]] chart::Figure capacity_figure(const CapacityReport& report);

/// tpnet expect's layouts: aggregate decode tokens/s by layout, a bar per
/// concurrency, the range in each bar's hover.
[[nodiscard]] chart::Figure expected_figure(const ExpectReport& report, const std::string& model);

/// A stacked bar per TP size: weights, NCCL buffers, CUDA graphs, the
/// activation peak and the KV cache left, against vLLM's budget.
[[nodiscard]] chart::Figure memory_figure(const std::vector<MemoryReport>& by_tp,
                                          const std::string& model);

/// Requests per link predict's step chart draws.
inline constexpr std::size_t kPredictChartRows = 24;
/// Per scenario and link, each request's steps as a timeline: waiting,
/// prefill steps, decode steps and the first token, from the spans the run
/// kept (PredictRequest::spans_of_requests). Rows beyond `max_rows` per
/// panel are left out and the caption says so.
[[nodiscard]] chart::Figure predict_figure(const PredictReport& report,
                                           std::size_t max_rows = kPredictChartRows);

/// Transmit and receive rates over time in the finest and coarsest windows.
[[nodiscard]] chart::Figure traffic_figure(const TrafficWindows& windows, const std::string& title);

}  // namespace tpnet::cli
