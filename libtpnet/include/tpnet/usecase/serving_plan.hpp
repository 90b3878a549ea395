#pragma once
/// `tpnet check`: a serving plan kept in git (model, layout, links, engine
/// settings, node, memory settings, the workload and the budgets it must stay
/// within) run as the compare grid it describes, plus its verdicts, which gate
/// CI (docs/plan.md).

#include <string>
#include <vector>

#include "tpnet/usecase/budgets.hpp"
#include "tpnet/usecase/compare.hpp"

namespace tpnet {

/// A plan file as read: the compare request its keys build (one layout, one
/// `from` link, its `to` links and scenarios). Field paths in the library's
/// errors are the plan's own keys.
struct ServingPlan {
  std::string origin;  ///< the plan file, for messages
  CompareRequest compare;

  [[nodiscard]] const ParallelLayout& layout() const { return compare.layouts.front(); }
};

/// Rows point into `compare`, so a report can be moved but not copied.
struct CheckReport {
  CheckReport() = default;
  CheckReport(const CheckReport&) = delete;
  CheckReport& operator=(const CheckReport&) = delete;
  CheckReport(CheckReport&&) = default;
  CheckReport& operator=(CheckReport&&) = default;
  ~CheckReport() = default;

  CompareReport compare;
  std::vector<CompareRow> rows;  ///< one per scenario and `to` link, scenarios outermost
  /// memory_fit first (the layout must fit the node), then per row its budgets.
  std::vector<Verdict> verdicts;
  std::vector<std::string> warnings;

  [[nodiscard]] bool passed() const { return all_within(verdicts); }
};

/// Runs the plan. Throws InputError naming the plan file and key when a budget
/// cannot be checked (a TTFT increase with neither a measured nor a projected
/// TTFT) or a TTFT is shorter than its own network time.
[[nodiscard]] CheckReport run_check(const ServingPlan& plan);

/// The answer `tpnet check` opens with: every budget held (and the closest
/// to its limit), or which budgets were exceeded and by how much.
[[nodiscard]] std::vector<std::string> check_answer(const CheckReport& report);

}  // namespace tpnet
