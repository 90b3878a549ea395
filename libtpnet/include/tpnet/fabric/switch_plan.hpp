#pragma once
/// Switch plans: how many nodes a switch takes at a per-node speed, which of
/// its ports to run in which breakout mode with which cables, what is left
/// over, and, when one switch is not enough, switches joined by inter-switch
/// links (ISLs); plus the switchless layouts (a direct cable, a 3- or 4-node ring).
/// Port arithmetic and its derivation: docs/formulas.md s.14.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/limits.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/fabric/switch_spec.hpp"

namespace tpnet {

/// Identical cages of one port group run one way.
struct PortUse {
  std::string group;       ///< port group name ("qsfp56-dd")
  std::string cage;        ///< "QSFP56-DD"
  BitRate cage_rate;       ///< the cage's native rate
  BreakoutMode mode;       ///< how each cage runs (4 x 100G)
  int cages = 0;           ///< cages run this way; one cable each
  int nodes = 0;           ///< nodes on their sub-ports (0 on ISL ports)
  int spare_subports = 0;  ///< sub-ports of these cages with no node
  bool isl = false;        ///< the cages carry inter-switch links
  std::string cable;       ///< one cable: "QSFP56-DD 400G to 4 x 100G breakout cable"
};

/// What a port group has left after a plan, and what it could still serve.
struct SparePorts {
  std::string group;
  std::string cage;
  BitRate rate;
  int cages = 0;            ///< whole cages unused
  int subports = 0;         ///< unused sub-ports on breakouts already cabled
  int more_nodes = 0;       ///< nodes at the plan's speed they could still take
  std::string could_serve;  ///< "4 more nodes at 100G (4x100G), or an uplink at 400G"
};

enum class SwitchRole { single, hub, leaf };
[[nodiscard]] std::string_view to_string(SwitchRole role);

/// One switch of a plan (or `copies` identical ones).
struct SwitchUnit {
  SwitchRole role = SwitchRole::single;
  int copies = 1;
  int nodes = 0;  ///< nodes on each copy
  std::vector<PortUse> ports;
  std::vector<SparePorts> spare;
  BitRate fabric_load;  ///< per direction: nodes x speed + ISL port rates
  BitRate fabric_capacity;

  [[nodiscard]] bool full_rate() const;  ///< fabric_load <= fabric_capacity
};

/// Inter-switch links of a multi-switch plan: each leaf joins the hub by a
/// LAG of `per_lag` cables (pair: one LAG between the two switches).
struct InterSwitchLinks {
  std::string cage;
  BitRate rate;          ///< one cable's rate
  int per_lag = 0;       ///< cables in each LAG
  int lags = 0;          ///< switches - 1
  BitRate lag_capacity;  ///< per_lag x rate, per direction
  /// Worst-case traffic one LAG must carry per direction: over the LAG whose
  /// cut is most loaded, min(nodes on one side, nodes on the other) x speed.
  BitRate worst_cross_traffic;
  double oversubscription = 0.0;  ///< worst_cross_traffic / lag_capacity; <= 1 is non-blocking
  /// What an all-to-all (EP's dispatch and combine) puts on the busiest LAG
  /// per direction when every node sends to every other at full rate: a
  /// leaf of a nodes sends a x (N - a)/(N - 1) x speed across it.
  BitRate all_to_all_cross_traffic;
  double all_to_all_oversubscription = 0.0;  ///< all_to_all_cross_traffic / lag_capacity

  [[nodiscard]] int cables() const { return per_lag * lags; }
};

enum class Topology { one_switch, pair, star };
[[nodiscard]] std::string_view to_string(Topology topology);

/// "2 x QSFP56-DD 400G to 4 x 100G breakout cable"
struct CableLine {
  int count = 0;
  std::string description;
  [[nodiscard]] std::string text() const;
};

/// One item of docs/background.md s.5's checklist before choosing a slower per-node
/// speed: what the catalog says, and what only the hardware can confirm.
struct PlanCheck {
  std::string check;
  std::string catalog;
  bool catalog_ok = true;
  std::string verify;
};

struct SwitchPlan {
  std::string switch_name;
  Topology topology = Topology::one_switch;
  int switches = 1;
  int nodes = 0;
  BitRate speed;
  std::vector<SwitchUnit> units;
  std::optional<InterSwitchLinks> isl;
  std::vector<CableLine> cables;  ///< the bill of cables, node cables first
  bool uses_breakouts = false;
  std::vector<SwitchTrap> traps;  ///< the switch's traps this plan meets
  std::vector<PlanCheck> checklist;
  std::string summary;  ///< one line: "2 x QSFP56-DD in 4x100G, 4 x 100G ports spare"

