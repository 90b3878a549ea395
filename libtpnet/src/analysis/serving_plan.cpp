#include "tpnet/analysis/serving_plan.hpp"

#include <fmt/format.h>

#include "tpnet/analysis/bytes_per_token.hpp"

namespace tpnet {

PlanResult evaluate_plan(const Plan& plan) {
  PlanResult result;
  CompareSpec spec;
  spec.layouts = {plan.layout};
  spec.from = {plan.from};
  spec.to = plan.to;
  spec.reference = plan.layout;
  spec.memory = plan.memory;
  spec.decode_requests = plan.decode_requests;
  spec.memory_bandwidth = plan.memory_bandwidth;
  spec.budgets = plan.budgets;

  // One pass per scenario: a scenario measured on this layout is its own
  // baseline (the projection then reduces to the measured network share);
  // the others use the plan's projection, if any.
  result.rows.reserve(plan.scenarios.size() * plan.to.size());
  result.summaries.reserve(plan.scenarios.size());
  bool first = true;
  for (const auto& scenario : plan.scenarios) {
    spec.prompts = {scenario};
    spec.baseline = plan.projection;
    if (scenario.baseline_ttft) {
      spec.baseline =
          TtftBaseline{plan.layout, *scenario.baseline_ttft, scenario.prompt, plan.from};
    }
    if (plan.budgets.max_ttft_increase && !spec.baseline) {
      throw InputError(fmt::format("budget max_ttft_increase needs a TTFT for scenario {}: give "
                                   "workload.baseline (measured) or projection",
                                   scenario.name),
                       InputLocation::in_file(plan.origin, 0, "budgets.max_ttft_increase"));
    }
    std::vector<LayoutSummary> summaries;
    try {
      summaries = summarize_layouts(plan.model, plan.engine, spec);
    } catch (const InputError& e) {
      // Name the plan's key, not the command-line flag the check speaks of.
      if (!e.where().file.empty()) throw;
      throw InputError(
          e.detail(),
          InputLocation::in_file(plan.origin, 0,
                                 scenario.baseline_ttft ? "workload.baseline" : "projection"));
    }
    result.summaries.push_back(summaries.front());
    const LayoutSummary* summary = &result.summaries.back();
    if (first && !summary->fits_memory) {
      result.warnings.push_back(
          fmt::format("{}: {:.1f} GB of weights per node exceed the {:.1f} GB left for them",
                      plan.layout.name(), summary->weights_per_node.count() / 1e9,
                      plan.memory.for_weights().count() / 1e9));
    }
    for_each_compare_row(spec, summaries, [&](const CompareRow& row) {
      CompareRow kept = row;
      kept.layout = summary;
      kept.from = &plan.from;
      kept.prompt = &scenario;
      kept.to = &plan.to[static_cast<std::size_t>(row.to - spec.to.data())];
      row_verdicts(kept, plan.budgets, first, result.verdicts);
      result.rows.push_back(kept);
    });
    first = false;
  }
  for (const auto& w : layout_warnings(plan.model, plan.engine)) result.warnings.push_back(w);
  return result;
}

}  // namespace tpnet
