#include "tpnet/fabric/switch_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace tpnet {
namespace {

bool is_data(const PortGroup& g) { return g.role == PortRole::data; }

/// Sub-ports one cage of `g` offers at `speed` in its densest mode; 0 when none runs at it.
int density(const PortGroup& g, BitRate speed) {
  if (!is_data(g)) return 0;
  const auto mode = g.densest_mode_at(speed);
  return mode ? mode->count : 0;
}

/// Cages free per port group (management groups: none).
std::vector<int> all_cages(const SwitchSpec& sw) {
  std::vector<int> cages;
  for (const auto& g : sw.port_groups) cages.push_back(is_data(g) ? g.count : 0);
  return cages;
}

/// sum over groups of free cages x sub-ports per cage at `speed`.
int nodes_on_cages(const SwitchSpec& sw, const std::vector<int>& cages, BitRate speed) {
  int nodes = 0;
  for (std::size_t i = 0; i < sw.port_groups.size(); ++i) {
    nodes += cages[i] * density(sw.port_groups[i], speed);
  }
  return nodes;
}

std::string node_cable(const PortGroup& g, const BreakoutMode& m) {
  if (m.breakout()) {
    return fmt::format("{} {} to {} x {} breakout cable", g.cage, rate_label(g.rate), m.count,
                       rate_label(m.speed));
  }
  if (same_rate(m.speed, g.rate)) return fmt::format("{} {} cable", g.cage, rate_label(g.rate));
  return fmt::format("{} cable run at {}", g.cage, rate_label(m.speed));
}

std::string isl_cable(const PortGroup& g) {
  return fmt::format("{} {} cable between switches", g.cage, rate_label(g.rate));
}

std::string plural(int count, std::string_view word) {
  return fmt::format("{} {}{}", count, word, count == 1 ? "" : "s");
}

/// "2:1", "1.5:1"
std::string ratio_label(double ratio) {
  return fmt::format("{:g}:1", std::round(ratio * 100.0) / 100.0);
}

/// Groups in the order nodes fill them: most sub-ports per cage at the speed
/// first (fewest cables), then the faster cage, then catalog order.
std::vector<std::size_t> fill_order(const SwitchSpec& sw, BitRate speed) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < sw.port_groups.size(); ++i) {
    if (density(sw.port_groups[i], speed) > 0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& ga = sw.port_groups[a];
    const auto& gb = sw.port_groups[b];
    const int da = density(ga, speed);
    const int db = density(gb, speed);
    if (da != db) return da > db;
    return ga.rate > gb.rate;
  });
  return order;
}

/// The mode at `speed` with the fewest sub-ports that still takes `nodes`
/// (a partly used cage: one straight cable rather than a breakout when it can).
BreakoutMode smallest_mode_for(const PortGroup& g, BitRate speed, int nodes) {
  std::optional<BreakoutMode> best;
  for (const auto& mode : g.modes) {
    if (!same_rate(mode.speed, speed) || mode.count < nodes) continue;
    if (!best || mode.count < best->count) best = mode;
  }
  return *best;  // the densest mode always qualifies
}

PortUse use_of(const PortGroup& g, const BreakoutMode& mode, int cages, int nodes) {
  PortUse use;
  use.group = g.name;
  use.cage = g.cage;
  use.cage_rate = g.rate;
  use.mode = mode;
  use.cages = cages;
  use.nodes = nodes;
  use.spare_subports = cages * mode.count - nodes;
  use.cable = node_cable(g, mode);
  return use;
}

