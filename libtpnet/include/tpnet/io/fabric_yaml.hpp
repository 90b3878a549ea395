#pragma once
/// The fabric catalog files (models/fabrics/*.yaml): public measurements
/// between the nodes of one kind and the profiles built from them
/// (docs/prediction.md s.2 describes the schema).

#include <string>
#include <string_view>
#include <vector>

#include "tpnet/fabric/fabric_profile.hpp"

namespace tpnet {

/// Every profile of one catalog file, numbers derived and provenance filled
/// in. Throws InputError naming the file, line and key.
std::vector<FabricProfile> parse_fabric_catalog(std::string_view text, const std::string& origin);

}  // namespace tpnet
