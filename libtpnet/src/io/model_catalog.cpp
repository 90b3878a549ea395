#include "tpnet/io/model_catalog.hpp"

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "builtin_models.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/hf_config.hpp"
#include "tpnet/io/model_yaml.hpp"

namespace tpnet {
namespace {

std::string_view stem(std::string_view file_name) {
  const auto dot = file_name.rfind(".yaml");
  return dot == std::string_view::npos ? file_name : file_name.substr(0, dot);
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool looks_like_path(std::string_view text) {
  return text.find('/') != std::string_view::npos || text.ends_with(".yaml") ||
         text.ends_with(".yml") || text.ends_with(".json");
}

}  // namespace

std::vector<std::string> builtin_model_names() {
  std::vector<std::string> names;
  for (const auto& entry : detail::builtin_model_texts()) names.emplace_back(stem(entry.file_name));
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> closest_names(std::string_view name,
                                       const std::vector<std::string>& candidates) {
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& candidate : candidates) {
    std::size_t distance = edit_distance(name, candidate);
    // A typed prefix or fragment ("glm", "qwen") is a strong hint.
    if (candidate.find(name) != std::string::npos) distance = std::min<std::size_t>(distance, 1);
    scored.emplace_back(distance, candidate);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  const std::size_t limit = std::max<std::size_t>(3, name.size() / 2);
  for (const auto& [distance, candidate] : scored) {
    if (out.size() == 3 || distance > limit) break;
    out.push_back(candidate);
  }
  return out;
}

ModelArch builtin_model(std::string_view name) {
  for (const auto& entry : detail::builtin_model_texts()) {
    if (stem(entry.file_name) == name) {
      return parse_model_yaml(entry.text, "built-in models/" + std::string(entry.file_name));
    }
  }
  const auto names = builtin_model_names();
  std::string message = "unknown model '" + std::string(name) + "'";
  const auto close = closest_names(name, names);
  if (!close.empty()) {
    message += "; did you mean ";
    for (std::size_t i = 0; i < close.size(); ++i) {
      message += (i == 0 ? "" : i + 1 == close.size() ? " or " : ", ") + close[i];
    }
    message += "?";
  }
  message +=
      " (`tpnet models` lists all; a model YAML file, a config.json or its folder also works)";
  throw InputError(message, InputLocation::for_key("model"));
}

ModelArch resolve_model(std::string_view name_or_path) {
  if (name_or_path.empty()) {
    throw InputError(
        "is empty; give a built-in name (tpnet models), a model YAML path or a config.json",
        InputLocation::for_key("model"));
  }
  // A config.json, or a folder holding one, is a Hugging Face model; a folder
  // given as a path without one gets load_hf_config's error.
  std::error_code ec;
  if (is_hf_config_path(name_or_path) ||
      (looks_like_path(name_or_path) &&
       std::filesystem::is_directory(std::string(name_or_path), ec))) {
    return load_hf_config(std::string(name_or_path));
  }
  if (looks_like_path(name_or_path) ||
      std::filesystem::is_regular_file(std::string(name_or_path), ec)) {
    return load_model_file(std::string(name_or_path));
  }
  return builtin_model(name_or_path);
}

}  // namespace tpnet
