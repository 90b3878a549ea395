#include "tpnet/io/node_catalog.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>
#include "builtin_models.hpp"
#include "catalog_lookup.hpp"
#include "tpnet/io/node_yaml.hpp"

namespace tpnet {

std::vector<std::string> builtin_node_names() {
  std::vector<std::string> names;
  for (const auto& entry : detail::builtin_node_texts()) {
    names.emplace_back(detail::yaml_stem(entry.file_name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

/// Each built-in node parsed once per process, with its file's stem.
const std::vector<std::pair<std::string, NodeSpec>>& parsed_nodes() {
  static const std::vector<std::pair<std::string, NodeSpec>> parsed = [] {
    std::vector<std::pair<std::string, NodeSpec>> out;
    for (const auto& entry : detail::builtin_node_texts()) {
      out.emplace_back(
          std::string(detail::yaml_stem(entry.file_name)),
          parse_node_yaml(entry.text, "built-in models/nodes/" + std::string(entry.file_name)));
    }
    return out;
  }();
  return parsed;
}

}  // namespace

NodeSpec builtin_node(std::string_view name) {
  for (const auto& [stem, spec] : parsed_nodes()) {
    if (detail::same_name(stem, name)) return spec;
  }
  throw InputError(detail::unknown_name_message("node", name, builtin_node_names()) +
                       " (a node YAML file also works)",
                   InputLocation::for_key("node"));
}

NodeSpec resolve_node(std::string_view name_or_path) {
  if (name_or_path.empty()) {
    throw InputError("is empty; give a built-in node name (dgx-spark) or a node YAML path",
                     InputLocation::for_key("node"));
  }
  if (detail::looks_like_yaml_path(name_or_path)) {
    return load_node_file(std::string(name_or_path));
  }
  return builtin_node(name_or_path);
}

}  // namespace tpnet
