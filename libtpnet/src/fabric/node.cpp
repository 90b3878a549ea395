#include "tpnet/fabric/node.hpp"

#include <algorithm>

#include "../io/builtin_models.hpp"
#include "../io/catalog_lookup.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/io/node_yaml.hpp"

namespace tpnet {

bool NodePorts::supports(BitRate speed) const {
  return std::any_of(speeds.begin(), speeds.end(), [&](BitRate s) { return same_rate(s, speed); });
}

const PreflightFinding* NodePreflight::finding(std::string_view key) const {
  for (const auto& [name, finding] : findings) {
    if (name == key) return &finding;
  }
  return nullptr;
}

BitRate NodeSpec::network_rate() const {
  BitRate total = ports.rate * static_cast<double>(ports.count);
  if (host_links.count > 0 && host_links.usable > BitRate(0.0)) {
    total = std::min(total, host_links.usable * static_cast<double>(host_links.count));
  }
  if (network_limit > BitRate(0.0)) total = std::min(total, network_limit);
  return total;
}

std::vector<std::string> builtin_node_names() {
  std::vector<std::string> names;
  for (const auto& entry : detail::builtin_node_texts()) {
    names.emplace_back(detail::yaml_stem(entry.file_name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

NodeSpec builtin_node(std::string_view name) {
  for (const auto& entry : detail::builtin_node_texts()) {
    if (detail::same_name(detail::yaml_stem(entry.file_name), name)) {
      return parse_node_yaml(entry.text, "built-in models/nodes/" + std::string(entry.file_name));
    }
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
