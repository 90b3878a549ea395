#pragma once
/// `tpnet switch`: which switches take N nodes at a per-node speed, each with
/// its port plan (breakouts, cables, spare ports, traps), the multi-switch
/// layouts and the switchless options (docs/switch.md). The plans themselves
/// are fabric's (tpnet/fabric/switch_plan.hpp); `tpnet report` draws them.

#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/fabric/switch_plan.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet {

/// Everything `tpnet switch` answers depends on.
struct SwitchRequest {
  std::vector<SwitchSpec> switches;  ///< `switches`: the models to plan with
  NodeSpec node;                     ///< `node`: its ports and host links
  /// `nodes`, as asked: a count past int's range is refused with the count given.
  long long nodes = 0;
  BitRate speed;  ///< `speed`: per node
};

/// Throws InputError naming `nodes` (outside 1 to kMaxClusterNodes), `speed`
/// (not a speed the node's ports link at, or none of the switches offers)
/// or `switches` (none given).
[[nodiscard]] SwitchPlanReport run_switch(const SwitchRequest& request);

/// The nodes and their ports, a summary row per switch (its plans in JSON),
/// the switchless options, and per plan the port table, cables, traps and
/// checklist: every key of `tpnet switch`'s JSON (docs/json.md).
/// The answer first: which switches take the nodes alone, which need a star
/// (with its inter-switch oversubscription), and which have no plan.
[[nodiscard]] std::vector<std::string> switch_answer(const SwitchPlanReport& report);

[[nodiscard]] Document switch_report_document(const SwitchPlanReport& report);

}  // namespace tpnet