/// One switch carrying `nodes` nodes and `isl_cages` ISL cages of group `isl_group`.
SwitchUnit place(const SwitchSpec& sw, std::vector<int> free, int nodes, BitRate speed,
                 SwitchRole role, std::optional<std::size_t> isl_group, int isl_cages) {
  SwitchUnit unit;
  unit.role = role;
  unit.nodes = nodes;
  unit.fabric_capacity = sw.fabric_capacity;
  double load_bps = nodes * speed.bits_per_second();
  if (isl_group) free[*isl_group] -= isl_cages;  // ISL cages first: nodes take what is left

  std::vector<int> spare_subports(sw.port_groups.size(), 0);
  int remaining = nodes;
  const std::vector<std::size_t> order = fill_order(sw, speed);
  for (std::size_t k = 0; k < order.size() && remaining > 0; ++k) {
    const std::size_t i = order[k];
    const PortGroup& g = sw.port_groups[i];
    const BreakoutMode densest = *g.densest_mode_at(speed);
    const int full = std::min(free[i], remaining / densest.count);
    if (full > 0) {
      unit.ports.push_back(use_of(g, densest, full, full * densest.count));
      free[i] -= full;
      remaining -= full * densest.count;
    }
    if (remaining == 0 || free[i] == 0) continue;
    // Fewer nodes than a cage of this group takes: put them on the cage, of
    // this group or a later one, that leaves the fewest sub-ports unused.
    std::optional<std::size_t> best;
    int best_waste = 0;
    for (std::size_t m = k; m < order.size(); ++m) {
      const PortGroup& candidate = sw.port_groups[order[m]];
      if (free[order[m]] == 0 || density(candidate, speed) < remaining) continue;
      const int waste = smallest_mode_for(candidate, speed, remaining).count - remaining;
      if (!best || waste < best_waste) {
        best = order[m];
        best_waste = waste;
      }
    }
    const PortGroup& target = sw.port_groups[*best];
    PortUse partial = use_of(target, smallest_mode_for(target, speed, remaining), 1, remaining);
    spare_subports[*best] += partial.spare_subports;
    unit.ports.push_back(std::move(partial));
    free[*best] -= 1;
    remaining = 0;
  }
  if (remaining > 0) {
    throw Error(fmt::format("internal error: {} nodes placed beyond the capacity of {}", remaining,
                            sw.name));
  }

  if (isl_group && isl_cages > 0) {
    const PortGroup& g = sw.port_groups[*isl_group];
    PortUse isl;
    isl.group = g.name;
    isl.cage = g.cage;
    isl.cage_rate = g.rate;
    isl.mode = BreakoutMode{1, g.rate};
    isl.cages = isl_cages;
    isl.isl = true;
    isl.cable = isl_cable(g);
    unit.ports.push_back(std::move(isl));
    load_bps += isl_cages * g.rate.bits_per_second();
  }
  unit.fabric_load = BitRate(load_bps);

  for (std::size_t i = 0; i < sw.port_groups.size(); ++i) {
    const PortGroup& g = sw.port_groups[i];
    if (!is_data(g) || (free[i] == 0 && spare_subports[i] == 0)) continue;
    SparePorts spare;
    spare.group = g.name;
    spare.cage = g.cage;
    spare.rate = g.rate;
    spare.cages = free[i];
    spare.subports = spare_subports[i];
    const int d = density(g, speed);
    spare.more_nodes = spare.cages * d + spare.subports;
    std::vector<std::string> uses;
    if (spare.more_nodes > 0) {
      uses.push_back(fmt::format("{} more node{} at {}", spare.more_nodes,
                                 spare.more_nodes == 1 ? "" : "s", rate_label(speed)));
    } else {
      uses.push_back(fmt::format("no node at {} (no such mode)", rate_label(speed)));
    }
    if (spare.cages > 0) {
      uses.push_back(spare.cages == 1
                         ? fmt::format("an uplink at up to {}", rate_label(g.rate))
                         : fmt::format("uplinks at up to {} each", rate_label(g.rate)));
    }
    spare.could_serve = uses.size() == 1 ? uses[0] : uses[0] + ", or " + uses[1];
    unit.spare.push_back(std::move(spare));
  }
  return unit;
}

