#pragma once
/// A workload by name (a preset) or from a YAML file of prompts.

#include <string>
#include <string_view>

#include "tpnet/workload/workload.hpp"

namespace tpnet {

/// A preset name, or a YAML file `{name: ..., prompts: [8k, 4x8k]}`.
/// Errors name the file, line and key, or list the presets.
[[nodiscard]] Workload resolve_workload(std::string_view name_or_path);

[[nodiscard]] Workload parse_workload_yaml(std::string_view text, const std::string& origin);

}  // namespace tpnet
