#pragma once
/// Node catalog files (models/nodes/*.yaml); schema in docs/switch.md.

#include <string>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/fabric/node.hpp"

namespace tpnet {

/// Parses a node file's text; `origin` names it in errors (file, line, key).
NodeSpec parse_node_yaml(std::string_view text, const std::string& origin);

/// Reads and parses a node file.
NodeSpec load_node_file(const std::string& path);

}  // namespace tpnet
