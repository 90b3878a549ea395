// tpnet compare's answer as a document: the best layout first, what the grid is of (its title), the
// model, the layout ratios are against, the node, the prefill chunk, the
// rows, the projection's baseline and the calibration (docs/json.md,
// "compare"). The rows themselves are written by the CLI, which streams
// large grids as CSV or JSON.
#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <vector>

#include "tpnet/usecase/compare.hpp"
#include "tpnet/usecase/shared_fields.hpp"

namespace tpnet {
namespace {

/// One layout's worst row over the slower links: what the answer ranks by.
struct LayoutWorst {
  bool any = false;
  bool within_budget = true;
  double cost = 0.0;  ///< the projected TTFT increase, else the extra per 1,000 tokens (s)
  Seconds bound;      ///< the extra TTFT bound of the row the cost came from
  const Link* to = nullptr;
  const PrefillScenario* prompt = nullptr;
  bool measured = false;
  double decode_slowdown = 0.0;  ///< the most any link pair adds to a decode forward
  const Link* decode_to = nullptr;
};

/// The layouts the answer may choose from, best first: those that fit and
/// keep every row within budget, else those that fit, else all.
std::vector<std::size_t> answer_candidates(const CompareReport& report,
                                           const std::vector<LayoutWorst>& worst) {
  std::vector<std::size_t> fit;
  std::vector<std::size_t> fit_within;
  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < worst.size(); ++i) {
    if (!worst[i].any) continue;
    all.push_back(i);
    if (!report.layouts[i].fits_memory()) continue;
    fit.push_back(i);
    if (worst[i].within_budget) fit_within.push_back(i);
  }
  if (!fit_within.empty()) return fit_within;
  return fit.empty() ? all : fit;
}

}  // namespace

std::vector<std::string> compare_answer(const CompareReport& report) {
  if (report.row_count == 0 || report.layouts.empty()) return {};
  // The answer ranks by the bounds and the projection, which every row has
  // at once; the predicted column (about 20 us a row) stays the grid's.
  CompareReport bounds_only = report;
  bounds_only.request.from = without_profiles(links_of(report.request.from));
  bounds_only.request.to = without_profiles(links_of(report.request.to));
  const bool projected = report.projected();
  std::vector<LayoutWorst> worst(report.layouts.size());
  for_each_compare_row(bounds_only, [&](const CompareRow& r) {
    LayoutWorst& w = worst[static_cast<std::size_t>(r.layout - bounds_only.layouts.data())];
    w.within_budget = w.within_budget && r.within_budget;
    if (w.decode_to == nullptr || r.decode_slowdown > w.decode_slowdown) {
      w.decode_slowdown = r.decode_slowdown;
      w.decode_to = &report.request.to[r.to_index].link;
    }
    if (projected && !r.ttft_increase) return;
    const double cost = projected ? *r.ttft_increase : r.extra_per_1k.value();
    if (w.any && (cost < w.cost || (cost == w.cost && r.extra_bound <= w.bound))) return;
    w.any = true;
    w.cost = cost;
    w.bound = r.extra_bound;
    w.to = &report.request.to[r.to_index].link;
    w.prompt = &report.request.prompts[r.prompt_index];
    w.measured = r.ttft_measured;
  });
  const std::vector<std::size_t> candidates = answer_candidates(report, worst);
  if (candidates.empty()) return {};
  std::size_t best = candidates.front();
  for (const std::size_t i : candidates) {
    if (worst[i].cost < worst[best].cost) best = i;
  }
  const LayoutSummary& layout = report.layouts[best];
  const LayoutWorst& w = worst[best];
  const std::string name =
      fmt::format("{} ({} nodes)", layout.layout.name(), layout.layout.nodes());
  const std::string cost_of = report.request.to.size() > 1 ? "the slower links" : "the slower link";
  std::vector<std::string> out;
  if (!layout.fits_memory()) {
    out.push_back(fmt::format("No layout fits {}'s memory; of all, {} costs the least TTFT on {}.",
                              report.request.node.name, name, cost_of));
  } else if (!w.within_budget) {
    out.push_back(fmt::format(
        "No layout that fits keeps every row within budget; of those that fit, {} costs the "
        "least TTFT on {}.",
        name, cost_of));
  } else {
    out.push_back(
        fmt::format("Best layout: {}, which fits {}'s memory{} and costs the least TTFT "
                    "on {}.",
                    name, report.request.node.name,
                    report.gated() ? ", keeps every row within budget" : "", cost_of));
  }
  if (projected) {
    out.push_back(fmt::format("At {} its TTFT rises at most {:+.1f}% ({}, {}: {:+.2f} s at most).",
                              w.to->name, w.cost * 100.0, w.prompt->name,
                              w.measured ? "measured" : "projected", w.bound.value()));
  } else {
    out.push_back(fmt::format(
        "At {} its prefill takes at most {:+.3f} s more per 1,000 prompt tokens ({}: {:+.2f} s at "
        "most).",
        w.to->name, w.cost, w.prompt->name, w.bound.value()));
  }
  out.push_back(
      fmt::format("Decode: {} adds at most {:.1f}% to its {:.1f} ms weight-read floor a "
                  "forward.",
                  w.decode_to->name, w.decode_slowdown * 100.0, layout.decode_floor.value() * 1e3));
  return out;
}

Document compare_document(const CompareReport& report, const std::string& baseline_prompt) {
  const CompareRequest& request = report.request;
  Document doc;
  doc.answer = compare_answer(report);
  doc.title = fmt::format("tpnet compare: {} over {} layouts x {} link pairs x {} prompts",
                          request.model.name, request.layouts.size(),
                          request.from.size() * request.to.size(), request.prompts.size());
  doc.fields = {text("model", "model", request.model.name),
                text("reference_layout", "ratios against", report.reference.name()),
                text("node", "node", request.node.name),
                integer("chunk_tokens", "prefill chunk",
                        static_cast<double>(request.engine.max_num_batched_tokens)),
                integer("row_count", "rows", static_cast<double>(report.row_count))};
  if (const auto& b = request.projection) {
    const std::string prompt =
        baseline_prompt.empty() ? std::to_string(b->prompt.total_tokens()) : baseline_prompt;
    doc.fields.push_back(text("baseline", "projected from",
                              fmt::format("{} {} at {}: TTFT {:g} s", b->layout.name(), prompt,
                                          b->link.name, b->ttft.value())));
  }
  if (report.calibration) doc.fields.push_back(calibration_record(*report.calibration));
  if (!report.expectations.empty()) {
    for (auto& line : side_by_side_answer(report)) doc.answer.push_back(std::move(line));
    doc.fields.push_back(side_by_side_field(report));
  }
  doc.warnings = report.warnings;
  return doc;
}

}  // namespace tpnet
