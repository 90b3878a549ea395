#pragma once
/// A workload's prompt mix for planning: presets for chat, RAG and long
/// documents (docs/formulas.md s.15, `tpnet plan --workload`).

#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

namespace tpnet {

struct Workload {
  std::string name;
  std::string description;
  std::vector<PrefillScenario> prompts;
};

/// chat (1k prompts), rag (8k and 4 x 8k at once) and long-docs (32k and 64k).
[[nodiscard]] const std::vector<Workload>& workload_presets();

}  // namespace tpnet
