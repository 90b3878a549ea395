#pragma once
// The text of models/*.yaml, embedded by the build (cmake/EmbedModels.cmake)
// so the tool answers without knowing where its source tree is.

#include <span>
#include <string_view>

namespace tpnet::detail {

struct EmbeddedText {
  std::string_view file_name;  // "glm-5.3.yaml"
  std::string_view text;
};

std::span<const EmbeddedText> builtin_model_texts();

}  // namespace tpnet::detail
