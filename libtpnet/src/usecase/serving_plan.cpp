#include "tpnet/usecase/serving_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>

#include "tpnet/model/layout.hpp"

namespace tpnet {
namespace {

/// A verdict's value in its budget's unit: seconds, percent or gigabytes.
std::string verdict_amount(const Verdict& v, double amount) {
  switch (v.unit) {
    case VerdictUnit::fraction:
      return fmt::format("{:.1f}%", amount * 100.0);
    case VerdictUnit::bytes:
      return fmt::format("{:.2f} GB", amount / 1e9);
    case VerdictUnit::seconds:
      break;
  }
  return fmt::format("{:.3f} s", amount);
}

std::string exceeded_sentence(const Verdict& v) {
  // Two shares differ by percentage points, not by a percent of either.
  const std::string over =
      v.unit == VerdictUnit::fraction
          ? fmt::format("{:.1f} percentage points", (v.value - v.limit) * 100.0)
          : verdict_amount(v, v.value - v.limit);
  return fmt::format("{} on {}: {} against a limit of {}, {} over.", v.budget, v.subject,
                     verdict_amount(v, v.value), verdict_amount(v, v.limit), over);
}

}  // namespace

std::vector<std::string> check_answer(const CheckReport& report) {
  const std::vector<Verdict>& verdicts = report.verdicts;
  std::vector<const Verdict*> exceeded;
  for (const auto& v : verdicts) {
    if (!v.within) exceeded.push_back(&v);
  }
  if (exceeded.empty()) {
    // The closest to its limit is the one a change would break first.
    const Verdict* closest = nullptr;
    double closest_share = -1.0;
    for (const auto& v : verdicts) {
      const double share = v.limit > 0.0 ? v.value / v.limit : 0.0;
      if (share > closest_share) {
        closest = &v;
        closest_share = share;
      }
    }
    std::string held =
        fmt::format("Every budget holds: {} checks within their limits.", verdicts.size());
    if (closest == nullptr) return {held};
    return {held, fmt::format("Closest to its limit: {} on {}, {} of {}.", closest->budget,
                              closest->subject, verdict_amount(*closest, closest->value),
                              verdict_amount(*closest, closest->limit))};
  }
  // Three sentences at most: the count, the first exceeded, and the second or how many more.
  std::vector<std::string> out{
      fmt::format("BUDGET EXCEEDED: {} of {} checks fail.", exceeded.size(), verdicts.size())};
  out.push_back(exceeded_sentence(*exceeded.front()));
  if (exceeded.size() == 2) {
    out.push_back(exceeded_sentence(*exceeded[1]));
  } else if (exceeded.size() > 2) {
    out.push_back(fmt::format("{} more exceeded; the table lists them.", exceeded.size() - 1));
  }
  return out;
}

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
