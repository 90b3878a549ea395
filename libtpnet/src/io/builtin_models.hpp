#pragma once
// The text of models/*.yaml (and of the switch and node catalogs under
// models/switches and models/nodes), embedded by the build (cmake/EmbedModels.cmake)
// so the tool answers without knowing where its source tree is.

#include <span>
#include <string_view>

namespace tpnet::detail {

struct EmbeddedText {
  std::string_view file_name;  // "glm-5.3.yaml"
  std::string_view text;
};

std::span<const EmbeddedText> builtin_model_texts();   // models/*.yaml
std::span<const EmbeddedText> builtin_switch_texts();  // models/switches/*.yaml
std::span<const EmbeddedText> builtin_node_texts();    // models/nodes/*.yaml
std::span<const EmbeddedText> builtin_fabric_texts();  // models/fabrics/*.yaml

}  // namespace tpnet::detail
