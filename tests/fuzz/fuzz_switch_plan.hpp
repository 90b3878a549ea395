#pragma once
// Switch plans from a fuzzed switch or node: every count non-negative and
// every rate finite.

#include <vector>

#include "fuzz_check.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/fabric/switch_plan.hpp"
#include "tpnet/fabric/switch_spec.hpp"

namespace tpnet::fuzz {

inline void check_switch_plan(const SwitchPlan& p) {
  within(p.switches, 1.0, 1e6, "plan switches");
  within(p.nodes, 1.0, 1e6, "plan nodes");
  positive(p.speed, "plan speed");
  non_negative(p.oversubscription(), "oversubscription");
  for (const auto& c : p.cables) non_negative(c.count, "cable count");
}

/// plan_switches over `switches` for `nodes` nodes at `speed`; InputErrors
/// (a speed no switch offers) are fine.
inline void analyze_switches(const std::vector<SwitchSpec>& switches, const NodeSpec& node,
                             int nodes, BitRate speed) {
  contract(Origin::any, [&] {
    const SwitchPlanReport r = plan_switches(switches, node, nodes, speed);
    positive(r.per_node_rate, "per_node_rate");
    for (const auto& a : r.switches) {
      non_negative(a.max_nodes, "max_nodes");
      non_negative(a.headline_nodes, "headline_nodes");
      non_negative(a.switches_needed, "switches_needed");
      non_negative(a.most_nodes_multi, "most_nodes_multi");
      for (const auto& p : a.plans) check_switch_plan(p);
    }
    for (const auto& s : r.switchless) {
      non_negative(s.cables, "switchless cables");
      non_negative(s.link_rate, "switchless link_rate");
      non_negative(s.per_node_rate, "switchless per_node_rate");
    }
  });
}

}  // namespace tpnet::fuzz
