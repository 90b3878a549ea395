#include "tpnet/usecase/serving_plan.hpp"

#include <algorithm>

#include "tpnet/model/layout.hpp"

namespace tpnet {

CheckReport run_check(const ServingPlan& plan) {
  CheckReport result;
  try {
    // A plan vLLM would not start cannot pass.
    require_tp_accepted(plan.compare.model, plan.layout().tp);
    result.compare = run_compare(plan.compare);
  } catch (const InputError& e) {
    // Name the plan file beside the key the library names.
    if (!e.where().file.empty()) throw;
    throw InputError(e.detail(), InputLocation::in_file(plan.origin, 0, e.where().key));
  }
  const CompareReport& grid = result.compare;
  for_each_compare_row(grid, [&](const CompareRow& row) { result.rows.push_back(row); });
  // Scenario by scenario, each at every `to` link, as the plan lists them.
  std::stable_sort(
      result.rows.begin(), result.rows.end(),
      [](const CompareRow& a, const CompareRow& b) { return a.prompt_index < b.prompt_index; });

  const LayoutSummary& layout = grid.layouts.front();
  const MemoryReport& memory = layout.memory;
  result.verdicts.push_back(Verdict{"memory_fit", layout.layout.name(),
                                    memory.required_bytes.count(), memory.budget.count(),
                                    VerdictUnit::bytes, memory.fits});
  for (const auto& row : result.rows) row_verdicts(row, grid.request.budgets, result.verdicts);
  result.warnings = grid.warnings;
  return result;
}

}  // namespace tpnet
