// tpnet switch's answer as a document: the nodes and their ports, a summary
// row per switch (its plans in JSON), the switchless options, and per plan
// the port table, cables, traps and checklist a person reads (docs/json.md,
// "switch").
#include <fmt/format.h>

#include "tpnet/usecase/switch_report.hpp"

namespace tpnet {
namespace {

Field switch_rate_field(std::string key, std::string label, BitRate value) {
  return number(std::move(key), std::move(label), value.bits_per_second(), kGbps, 0);
}

Record port_use_record(const PortUse& use) {
  return {text("group", "ports", use.group),
          text("cage", "cage", use.cage),
          switch_rate_field("cage_rate_bps", "cage rate", use.cage_rate),
          text("mode", "mode", use.mode.name()),
          count("subports_per_cage", "sub-ports per cage", use.mode.count),
          switch_rate_field("subport_rate_bps", "sub-port rate", use.mode.speed),
          count("cages", "cages", use.cages),
          count("nodes", "nodes", use.nodes),
          count("spare_subports", "spare sub-ports", use.spare_subports),
          flag("isl", "ISL", use.isl),
          text("cable", "cable", use.cable)};
}

Record spare_ports_record(const SparePorts& spare) {
  return {text("group", "ports", spare.group),
          text("cage", "cage", spare.cage),
          switch_rate_field("rate_bps", "rate", spare.rate),
          count("cages", "free cages", spare.cages),
          count("subports", "free sub-ports", spare.subports),
          count("more_nodes", "more nodes", spare.more_nodes),
          text("could_serve", "could serve", spare.could_serve)};
}

Record switch_unit_record(const SwitchUnit& unit) {
  std::vector<Record> ports;
  for (const auto& use : unit.ports) ports.push_back(port_use_record(use));
  std::vector<Record> spare;
  for (const auto& s : unit.spare) spare.push_back(spare_ports_record(s));
  return {text("role", "role", std::string(to_string(unit.role))),
          count("copies", "copies", unit.copies),
          count("nodes", "nodes", unit.nodes),
          switch_rate_field("fabric_load_bps", "fabric load", unit.fabric_load),
          switch_rate_field("fabric_capacity_bps", "fabric capacity", unit.fabric_capacity),
          flag("full_rate", "full rate", unit.full_rate()),
          records("ports", "ports", std::move(ports)),
          records("spare", "spare", std::move(spare))};
}

Record isl_record(const SwitchPlan& plan) {
  const InterSwitchLinks isl = plan.isl.value_or(InterSwitchLinks{});
  return {
      text("cage", "cage", isl.cage),
      switch_rate_field("rate_bps", "rate", isl.rate),
      count("per_lag", "cables per LAG", isl.per_lag),
      count("lags", "LAGs", isl.lags),
      count("cables", "cables", isl.cables()),
      switch_rate_field("lag_capacity_bps", "LAG capacity", isl.lag_capacity),
      switch_rate_field("worst_cross_traffic_bps", "worst cross traffic", isl.worst_cross_traffic),
      number("oversubscription", "oversubscription", isl.oversubscription, kTimes, 2),
      switch_rate_field("all_to_all_cross_traffic_bps", "all-to-all cross traffic",
                        isl.all_to_all_cross_traffic),
      number("all_to_all_oversubscription", "all-to-all oversubscription",
             isl.all_to_all_oversubscription, kTimes, 2)};
}

Record switch_plan_record(const SwitchPlan& plan) {
  std::vector<Record> units;
  for (const auto& unit : plan.units) units.push_back(switch_unit_record(unit));
  std::vector<Record> cables;
  for (const auto& line : plan.cables) {
    cables.push_back(
        {count("count", "count", line.count), text("description", "cable", line.description)});
  }
  std::vector<Record> traps;
  for (const auto& trap : plan.traps) {
    traps.push_back({text("id", "id", trap.id),
                     text("when", "when", std::string(to_string(trap.when))),
                     text("text", "trap", trap.text), text("source", "source", trap.source)});
  }
  std::vector<Record> checks;
  for (const auto& c : plan.checklist) {
    checks.push_back({text("check", "check", c.check), text("catalog", "catalog says", c.catalog),
                      flag("catalog_ok", "ok", c.catalog_ok), text("verify", "verify", c.verify)});
  }
  return {text("topology", "topology", std::string(to_string(plan.topology))),
          count("switches", "switches", plan.switches),
          count("nodes", "nodes", plan.nodes),
          switch_rate_field("speed_bps", "speed", plan.speed),
          text("summary", "summary", plan.summary),
          flag("uses_breakouts", "breakouts", plan.uses_breakouts),
          flag("fabric_full_rate", "full rate", plan.fabric_full_rate()),
          flag("all_to_all_full_rate", "all pairs at full rate", plan.all_to_all_full_rate()),
          number("oversubscription", "oversubscription", plan.oversubscription(), kTimes, 2),
          record("isl", "inter-switch links", isl_record(plan)),
          records("units", "switches", std::move(units)),
          records("cables", "cables", std::move(cables)),
          records("traps", "traps", std::move(traps)),
          records("checklist", "checklist", std::move(checks))};
}

std::string isl_label(const SwitchPlan* plan) {
  if (plan == nullptr || !plan->isl) return "-";
  return fmt::format("{} x {}", plan->isl->cables(), rate_label(plan->isl->rate));
}

Record switch_summary_record(const SwitchAnswer& a, BitRate speed) {
  const SwitchPlan* first = a.plans.empty() ? nullptr : &a.plans.front();
  std::vector<Record> plans;
  for (const auto& plan : a.plans) plans.push_back(switch_plan_record(plan));
  const std::string at = rate_label(speed);
  return {
      text("switch", "switch", a.name),
      json_only(text("model", "model", a.model)),
      json_only(flag("supports_speed", "supports the speed", a.supports_speed)),
      count("max_nodes", fmt::format("max at {}", at), a.max_nodes),
      count("headline_nodes", "usually quoted", a.headline_nodes),
      json_only(text("headline_note", "why they differ", a.headline_note)),
      table_only(texts("", "",
                       a.headline_note.empty() ? std::vector<std::string>{}
                                               : std::vector<std::string>{a.headline_note})),
      flag("fits_one_switch", "fits one", a.fits_one),
      count("switches_needed", "switches", a.switches_needed),
      text("isl_summary", "ISL", isl_label(first)),
      number("oversubscription", "ISL oversub.", first ? first->oversubscription() : 0.0, kTimes,
             2),
      number("fabric_load_pct", "fabric load", first ? first->peak_fabric_load() * 100.0 : 0.0,
             kPercent, 0),
      note_unless_wide(text("verdict", "verdict", a.verdict)),
      json_only(text("no_speed_reason", "no speed", a.no_speed_reason)),
      table_only(texts("", "",
                       a.no_speed_reason.empty() ? std::vector<std::string>{}
                                                 : std::vector<std::string>{a.no_speed_reason})),
      json_only(records("plans", "plans", std::move(plans)))};
}

Record switchless_record(const SwitchlessOption& o) {
  return {text("topology", "layout", o.topology),
          count("nodes", "nodes", o.nodes),
          count("cables", "cables", o.cables),
          text("cable", "cable", o.cable),
          switch_rate_field("link_rate_bps", "link", o.link_rate),
          switch_rate_field("per_node_rate_bps", "per node", o.per_node_rate),
          texts("notes", "notes", o.notes)};
}

/// The port table's rows of one plan: each unit's used ports, then its spares.
std::vector<Record> port_rows(const SwitchAnswer& a, const SwitchPlan& plan) {
  std::vector<Record> rows;
  for (const auto& unit : plan.units) {
    const std::string who =
        unit.role == SwitchRole::single
            ? a.name
            : fmt::format("{} {}{}", a.name, to_string(unit.role),
                          unit.copies > 1 ? fmt::format(" (x{})", unit.copies) : "");
    for (const auto& use : unit.ports) {
      rows.push_back(
          {text("switch", "switch", who),
           text("ports", "ports",
                fmt::format("{} x {} {}", use.cages, use.cage, rate_label(use.cage_rate))),
           text("mode", "mode", use.mode.name()), text("use", "use", use.isl ? "ISL" : "nodes"),
           count("nodes", "nodes", use.nodes),
           count("spare", "spare sub-ports", use.spare_subports),
           text("cable", "cable", use.cable)});
    }
    for (const auto& spare : unit.spare) {
      rows.push_back({text("switch", "switch", who),
                      text("ports", "ports",
                           spare.cages > 0 ? fmt::format("{} x {} {}", spare.cages, spare.cage,
                                                         rate_label(spare.rate))
                                           : fmt::format("{} sub-ports", spare.subports)),
                      text("mode", "mode", "-"), text("use", "use", "spare"),
                      count("nodes", "nodes", 0), count("spare", "spare sub-ports", spare.subports),
                      text("cable", "cable", spare.could_serve)});
    }
  }
  return rows;
}

/// The sections a person reads under the summary: one per plan.
void add_plan_sections(Record& fields, const SwitchAnswer& a, BitRate speed) {
  for (const auto& plan : a.plans) {
    fields.push_back(
        table_only(records("", fmt::format("{} at {}: {}", a.name, rate_label(speed), plan.summary),
                           port_rows(a, plan))));
    std::vector<std::string> cables;
    cables.reserve(plan.cables.size());
    for (const auto& line : plan.cables) cables.push_back(line.text());
    fields.push_back(table_only(texts("", fmt::format("{} cables", a.name), cables)));
    std::vector<std::string> traps;
    traps.reserve(plan.traps.size());
    for (const auto& trap : plan.traps) traps.push_back(trap.text);
    fields.push_back(table_only(texts("", fmt::format("{} trap", a.name), traps)));
    std::vector<std::string> checks;
    checks.reserve(plan.checklist.size());
    for (const auto& c : plan.checklist) {
      checks.push_back(fmt::format("{} [catalog: {}{}; verify: {}]", c.check, c.catalog,
                                   c.catalog_ok ? "" : " (!)", c.verify));
    }
    fields.push_back(table_only(texts("", fmt::format("{} check", a.name), checks)));
  }
}

/// The node's ports and host links: a line in tables, a record in JSON.
Record node_fields(const NodeSpec& node) {
  return {
      table_only(text("", "node",
                      fmt::format("{}: {} x {} {} ports, {} in total ({} x PCIe Gen{} x{} at {})",
                                  node.name, node.ports.count, node.ports.cage,
                                  rate_label(node.ports.rate), rate_label(node.network_rate()),
                                  node.host_links.count, node.host_links.pcie_gen,
                                  node.host_links.lanes, rate_label(node.host_links.usable)))),
      json_only(
          record("node", "node",
                 {text("name", "name", node.name), count("ports", "ports", node.ports.count),
                  text("cage", "cage", node.ports.cage),
                  switch_rate_field("port_rate_bps", "port rate", node.ports.rate),
                  count("host_links", "host links", node.host_links.count),
                  switch_rate_field("host_link_bps", "host link", node.host_links.usable),
                  switch_rate_field("network_rate_bps", "network rate", node.network_rate())})),
  };
}

/// "a, b and c" (or with `last` "or").
std::string joined_names(const std::vector<std::string>& names, std::string_view last = "and") {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? fmt::format(" {} ", last) : std::string(", ");
    out += names[i];
  }
  return out;
}

}  // namespace

