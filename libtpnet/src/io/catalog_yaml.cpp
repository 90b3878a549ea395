#include "catalog_yaml.hpp"

#include "tpnet/base/error.hpp"
#include "tpnet/base/quantity.hpp"
#include "yaml_fields.hpp"

namespace tpnet::catalog_yaml {
std::optional<BitRate> optional_rate(const YAML::Node& map, const std::string& origin,
                                     std::string_view key) {
  return yaml::optional_quantity(map, origin, key, parse_bit_rate);
}

BitRate required_rate(const YAML::Node& map, const std::string& origin, std::string_view key) {
  return yaml::required_quantity(map, origin, key, parse_bit_rate);
}

std::optional<Bytes> optional_bytes(const YAML::Node& map, const std::string& origin,
                                    std::string_view key) {
  return yaml::optional_quantity(map, origin, key, parse_bytes);
}

Bytes required_bytes(const YAML::Node& map, const std::string& origin, std::string_view key) {
  return yaml::required_quantity(map, origin, key, parse_bytes);
}

Bytes required_message_size(const YAML::Node& map, const std::string& origin,
                            std::string_view key) {
  return yaml::required_quantity(map, origin, key, parse_bytes_or_count);
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
