#pragma once
/// Model architecture files (models/*.yaml); schema in docs/models.md.

#include <string>
#include <string_view>
#include "tpnet/base/error.hpp"

#include "tpnet/model/model.hpp"

namespace tpnet {

/// Parses a model file's text; `origin` names it in errors (a path, or
/// "built-in glm-5.3"). Errors carry the line and key at fault.
ModelArch parse_model_yaml(std::string_view text, const std::string& origin);

/// Reads and parses a model file.
ModelArch load_model_file(const std::string& path);

}  // namespace tpnet
