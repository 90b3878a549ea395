#pragma once
/// The built-in nodes (models/nodes/*.yaml) and node files, by name or path.

#include <string>
#include <string_view>
#include <vector>
#include "tpnet/fabric/node.hpp"

namespace tpnet {

/// Names of the built-in nodes, sorted.
[[nodiscard]] std::vector<std::string> builtin_node_names();
/// A built-in node ("dgx-spark"); throws InputError naming `node` and
/// suggesting close names for an unknown one.
[[nodiscard]] NodeSpec builtin_node(std::string_view name);
/// A built-in name, or a path to a node YAML file.
[[nodiscard]] NodeSpec resolve_node(std::string_view name_or_path);

}  // namespace tpnet