std::string modes_used(const std::vector<SwitchUnit>& units, bool breakouts_only) {
  std::vector<std::string> parts;
  for (const auto& unit : units) {
    for (const auto& use : unit.ports) {
      if (use.isl || (breakouts_only && !use.mode.breakout())) continue;
      const std::string part =
          fmt::format("{} on {} {}", use.mode.name(), use.cage, rate_label(use.cage_rate));
      if (std::find(parts.begin(), parts.end(), part) == parts.end()) parts.push_back(part);
    }
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

/// "2 lanes of 50G": what one sub-port is made of electrically.
std::string lanes_of(const PortUse& use) {
  const auto lanes = cage_lanes(use.cage).value_or(1);
  const int per_subport = std::max(1, lanes / use.mode.count);
  return fmt::format("{} of {}", plural(per_subport, "lane"),
                     rate_label(use.mode.speed / static_cast<double>(per_subport)));
}

std::vector<PlanCheck> checklist_for(const SwitchSpec& sw, const NodeSpec& node,
                                     const SwitchPlan& plan) {
  std::vector<PlanCheck> checks;
  const std::string speed = rate_label(plan.speed);

  PlanCheck breakout;
  breakout.check = "breakout support on the planned ports";
  if (plan.uses_breakouts) {
    breakout.check += ": " + modes_used(plan.units, true);
    breakout.catalog = sw.model + " lists these modes";
    breakout.verify = fmt::format(
        "the switch's firmware offers the sub-ports on these cages and each links at {} (force "
        "the speed where it does not auto-negotiate)",
        speed);
  } else {
    breakout.catalog = "none needed: one cable per node";
    breakout.verify = "nothing";
  }
  checks.push_back(std::move(breakout));

  PlanCheck nic;
  std::vector<std::string> cables;
  std::vector<std::string> lanes;
  for (const auto& unit : plan.units) {
    for (const auto& use : unit.ports) {
      if (use.isl) continue;
      if (std::find(cables.begin(), cables.end(), use.cable) == cables.end()) {
        cables.push_back(use.cable);
        lanes.push_back(lanes_of(use));
      }
    }
  }
  std::string cable_text;
  for (std::size_t i = 0; i < cables.size(); ++i) {
    cable_text += (i == 0 ? "" : "; ") + cables[i] + " (" + lanes[i] + " per node)";
  }
  const std::string nic_name = node.nic.empty() ? node.name + " NIC" : node.nic;
  nic.check =
      fmt::format("the {} links at {} with the chosen cable: {}", nic_name, speed, cable_text);
  nic.catalog_ok = node.ports.supports(plan.speed);
  nic.catalog = fmt::format("{} {} {} among its port speeds", node.name,
                            nic.catalog_ok ? "lists" : "does not list", speed);
  nic.verify = fmt::format(
      "only the hardware tells: the link must come up at {} on both ends with this cable and "
      "lane layout",
      speed);
  checks.push_back(std::move(nic));

  PlanCheck fabric;
  fabric.check = "the switch forwards full rate on all ports at once";
  BitRate worst_load;
  for (const auto& unit : plan.units) worst_load = std::max(worst_load, unit.fabric_load);
  fabric.catalog_ok = plan.fabric_full_rate();
  fabric.catalog =
      fmt::format("{} fabric {} per direction, {} planned: {}",
                  sw.chip.empty() ? sw.model : sw.chip, rate_label(sw.fabric_capacity),
                  rate_label(worst_load), fabric.catalog_ok ? "full rate" : "blocking");
  fabric.verify =
      "run ib_write_bw between every node pair at once and compare each with one pair alone";
  checks.push_back(std::move(fabric));

  if (plan.isl) {
    PlanCheck isl;
    isl.check = "the inter-switch links carry what crosses them";
    isl.catalog_ok = plan.isl->oversubscription <= 1.0 + 1e-9;
    isl.catalog =
        fmt::format("worst case {} over a {} LAG: {}{}", rate_label(plan.isl->worst_cross_traffic),
                    rate_label(plan.isl->lag_capacity), ratio_label(plan.isl->oversubscription),
                    isl.catalog_ok ? " (non-blocking)" : " oversubscribed");
    isl.verify =
        "run two cross-switch flows at once: two flows sharing a saturated ISL each get a share "
        "(~82 Gb/s each on 200G)";
    checks.push_back(std::move(isl));

    PlanCheck all_pairs;
    all_pairs.check = "every node pair sends at once (an EP all-to-all)";
    all_pairs.catalog_ok = plan.all_to_all_full_rate();
    all_pairs.catalog = fmt::format(
        "all-to-all {} over a {} LAG: {}{}", rate_label(plan.isl->all_to_all_cross_traffic),
        rate_label(plan.isl->lag_capacity), ratio_label(plan.isl->all_to_all_oversubscription),
        all_pairs.catalog_ok ? " (full rate)" : " oversubscribed");
    all_pairs.verify =
        "run tpnet-calibrate alltoall over every node and compare its bus bandwidth with one "
        "pair's";
    checks.push_back(std::move(all_pairs));
  }
  return checks;
}

/// Fills in what every plan derives from its units: cables, breakouts,
/// traps, checklist and summary.
SwitchPlan finish(const SwitchSpec& sw, const NodeSpec& node, SwitchPlan plan) {
  plan.switch_name = sw.name;
  std::vector<CableLine> node_cables;
  std::vector<CableLine> isl_cables;
  for (const auto& unit : plan.units) {
    for (const auto& use : unit.ports) {
      plan.uses_breakouts = plan.uses_breakouts || (!use.isl && use.mode.breakout());
      auto& lines = use.isl ? isl_cables : node_cables;
      auto it = std::find_if(lines.begin(), lines.end(),
                             [&](const CableLine& line) { return line.description == use.cable; });
      if (it == lines.end()) {
        lines.push_back(CableLine{0, use.cable});
        it = lines.end() - 1;
      }
      it->count += use.cages * unit.copies;
    }
  }
  // An ISL cable joins two switches: count cables, not cages.
  for (auto& line : isl_cables) line.count /= 2;
  plan.cables = node_cables;
  plan.cables.insert(plan.cables.end(), isl_cables.begin(), isl_cables.end());

  for (const auto& trap : sw.traps) {
    const bool applies = trap.when == TrapWhen::always ||
                         (trap.when == TrapWhen::breakout && plan.uses_breakouts) ||
                         (trap.when == TrapWhen::multi_switch && plan.switches > 1);
    if (applies) plan.traps.push_back(trap);
  }
  plan.checklist = checklist_for(sw, node, plan);

  if (plan.topology == Topology::one_switch) {
    for (const auto& use : plan.units.front().ports) {
      plan.summary += fmt::format("{}{} x {} {} as {}", plan.summary.empty() ? "" : ", ", use.cages,
                                  use.cage, rate_label(use.cage_rate), use.mode.name());
    }
    int spare_nodes = 0;
    for (const auto& spare : plan.units.front().spare) spare_nodes += spare.more_nodes;
    if (spare_nodes > 0) plan.summary += fmt::format("; room for {} more", spare_nodes);
  } else {
    const SwitchUnit& hub = plan.units.front();
    std::string leaves;
    for (std::size_t i = 1; i < plan.units.size(); ++i) {
      const auto& u = plan.units[i];
      leaves += fmt::format("{}{} with {} each", leaves.empty() ? "" : ", ",
                            plural(u.copies, plan.topology == Topology::pair ? "switch" : "leaf"),
                            plural(u.nodes, "node"));
    }
    if (plan.topology == Topology::pair) {
      plan.summary = fmt::format("2 x {}: {} + {} nodes", sw.name, hub.nodes, plan.units[1].nodes);
    } else {
      plan.summary = fmt::format("{} x {}: hub with {}, {}", plan.switches, sw.name,
                                 plural(hub.nodes, "node"), leaves);
    }
    plan.summary += fmt::format("; {} x {} ISL{} ({} per LAG), {}", plan.isl->cables(),
                                rate_label(plan.isl->rate), plan.isl->cables() == 1 ? "" : "s",
                                plan.isl->per_lag, ratio_label(plan.isl->oversubscription));
  }
  return plan;
}

/// A star of `k` identical switches: the hub joins each of k-1 leaves by a
/// LAG of `u` cages of group `g`. The hub takes what it can (leaving each
/// leaf at least one node), the leaves share the rest evenly, which keeps the
/// nodes on the far side of each LAG as few as possible.
struct StarCandidate {
  int k = 0;
  std::size_t g = 0;
  int u = 0;
  int hub_nodes = 0;
  int leaf_low = 0;     ///< nodes on the lighter leaves
  int leaf_high_n = 0;  ///< leaves with one node more
  BitRate cross;
  double ratio = 0.0;
  BitRate all_to_all_cross;
  double all_to_all_ratio = 0.0;
  int capacity = 0;
};

std::optional<StarCandidate> star(const SwitchSpec& sw, int nodes, BitRate speed, int k,
                                  std::size_t g, int u, int& most_nodes) {
  const PortGroup& group = sw.port_groups[g];
  // A LAG puts each flow on one member: a member slower than a node's link
  // would cap every flow that crosses it.
  const bool fast_enough = group.rate >= speed || same_rate(group.rate, speed);
  if (!is_data(group) || !fast_enough || (k - 1) * u > group.count) return std::nullopt;
  std::vector<int> leaf_free = all_cages(sw);
  std::vector<int> hub_free = leaf_free;
  leaf_free[g] -= u;
  hub_free[g] -= (k - 1) * u;
  const int leaf_cap = nodes_on_cages(sw, leaf_free, speed);
  const int hub_cap = nodes_on_cages(sw, hub_free, speed);
  if (leaf_cap < 1) return std::nullopt;
  const long long capacity = hub_cap + static_cast<long long>(k - 1) * leaf_cap;
  most_nodes =
      static_cast<int>(std::max<long long>(most_nodes, std::min<long long>(capacity, 1 << 30)));
  if (capacity < nodes || nodes < k) return std::nullopt;

  StarCandidate c;
  c.k = k;
  c.g = g;
  c.u = u;
  c.capacity = static_cast<int>(capacity);
  c.hub_nodes = std::min(hub_cap, nodes - (k - 1));
  const int rest = nodes - c.hub_nodes;
  c.leaf_low = rest / (k - 1);
  c.leaf_high_n = rest % (k - 1);
  const auto cut = [&](int n_leaf) { return std::min(n_leaf, nodes - n_leaf); };
  const int worst = std::max(cut(c.leaf_low), c.leaf_high_n > 0 ? cut(c.leaf_low + 1) : 0);
  c.cross = speed * static_cast<double>(worst);
  c.ratio = c.cross / (group.rate * static_cast<double>(u));
  // Uniform all-to-all: each node sends 1/(N-1) of its rate to every other,
  // so a leaf of a nodes sends a(N-a)/(N-1) node-rates across its LAG; the
  // hub's side of each LAG carries the same back. a(N-a) grows with a up to
  // N/2, so the busiest LAG is the most evenly cut one.
  const auto all_to_all = [&](int n_leaf) {
    return static_cast<double>(n_leaf) * (nodes - n_leaf) / static_cast<double>(nodes - 1);
  };
  const double busiest =
      std::max(all_to_all(c.leaf_low), c.leaf_high_n > 0 ? all_to_all(c.leaf_low + 1) : 0.0);
  c.all_to_all_cross = speed * busiest;
  c.all_to_all_ratio = c.all_to_all_cross / (group.rate * static_cast<double>(u));
  return c;
}

/// Fewer switches, then less oversubscribed, then fewer ISL cables.
bool better(const StarCandidate& a, const StarCandidate& b) {
  if (a.k != b.k) return a.k < b.k;
  if (std::fabs(a.ratio - b.ratio) > 1e-9) return a.ratio < b.ratio;
  return (a.k - 1) * a.u < (b.k - 1) * b.u;
}

SwitchPlan plan_from(const SwitchSpec& sw, const NodeSpec& node, int nodes, BitRate speed,
                     const StarCandidate& c) {
  SwitchPlan plan;
  plan.topology = c.k == 2 ? Topology::pair : Topology::star;
  plan.switches = c.k;
  plan.nodes = nodes;
  plan.speed = speed;
  const std::vector<int> cages = all_cages(sw);
  plan.units.push_back(place(sw, cages, c.hub_nodes, speed, SwitchRole::hub, c.g, (c.k - 1) * c.u));
  const int low_n = (c.k - 1) - c.leaf_high_n;
  if (c.leaf_high_n > 0) {
    SwitchUnit leaf = place(sw, cages, c.leaf_low + 1, speed, SwitchRole::leaf, c.g, c.u);
    leaf.copies = c.leaf_high_n;
    plan.units.push_back(std::move(leaf));
  }
  if (low_n > 0) {
    SwitchUnit leaf = place(sw, cages, c.leaf_low, speed, SwitchRole::leaf, c.g, c.u);
    leaf.copies = low_n;
    plan.units.push_back(std::move(leaf));
  }
  const PortGroup& g = sw.port_groups[c.g];
  InterSwitchLinks isl;
  isl.cage = g.cage;
  isl.rate = g.rate;
  isl.per_lag = c.u;
  isl.lags = c.k - 1;
  isl.lag_capacity = g.rate * static_cast<double>(c.u);
  isl.worst_cross_traffic = c.cross;
  isl.oversubscription = c.ratio;
  isl.all_to_all_cross_traffic = c.all_to_all_cross;
  isl.all_to_all_oversubscription = c.all_to_all_ratio;
  plan.isl = isl;
  return finish(sw, node, std::move(plan));
}

struct StarSearch {
  std::optional<StarCandidate> fewest;
  std::optional<StarCandidate> non_blocking;
  int max_switches = 0;
  int most_nodes = 0;
};

StarSearch search_stars(const SwitchSpec& sw, int nodes, BitRate speed) {
  StarSearch s;
  int most_cages = 0;
  for (const auto& g : sw.port_groups) {
    const bool isl_capable = g.rate >= speed || same_rate(g.rate, speed);
    if (is_data(g) && isl_capable) most_cages = std::max(most_cages, g.count);
  }
  s.max_switches = std::min(nodes, most_cages + 1);
  for (int k = 2; k <= s.max_switches; ++k) {
    std::optional<StarCandidate> best;
    std::optional<StarCandidate> best_free;
    for (std::size_t g = 0; g < sw.port_groups.size(); ++g) {
      for (int u = 1; (k - 1) * u <= sw.port_groups[g].count; ++u) {
        const auto c = star(sw, nodes, speed, k, g, u, s.most_nodes);
        if (!c) continue;
        if (!best || better(*c, *best)) best = c;
        if (c->ratio <= 1.0 + 1e-9 && (!best_free || better(*c, *best_free))) best_free = c;
      }
    }
    if (best && !s.fewest) s.fewest = best;
    if (best_free) {
      s.non_blocking = best_free;
      break;
    }
  }
  return s;
}

}  // namespace

std::string_view to_string(SwitchRole role) {
  switch (role) {
    case SwitchRole::single:
      return "single";
    case SwitchRole::hub:
      return "hub";
    case SwitchRole::leaf:
      return "leaf";
  }
  return "single";
}

std::string_view to_string(Topology topology) {
  switch (topology) {
    case Topology::one_switch:
      return "one switch";
    case Topology::pair:
      return "pair";
    case Topology::star:
      return "star";
  }
  return "one switch";
}

std::string CableLine::text() const { return fmt::format("{} x {}", count, description); }

bool SwitchUnit::full_rate() const {
  return fabric_load <= fabric_capacity || same_rate(fabric_load, fabric_capacity);
}

bool SwitchPlan::fabric_full_rate() const {
  return std::all_of(units.begin(), units.end(), [](const SwitchUnit& u) { return u.full_rate(); });
}

bool SwitchPlan::all_to_all_full_rate() const {
  return fabric_full_rate() && (!isl || isl->all_to_all_oversubscription <= 1.0 + 1e-9);
}

double SwitchPlan::peak_fabric_load() const {
  double load = 0.0;
  for (const auto& unit : units) {
    if (unit.fabric_capacity.bits_per_second() > 0.0) {
      load = std::max(load, unit.fabric_load / unit.fabric_capacity);
    }
  }
  return load;
}

int max_nodes_on(const SwitchSpec& sw, BitRate speed) {
  return nodes_on_cages(sw, all_cages(sw), speed);
}

int headline_nodes_on(const SwitchSpec& sw, BitRate speed) {
  BitRate fastest;
  for (const auto& g : sw.port_groups) {
    if (is_data(g)) fastest = std::max(fastest, g.rate);
  }
  int nodes = 0;
  for (const auto& g : sw.port_groups) {
    if (is_data(g) && same_rate(g.rate, fastest)) nodes += g.count * density(g, speed);
  }
  return nodes;
}

std::optional<SwitchPlan> plan_one_switch(const SwitchSpec& sw, const NodeSpec& node, int nodes,
                                          BitRate speed) {
  if (nodes < 1 || max_nodes_on(sw, speed) < nodes) return std::nullopt;
  SwitchPlan plan;
  plan.nodes = nodes;
  plan.speed = speed;
  plan.units.push_back(place(sw, all_cages(sw), nodes, speed, SwitchRole::single, std::nullopt, 0));
  return finish(sw, node, std::move(plan));
}

std::vector<SwitchPlan> plan_multi_switch(const SwitchSpec& sw, const NodeSpec& node, int nodes,
                                          BitRate speed) {
  std::vector<SwitchPlan> plans;
  const StarSearch s = search_stars(sw, nodes, speed);
  if (s.fewest) plans.push_back(plan_from(sw, node, nodes, speed, *s.fewest));
  if (s.non_blocking && (!s.fewest || s.fewest->ratio > 1.0 + 1e-9)) {
    plans.push_back(plan_from(sw, node, nodes, speed, *s.non_blocking));
  }
  return plans;
}

std::vector<SwitchlessOption> switchless_options(const NodeSpec& node, int nodes) {
  std::vector<SwitchlessOption> out;
  const BitRate total = node.network_rate();
  const std::string cable =
      fmt::format("{} {} cable", node.ports.cage, rate_label(node.ports.rate));
  if (nodes == 1) {
    SwitchlessOption one;
    one.topology = "none needed";
    one.nodes = 1;
    one.per_node_rate = total;
    one.notes.emplace_back("one node needs no network; tensor parallelism starts at two");
    out.push_back(std::move(one));
  } else if (nodes == 2) {
    SwitchlessOption direct;
    direct.topology = "direct cable";
    direct.nodes = 2;
    direct.cables = 1;
    direct.cable = cable;
    direct.link_rate = node.ports.rate;
    direct.per_node_rate = std::min(node.ports.rate, total);
    direct.notes.push_back(fmt::format(
        "no switch and no breakout: the cable runs at the port's {} whatever speed was asked for",
        rate_label(node.ports.rate)));
    if (node.ports.count > 1) {
      direct.notes.push_back(fmt::format(
          "a second cable on the other port adds nothing: a {} moves {} in total however it is "
          "cabled",
          node.name, rate_label(total)));
    }
    out.push_back(std::move(direct));
  } else if ((nodes == 3 || nodes == 4) && node.ports.count >= 2) {
    SwitchlessOption ring;
    ring.topology = "ring";
    ring.nodes = nodes;
    ring.cables = nodes;
    ring.cable = cable;
    ring.link_rate = node.ports.rate;
    ring.per_node_rate = total;
    if (nodes == 3) {
      ring.notes.emplace_back(
          "each node's two ports go to its two neighbours: in a ring of three every node reaches "
          "both others directly, so none forwards for another");
    } else {
      ring.notes.emplace_back(
          "each node's two ports go to its two neighbours: opposite nodes have no cable, so "
          "NCCL's tree cannot connect and only a ring-only NCCL initialises (stock NCCL does not)");
    }
    ring.notes.push_back(fmt::format(
        "NCCL's ring sends one way round: each node transmits on one port and receives on the "
        "other, so an all-reduce moves bytes at one RDMA device's rate, about half of the {} a "
        "switch port gives",
        rate_label(total)));
    if (nodes > 3) {
      ring.notes.emplace_back(
          "expert parallelism's all-to-all sends between every pair of nodes: opposite nodes "
          "have no cable and nothing forwards between them, so EP over four nodes needs a switch");
    }
    ring.notes.emplace_back("each cable is its own point-to-point link: give each its own subnet");
    out.push_back(std::move(ring));
  }
  return out;
}

SwitchAnswer answer_for_switch(const SwitchSpec& sw, const NodeSpec& node, int nodes,
                               BitRate speed) {
  SwitchAnswer a;
  a.name = sw.name;
  a.model = sw.model;
  const std::string speed_text = rate_label(speed);
  a.max_nodes = max_nodes_on(sw, speed);
  a.headline_nodes = headline_nodes_on(sw, speed);
  a.supports_speed = a.max_nodes > 0;
  if (!a.supports_speed) {
    std::string speeds;
    for (const auto& s : sw.speeds()) speeds += (speeds.empty() ? "" : ", ") + rate_label(s);
    a.no_speed_reason =
        fmt::format("no port of {} runs at {}; its ports run at {}", sw.name, speed_text, speeds);
    a.verdict = fmt::format("no port runs at {}", speed_text);
    return a;
  }

  if (a.headline_nodes != a.max_nodes) {
    BitRate fastest;
    for (const auto& g : sw.port_groups) {
      if (is_data(g)) fastest = std::max(fastest, g.rate);
    }
    std::string quoted;
    std::string others;
    for (const auto& g : sw.port_groups) {
      if (!is_data(g)) continue;
      const auto mode = g.densest_mode_at(speed);
      if (same_rate(g.rate, fastest)) {
        quoted += (quoted.empty() ? "" : " and ") + g.label() +
                  (mode ? " ports (each as " + mode->name() + ")" : " ports (no such mode)");
      } else if (mode) {
        others += fmt::format("{}{} ports as {} (+{})", others.empty() ? "" : ", ", g.label(),
                              mode->name(), g.count * mode->count);
      }
    }
    a.headline_note = fmt::format(
        "{} is the figure usually quoted, counting only the {}; the catalog also "
        "counts the {}",
        a.headline_nodes, quoted, others);
  }

  if (auto one = plan_one_switch(sw, node, nodes, speed)) {
    a.fits_one = true;
    a.switches_needed = 1;
    a.plans.push_back(std::move(*one));
    a.verdict = fmt::format("fits one switch: {} of the {} nodes it takes at {}", nodes,
                            a.max_nodes, speed_text);
    return a;
  }
  const StarSearch s = search_stars(sw, nodes, speed);
  a.max_switches = s.max_switches;
  a.most_nodes_multi = s.most_nodes;
  a.plans = plan_multi_switch(sw, node, nodes, speed);
  if (a.plans.empty()) {
    a.verdict =
        fmt::format("does not fit: one switch takes {}, a star of up to {} {}s at most {}",
                    a.max_nodes, s.max_switches, sw.name, std::max(a.max_nodes, s.most_nodes));
    return a;
  }
  const SwitchPlan& first = a.plans.front();
  a.switches_needed = first.switches;
  a.verdict = fmt::format("one switch takes {}; {} need {} switches, ISL {}", a.max_nodes, nodes,
                          first.switches, ratio_label(first.oversubscription()));
  if (first.oversubscription() <= 1.0 + 1e-9) {
    a.verdict += " (non-blocking)";
  } else if (a.plans.size() > 1) {
    a.verdict += fmt::format("; non-blocking with {}", a.plans[1].switches);
  }
  return a;
}

SwitchPlanReport plan_switches(const std::vector<SwitchSpec>& switches, const NodeSpec& node,
                               long long asked_nodes, BitRate speed) {
  if (asked_nodes < 1 || asked_nodes > kMaxClusterNodes) {
    throw InputError(
        fmt::format("{} is out of range; plan 1 to {} nodes", asked_nodes, kMaxClusterNodes),
        InputLocation::for_key("nodes"));
  }
  const int nodes = static_cast<int>(asked_nodes);
  if (!node.ports.supports(speed)) {
    std::string speeds;
    for (const auto& s : node.ports.speeds) speeds += (speeds.empty() ? "" : ", ") + rate_label(s);
    const bool faster = speed > node.ports.rate;
    throw InputError(
        fmt::format("{} {}; its ports link at {}", rate_label(speed),
                    faster ? fmt::format("is faster than a {} port ({})", node.name,
                                         rate_label(node.ports.rate))
                           : fmt::format("is not a speed a {} port links at", node.name),
                    speeds),
        InputLocation::for_key("speed"));
  }
  if (switches.empty()) {
    throw InputError("no switch to plan", InputLocation::for_key("switches"));
  }

  SwitchPlanReport r;
  r.nodes = nodes;
  r.speed = speed;
  r.per_node_rate = std::min(speed, node.network_rate());
  r.node = node;
  for (const auto& sw : switches) r.switches.push_back(answer_for_switch(sw, node, nodes, speed));
  const bool any = std::any_of(r.switches.begin(), r.switches.end(),
                               [](const SwitchAnswer& a) { return a.supports_speed; });
  if (!any) {
    if (r.switches.size() == 1) {
      throw InputError(r.switches.front().no_speed_reason, InputLocation::for_key("speed"));
    }
    std::vector<BitRate> offered;
    for (const auto& sw : switches) {
      for (const auto& s : sw.speeds()) {
        if (std::none_of(offered.begin(), offered.end(),
                         [&](BitRate o) { return same_rate(o, s); })) {
          offered.push_back(s);
        }
      }
    }
    std::sort(offered.begin(), offered.end(), [](BitRate a, BitRate b) { return a > b; });
    std::string list;
    for (const auto& s : offered) list += (list.empty() ? "" : ", ") + rate_label(s);
    throw InputError(
        fmt::format("no switch in the catalog has a port that runs at {}; they offer {}",
                    rate_label(speed), list),
        InputLocation::for_key("speed"));
  }
  r.switchless = switchless_options(node, nodes);
  return r;
}

}  // namespace tpnet
