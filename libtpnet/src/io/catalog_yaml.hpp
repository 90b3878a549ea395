#pragma once
// Private readers shared by the switch and node catalog files: rates and
// sizes typed with their unit ("400G", "273GB/s", "128GB") and lists of text.

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/units.hpp"

namespace tpnet::catalog_yaml {

/// A bit rate with its unit (parse_bit_rate); errors name the file, line and key.
std::optional<BitRate> optional_rate(const YAML::Node& map, const std::string& origin,
                                     std::string_view key);
BitRate required_rate(const YAML::Node& map, const std::string& origin, std::string_view key);

/// A size with its unit (parse_bytes: "128GB", "121GB").
std::optional<Bytes> optional_bytes(const YAML::Node& map, const std::string& origin,
                                    std::string_view key);
Bytes required_bytes(const YAML::Node& map, const std::string& origin, std::string_view key);
/// A message size as nccl-tests prints it: a bare number is bytes (8192), a
/// unit may be given (8KiB).
Bytes required_message_size(const YAML::Node& map, const std::string& origin, std::string_view key);

/// A list of text, or one text; empty when absent.
std::vector<std::string> string_list(const YAML::Node& map, const std::string& origin,
                                     std::string_view key);

}  // namespace tpnet::catalog_yaml
