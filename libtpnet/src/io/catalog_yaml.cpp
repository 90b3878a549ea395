#include "catalog_yaml.hpp"

#include "tpnet/error.hpp"
#include "tpnet/quantity.hpp"
#include "yaml_fields.hpp"

namespace tpnet::catalog_yaml {
namespace {

/// The scalar at `key` and where it is; nullopt when absent.
std::optional<std::pair<std::string, InputLocation>> scalar_at(const YAML::Node& map,
                                                               const std::string& origin,
                                                               std::string_view key) {
  const auto text = yaml::optional_string(map, origin, key);
  if (!text) return std::nullopt;
  return std::make_pair(*text, yaml::where(map[std::string(key)], origin, key));
}

[[noreturn]] void missing(const YAML::Node& map, const std::string& origin, std::string_view key) {
  throw InputError("required key is missing", yaml::where(map, origin, key));
}

}  // namespace

std::optional<BitRate> optional_rate(const YAML::Node& map, const std::string& origin,
                                     std::string_view key) {
  const auto at = scalar_at(map, origin, key);
  if (!at) return std::nullopt;
  return parse_bit_rate(at->first, at->second);
}

BitRate required_rate(const YAML::Node& map, const std::string& origin, std::string_view key) {
  const auto rate = optional_rate(map, origin, key);
  if (!rate) missing(map, origin, key);
  return *rate;
}

std::optional<Bytes> optional_bytes(const YAML::Node& map, const std::string& origin,
                                    std::string_view key) {
  const auto at = scalar_at(map, origin, key);
  if (!at) return std::nullopt;
  return parse_bytes(at->first, at->second);
}

Bytes required_bytes(const YAML::Node& map, const std::string& origin, std::string_view key) {
  const auto bytes = optional_bytes(map, origin, key);
  if (!bytes) missing(map, origin, key);
  return *bytes;
}

std::vector<std::string> string_list(const YAML::Node& map, const std::string& origin,
                                     std::string_view key) {
  const YAML::Node node = map[std::string(key)];
  std::vector<std::string> out;
  if (!node.IsDefined() || node.IsNull()) return out;
  if (node.IsScalar()) {
    out.push_back(node.Scalar());
    return out;
  }
  if (!node.IsSequence())
    throw InputError("expected a list of text", yaml::where(node, origin, key));
  for (const auto& item : node) {
    if (!item.IsScalar()) throw InputError("expected text", yaml::where(item, origin, key));
    out.push_back(item.Scalar());
  }
  return out;
}

}  // namespace tpnet::catalog_yaml
