#pragma once
/// A workload's prompt mix for planning: presets for chat, RAG and long
/// documents, or a YAML file of prompts (docs/recommend.md).

#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/usecase/penalty.hpp"

namespace tpnet {

struct Workload {
  std::string name;
  std::string description;
  std::vector<PrefillScenario> prompts;
};

/// chat (1k prompts), rag (8k and 4 x 8k at once) and long-docs (32k and 64k).
[[nodiscard]] const std::vector<Workload>& workload_presets();

/// A preset name, or a YAML file `{name: ..., prompts: [8k, 4x8k]}`.
/// Errors name the file, line and key, or list the presets.
[[nodiscard]] Workload resolve_workload(std::string_view name_or_path);

[[nodiscard]] Workload parse_workload_yaml(std::string_view text, const std::string& origin);

}  // namespace tpnet
