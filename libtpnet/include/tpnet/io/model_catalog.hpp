#pragma once
/// The built-in models (models/*.yaml, embedded at build time) and the one
/// way a `--model` value becomes a ModelArch.

#include <string>
#include <string_view>
#include <vector>
#include "tpnet/base/error.hpp"

#include "tpnet/model/model.hpp"

namespace tpnet {

/// Names of the built-in models, sorted.
[[nodiscard]] std::vector<std::string> builtin_model_names();

/// Throws InputError (with close names suggested) for an unknown name.
[[nodiscard]] ModelArch builtin_model(std::string_view name);

/// A built-in name, or a path (anything with a '/', a .yaml/.yml/.json ending,
/// or an existing file or folder): a model YAML file, or a Hugging Face
/// config.json or the folder holding one.
[[nodiscard]] ModelArch resolve_model(std::string_view name_or_path);

/// Up to three candidates closest to `name` by edit distance.
[[nodiscard]] std::vector<std::string> closest_names(std::string_view name,
                                                     const std::vector<std::string>& candidates);

}  // namespace tpnet
