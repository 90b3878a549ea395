#pragma once
/// `tpnet report`: one decision for a cluster, from the one choice `plan`
/// makes. The layout the charts are drawn at is the plan's best layout that
/// uses the network (or the one asked for), and every section (TTFT cost,
/// decode, layouts compared, memory, capacity, the step timeline) is priced
/// at that layout so the report and `plan` cannot disagree (docs/report.md).

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/usecase/calibration_use.hpp"
#include "tpnet/usecase/capacity.hpp"
#include "tpnet/usecase/compare.hpp"
#include "tpnet/usecase/decode.hpp"
#include "tpnet/usecase/expect.hpp"
#include "tpnet/usecase/memory.hpp"
#include "tpnet/usecase/penalty.hpp"
#include "tpnet/usecase/plan_search.hpp"
#include "tpnet/usecase/predict.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

namespace tpnet {

/// Requests per link the report's step timeline keeps.
inline constexpr std::size_t kReportChartRequests = 8;

struct DecisionRequest {
  PlanSearchRequest plan;
  /// `layout.tp`: the TP the penalty, decode and timeline sections are drawn at and
  /// the baseline was measured at; absent, the plan's best networked layout.
  std::optional<int> tp;
  /// `workload.baseline`: measured TTFTs at the fastest speed; empty, the workload's prompts.
  std::vector<PrefillScenario> baseline;
  std::string baseline_origin;
  std::optional<CalibrationInput> calibration;
  /// `fabric`: the profiles of the fastest and the slowest speed, in that
  /// order, that TTFT and decode are priced on. Empty (the default): the
  /// profiles of the fabric the plan buys for the layout drawn
  /// (priced_profiles), so the report prices what it tells you to buy.
  std::vector<FabricProfile> fabrics;
  /// `capacity`: measured sweeps under SLOs; absent, no capacity section.
  std::optional<CapacityRequest> capacity;
};

struct DecisionReport {
  ModelArch model;
  NodeSpec node;
  std::string workload;      ///< the workload's name
  int nodes = 0;             ///< the cluster's node count
  std::vector<Link> speeds;  ///< the speeds compared, in the request's order
  PlanSearchReport plan;
  /// The plan's first usable option, the one the verdict buys; absent when
  /// no layout is usable as asked.
  std::optional<std::size_t> chosen;
  int tp = 0;             ///< what the sections are drawn at
  bool tp_given = false;  ///< `tp` came with the request
  EngineConfig engine;    ///< the request's engine at `tp`
  Link from;              ///< the fastest speed
  Link to;                ///< the slowest speed
  std::vector<PrefillScenario> scenarios;
  std::vector<FabricProfile> fabrics;  ///< from, to
  PenaltyReport penalty;
  DecodeReport decode;
  std::shared_ptr<const CompareReport> compare;  ///< absent with no networked layout
  std::vector<MemoryReport> memory;              ///< by TP size, `tp` among them
  std::optional<CapacityReport> capacity;
  std::optional<PredictReport> predict;
  std::string predict_refused;  ///< why predict refused these inputs, when it did
  /// What the cluster is expected to give, layout by layout, from the node's
  /// public runs (tpnet expect); absent on a node without expected rates.
  std::optional<ExpectReport> expected;
  std::string expected_refused;  ///< why no expectation could be priced, when none was
  std::vector<std::string> warnings;

  /// The chosen option, or nullptr.
  [[nodiscard]] const PlanOption* chosen_option() const;
  /// The chosen option when the fabric it buys has a switch port plan to draw;
  /// nullptr when it buys none (TP1 replicas, a direct cable, a ring), so the
  /// switch drawn is always the one the verdict buys.
  [[nodiscard]] const PlanOption* switch_drawn() const;
  /// The test with the largest extra TTFT bound, or nullptr with none.
  [[nodiscard]] const ScenarioPenalty* worst_scenario() const;
};

/// Throws InputError naming `layout.tp` when no layout spreads an instance over two
/// or more nodes and none was asked for, or when vLLM refuses the asked TP;
/// and what each section's own run throws.
[[nodiscard]] DecisionReport run_decision_report(const DecisionRequest& request);

}  // namespace tpnet
