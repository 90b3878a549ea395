#pragma once
/// A serving plan kept in git: model, layout, links, engine settings, the
/// workload and the budgets it must stay within. `evaluate_plan` turns it into
/// verdicts that gate CI (docs/plan.md).

#include <optional>
#include <string>
#include <vector>

#include "tpnet/analysis/budgets.hpp"
#include "tpnet/analysis/compare.hpp"
#include "tpnet/analysis/penalty.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

struct Plan {
  std::string origin;  ///< the plan file, for messages
  ModelArch model;
  ParallelLayout layout;
  EngineConfig engine;
  Link from;
  std::vector<Link> to;
  /// Prompt scenarios; those read from a baseline CSV carry the TTFT measured
  /// at `from` with this layout.
  std::vector<PrefillScenario> scenarios;
  /// A TTFT measured elsewhere (another TP size, say) to project from.
  std::optional<TtftBaseline> projection;
  NodeMemory memory;
  int decode_requests = 1;
  BitRate memory_bandwidth = BitRate::gigabytes_per_second(273.0);
  Budgets budgets;
};

/// Rows point into `summaries` and into the Plan, so a result can be moved
/// but not copied, and must not outlive its plan.
struct PlanResult {
  PlanResult() = default;
  PlanResult(const PlanResult&) = delete;
  PlanResult& operator=(const PlanResult&) = delete;
  PlanResult(PlanResult&&) = default;
  PlanResult& operator=(PlanResult&&) = default;
  ~PlanResult() = default;

  std::vector<CompareRow> rows;  ///< one per scenario and `to` link
  std::vector<LayoutSummary> summaries;
  std::vector<Verdict> verdicts;
  std::vector<std::string> warnings;

  [[nodiscard]] bool passed() const { return all_within(verdicts); }
};

/// Throws InputError naming the plan file when a budget cannot be checked
/// (a TTFT increase with neither a measured nor a projected TTFT).
[[nodiscard]] PlanResult evaluate_plan(const Plan& plan);

}  // namespace tpnet
