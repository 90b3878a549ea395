#pragma once
/// Switch catalog files (models/switches/*.yaml); schema in docs/switch.md.

#include <string>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/fabric/switch_spec.hpp"

namespace tpnet {

/// Parses a switch file's text; `origin` names it in errors. Unknown keys, an
/// unknown cage type and a breakout mode the cage cannot run are errors naming
/// the file, line and key.
SwitchSpec parse_switch_yaml(std::string_view text, const std::string& origin);

/// Reads and parses a switch file.
SwitchSpec load_switch_file(const std::string& path);

}  // namespace tpnet
