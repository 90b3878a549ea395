#include "tpnet/io/link_presets.hpp"

#include "tpnet/base/quantity.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/io/node_catalog.hpp"

namespace tpnet {

const std::vector<LinkPreset>& link_presets() {
  // The emulated link is one host link of the default node: what one PCIe
  // half carries, as its catalog file measured it.
  static const double emulated =
      builtin_node(kDefaultNodeName).host_links.usable.bits_per_second() / 1e9;
  static const std::vector<LinkPreset> presets{
      {"200G", 200.0, "a 200 Gb/s port with both PCIe halves in use (docs/background.md s.1)"},
      {"100G", 100.0, "a real 100 Gb/s cable or breakout lane"},
      {"emulated-100G", emulated,
       "100G emulated on 200G hardware by one PCIe Gen5 x4 half (the dgx-spark node's "
       "host_links.usable, as ib_write_bw measures it)"},
  };
  return presets;
}

Link parse_link(std::string_view text, const InputLocation& where) {
  for (const auto& preset : link_presets()) {
    if (text == preset.name) {
      return Link{std::string(preset.name),
                  BitRate::gigabits_per_second(preset.gigabits_per_second),
                  std::string(preset.name)};
    }
  }
  Link link;
  try {
    link = Link{std::string(text), parse_bit_rate(text, where), {}};
  } catch (const InputError&) {
    throw InputError("'" + std::string(text) +
                         "' is not a link; use a preset (200G, 100G, emulated-100G) or a rate "
                         "such as 200Gb/s, 109.07G or 25GB/s",
                     where);
  }
  // `200Gb/s` and `200G` are one quantity spelled two ways: one preset, one profile.
  for (const auto& preset : link_presets()) {
    if (same_rate(BitRate::gigabits_per_second(preset.gigabits_per_second), link.rate)) {
      link.preset = std::string(preset.name);
      break;
    }
  }
  return link;
}

}  // namespace tpnet
