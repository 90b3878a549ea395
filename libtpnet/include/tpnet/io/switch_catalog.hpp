#pragma once
/// The built-in switches (models/switches/*.yaml) and switch files, by name,
/// alias or path.

#include <string>
#include <string_view>
#include <vector>
#include "tpnet/fabric/switch_spec.hpp"

namespace tpnet {

/// Names of the built-in switches, sorted.
[[nodiscard]] std::vector<std::string> builtin_switch_names();
/// Every built-in switch, in name order.
[[nodiscard]] std::vector<SwitchSpec> builtin_switches();
/// A built-in switch by name or alias, case-insensitive ("crs812",
/// "CRS812-8DS-2DQ-2DDQ-RM"). Throws InputError naming `switches` and
/// suggesting close names for an unknown one.
[[nodiscard]] SwitchSpec builtin_switch(std::string_view name);
/// A built-in name, or a path to a switch YAML file (anything with a '/' or a
/// .yaml/.yml ending, or an existing file).
[[nodiscard]] SwitchSpec resolve_switch(std::string_view name_or_path);

}  // namespace tpnet
