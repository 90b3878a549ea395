#include "tpnet/io/switch_yaml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "../base/ascii_case.hpp"
#include "catalog_yaml.hpp"
#include "tpnet/io/text_file.hpp"
#include "yaml_fields.hpp"

namespace tpnet {
namespace {

using detail::lowercase;

std::string cage_list() {
  std::string out;
  for (const auto& type : cage_types()) out += (out.empty() ? "" : ", ") + std::string(type.name);
  return out;
}

PortRole parse_role(const YAML::Node& map, const std::string& origin) {
  const auto text = yaml::optional_string(map, origin, "role");
  if (!text || *text == "data") return PortRole::data;
  if (*text == "management") return PortRole::management;
  throw InputError("'" + *text + "' is not a port role; use data or management",
                   yaml::where(map["role"], origin, "role"));
}

std::vector<BreakoutMode> parse_modes(const YAML::Node& map, const std::string& origin,
                                      const std::string& cage, int lanes, BitRate rate) {
  std::vector<BreakoutMode> modes;
  const YAML::Node list = map["modes"];
  if (list.IsDefined() && !list.IsNull()) {
    if (!list.IsSequence()) {
      throw InputError("expected a list of modes such as [1x400G, 2x200G, 4x100G]",
                       yaml::where(list, origin, "modes"));
    }
    for (const auto& item : list) {
      const InputLocation at = yaml::where(item, origin, "modes");
      if (!item.IsScalar()) throw InputError("expected a mode such as 4x100G", at);
      const BreakoutMode mode = parse_breakout_mode(item.Scalar(), at);
      if (const std::string problem = breakout_mode_problem(mode, cage, lanes, rate);
          !problem.empty()) {
        throw InputError(problem, at);
      }
      const bool twice = std::any_of(modes.begin(), modes.end(), [&](const BreakoutMode& m) {
        return m.count == mode.count && same_rate(m.speed, mode.speed);
      });
      if (twice) throw InputError(mode.name() + " is listed twice", at);
      modes.push_back(mode);
    }
  }
  // The native rate on one cable is always a mode, listed or not.
  const bool native = std::any_of(modes.begin(), modes.end(), [&](const BreakoutMode& m) {
    return m.count == 1 && same_rate(m.speed, rate);
  });
  if (!native) {
    // push_back and rotate to the front: GCC 12 warns falsely on vector::insert here.
    modes.push_back(BreakoutMode{1, rate});
    std::rotate(modes.rbegin(), modes.rbegin() + 1, modes.rend());
  }
  return modes;
}

PortGroup parse_port_group(const YAML::Node& map, const std::string& origin) {
  yaml::require_map(map, origin, "a port group");
  yaml::reject_unknown_keys(map, origin,
                            {"name", "count", "cage", "rate", "modes", "role", "note"});
  PortGroup g;
  g.count = static_cast<int>(yaml::required_integer(map, origin, "count", 1, 4096));
  g.cage = yaml::required_string(map, origin, "cage");
  const auto lanes = cage_lanes(g.cage);
  if (!lanes) {
    throw InputError("'" + g.cage + "' is not a known port type; use " + cage_list(),
                     yaml::where(map["cage"], origin, "cage"));
  }
  g.lanes = *lanes;
  g.rate = catalog_yaml::required_rate(map, origin, "rate");
  g.name = yaml::optional_string(map, origin, "name").value_or(lowercase(g.cage));
  g.modes = parse_modes(map, origin, g.cage, g.lanes, g.rate);
  g.role = parse_role(map, origin);
  g.note = yaml::optional_string(map, origin, "note").value_or("");
  return g;
}

TrapWhen parse_when(const YAML::Node& map, const std::string& origin) {
  const auto text = yaml::optional_string(map, origin, "when");
  if (!text || *text == "always") return TrapWhen::always;
  if (*text == "breakout") return TrapWhen::breakout;
  if (*text == "multi-switch") return TrapWhen::multi_switch;
  throw InputError("'" + *text + "' is not a trap condition; use always, breakout or multi-switch",
                   yaml::where(map["when"], origin, "when"));
}

SwitchTrap parse_trap(const YAML::Node& map, const std::string& origin) {
  yaml::require_map(map, origin, "a trap");
  yaml::reject_unknown_keys(map, origin, {"id", "when", "text", "source"});
  SwitchTrap trap;
  trap.id = yaml::required_string(map, origin, "id");
  trap.when = parse_when(map, origin);
  trap.text = yaml::required_string(map, origin, "text");
  trap.source = yaml::optional_string(map, origin, "source").value_or("");
  return trap;
}

}  // namespace

SwitchSpec parse_switch_yaml(std::string_view text, const std::string& origin) {
  const YAML::Node root = yaml::load_document(text, origin);
  yaml::require_map(root, origin, "a switch");
  yaml::reject_unknown_keys(root, origin,
                            {"name", "aliases", "model", "vendor", "description", "source", "chip",
                             "fabric_capacity", "ports", "traps", "notes"});
  SwitchSpec s;
  s.name = yaml::required_string(root, origin, "name");
  s.aliases = catalog_yaml::string_list(root, origin, "aliases");
  s.model = yaml::optional_string(root, origin, "model").value_or(s.name);
  s.vendor = yaml::optional_string(root, origin, "vendor").value_or("");
  s.description = yaml::optional_string(root, origin, "description").value_or("");
  s.source = yaml::optional_string(root, origin, "source").value_or("");
  s.chip = yaml::optional_string(root, origin, "chip").value_or("");
  s.fabric_capacity = catalog_yaml::required_rate(root, origin, "fabric_capacity");

  const YAML::Node ports = root["ports"];
  if (!ports.IsDefined() || ports.IsNull()) {
    throw InputError("required key is missing", yaml::where(root, origin, "ports"));
  }
  if (!ports.IsSequence() || ports.size() == 0) {
    throw InputError("expected a list of port groups (count, cage, rate, modes)",
                     yaml::where(ports, origin, "ports"));
  }
  for (std::size_t i = 0; i < ports.size(); ++i) {
    PortGroup g = yaml::with_key_prefix(fmt::format("ports[{}].", i),
                                        [&] { return parse_port_group(ports[i], origin); });
    const bool twice = std::any_of(s.port_groups.begin(), s.port_groups.end(),
                                   [&](const PortGroup& other) { return other.name == g.name; });
    if (twice) {
      throw InputError("port group '" + g.name + "' is named twice; give each group its own name",
                       yaml::where(ports[i], origin, fmt::format("ports[{}].name", i)));
    }
    s.port_groups.push_back(std::move(g));
  }
  const bool any_data = std::any_of(s.port_groups.begin(), s.port_groups.end(),
                                    [](const PortGroup& g) { return g.role == PortRole::data; });
  if (!any_data) {
    throw InputError("needs at least one port group with role data",
                     yaml::where(ports, origin, "ports"));
  }

  if (const YAML::Node traps = root["traps"]; traps.IsDefined() && !traps.IsNull()) {
    if (!traps.IsSequence()) {
      throw InputError("expected a list of traps (id, when, text, source)",
                       yaml::where(traps, origin, "traps"));
    }
    for (std::size_t i = 0; i < traps.size(); ++i) {
      s.traps.push_back(yaml::with_key_prefix(fmt::format("traps[{}].", i),
                                              [&] { return parse_trap(traps[i], origin); }));
    }
  }
  s.notes = catalog_yaml::string_list(root, origin, "notes");
  return s;
}

SwitchSpec load_switch_file(const std::string& path) {
  return parse_switch_yaml(read_text_file(path), path);
}

}  // namespace tpnet