std::vector<std::string> switch_answer(const SwitchPlanReport& r) {
  std::vector<std::string> one;
  std::vector<std::string> several;
  std::vector<std::string> none;
  for (const SwitchAnswer& a : r.switches) {
    if (a.fits_one) {
      one.push_back("one " + a.name);
    } else if (a.switches_needed > 0 && !a.plans.empty()) {
      const SwitchPlan& plan = a.plans.front();
      several.push_back(plan.isl ? fmt::format("{} x {} (inter-switch links {:.2g}:1)",
                                               a.switches_needed, a.name, plan.oversubscription())
                                 : fmt::format("{} x {}", a.switches_needed, a.name));
    } else {
      none.push_back(a.name);
    }
  }
  std::vector<std::string> out;
  const std::string cluster =
      fmt::format("{} x {} at {} per node", r.nodes, r.node.name, rate_label(r.speed));
  out.push_back(one.empty() ? fmt::format("No switch asked takes {} alone.", cluster)
                            : fmt::format("{} fit on {}.", cluster, joined_names(one, "or")));
  if (!several.empty()) out.push_back(fmt::format("In a star: {}.", joined_names(several)));
  if (!none.empty()) out.push_back(fmt::format("No plan on {}.", joined_names(none)));
  return out;
}

Document switch_report_document(const SwitchPlanReport& r) {
  std::vector<Record> summary;
  summary.reserve(r.switches.size());
  for (const auto& a : r.switches) summary.push_back(switch_summary_record(a, r.speed));
  std::vector<Record> switchless;
  switchless.reserve(r.switchless.size());
  for (const auto& s : r.switchless) switchless.push_back(switchless_record(s));

  Document doc;
  doc.answer = switch_answer(r);
  doc.title = fmt::format("tpnet switch: {} x {} at {} per node", r.nodes, r.node.name,
                          rate_label(r.speed));
  doc.fields = {
      count("nodes", "nodes", r.nodes),
      switch_rate_field("speed_bps", "speed per node", r.speed),
      switch_rate_field("per_node_rate_bps", "per-node rate (speed, capped by the node's total)",
                        r.per_node_rate),
  };
  for (auto& f : node_fields(r.node)) doc.fields.push_back(std::move(f));
  doc.fields.push_back(records("switches", "switches", std::move(summary)));
  doc.fields.push_back(records("switchless", "without a switch", std::move(switchless)));
  for (const auto& a : r.switches) add_plan_sections(doc.fields, a, r.speed);
  doc.warnings = r.warnings;
  return doc;
}

}  // namespace tpnet
