#pragma once
/// Links by name: the presets (200G, 100G, emulated-100G, the last one read
/// from the default node's catalog entry) or any bit rate as text.

#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/fabric/link.hpp"

namespace tpnet {

/// A named preset; `description` says where its rate comes from.
struct LinkPreset {
  std::string_view name;
  double gigabits_per_second;
  std::string_view description;
};

/// `200G`, `100G`, `emulated-100G` (one PCIe Gen5 x4 half: 109 Gb/s measured).
[[nodiscard]] const std::vector<LinkPreset>& link_presets();

/// A preset name or any bit rate `parse_bit_rate` accepts.
Link parse_link(std::string_view text, const InputLocation& where);

}  // namespace tpnet