  [[nodiscard]] bool fabric_full_rate() const;  ///< every switch forwards its load at full rate
  /// Every node pair can send at full rate at once (an EP all-to-all): every
  /// switch at full rate and no LAG oversubscribed by the all-to-all.
  [[nodiscard]] bool all_to_all_full_rate() const;
  /// The busiest switch's fabric load over its fabric capacity, a fraction.
  [[nodiscard]] double peak_fabric_load() const;
  /// ISL oversubscription; 0 for one switch.
  [[nodiscard]] double oversubscription() const { return isl ? isl->oversubscription : 0.0; }
};

/// A switch model's answer for the requested cluster.
struct SwitchAnswer {
  std::string name;
  std::string model;
  bool supports_speed = false;
  std::string no_speed_reason;  ///< why not, when it does not
  int max_nodes = 0;            ///< one switch, every data port at the speed (the catalog's figure)
  int headline_nodes = 0;       ///< one switch, its fastest ports only (the usually quoted figure)
  std::string headline_note;    ///< why the two differ; empty when they agree
  bool fits_one = false;
  /// One-switch plan when the nodes fit; else the fewest-switch plan and, when
  /// that one is oversubscribed, the fewest-switch non-blocking plan if any.
  std::vector<SwitchPlan> plans;
  int switches_needed = 0;   ///< 0: no plan of up to `max_switches` fits
  int max_switches = 0;      ///< the most switches a multi-switch search considered
  int most_nodes_multi = 0;  ///< the most nodes any multi-switch plan took (none fits)
  std::string verdict;
};

/// A layout without a switch.
struct SwitchlessOption {
  std::string topology;  ///< "none needed", "direct cable", "ring"
  int nodes = 0;
  int cables = 0;
  std::string cable;
  BitRate link_rate;      ///< one cable's rate
  BitRate per_node_rate;  ///< what a node moves in total
  std::vector<std::string> notes;
};

struct SwitchPlanReport {
  int nodes = 0;
  BitRate speed;          ///< per node, requested
  BitRate per_node_rate;  ///< min(speed, the node's network rate)
  NodeSpec node;
  std::vector<SwitchAnswer> switches;
  std::vector<SwitchlessOption> switchless;
  std::vector<std::string> warnings;
};

/// Nodes one switch takes at `speed`, one sub-port each, over every data port
/// group in its densest mode at that speed: sum of count x sub-ports.
[[nodiscard]] int max_nodes_on(const SwitchSpec& sw, BitRate speed);

/// The same over the fastest data ports alone: the figure usually quoted
/// (docs/background.md s.5: CRS812 4 at 200G, 8 at 100G).
[[nodiscard]] int headline_nodes_on(const SwitchSpec& sw, BitRate speed);

/// The plan for `nodes` on one switch; nullopt when they do not fit.
[[nodiscard]] std::optional<SwitchPlan> plan_one_switch(const SwitchSpec& sw, const NodeSpec& node,
                                                        int nodes, BitRate speed);

/// Multi-switch plans of identical switches in a star (a hub and leaves;
/// two switches are a pair): the fewest switches that fit, least
/// oversubscribed; then, if that one is oversubscribed, the fewest-switch
/// non-blocking plan. Empty when none fits.
[[nodiscard]] std::vector<SwitchPlan> plan_multi_switch(const SwitchSpec& sw, const NodeSpec& node,
                                                        int nodes, BitRate speed);

/// Layouts with no switch: 1 node needs none, 2 nodes one direct cable,
/// 3 or 4 nodes a ring (each node's two ports to its two neighbours).
[[nodiscard]] std::vector<SwitchlessOption> switchless_options(const NodeSpec& node, int nodes);

/// Everything about one switch model for the cluster.
[[nodiscard]] SwitchAnswer answer_for_switch(const SwitchSpec& sw, const NodeSpec& node, int nodes,
                                             BitRate speed);

/// The whole answer over `switches`. Throws InputError (key `nodes` or
/// `speed`) for a node count outside 1..kMaxClusterNodes, a speed the node's
/// ports cannot link at, or a speed none of `switches` offers. `nodes` is
/// taken as asked (a long long) and narrowed only once it is in range, so a
/// count past int's range is refused with the count given.
[[nodiscard]] SwitchPlanReport plan_switches(const std::vector<SwitchSpec>& switches,
                                             const NodeSpec& node, long long nodes, BitRate speed);

}  // namespace tpnet
