#include "tpnet/fabric/link.hpp"

#include <cmath>
#include <string>

#include "tpnet/base/quantity.hpp"
#include "tpnet/fabric/node.hpp"

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
                  BitRate::gigabits_per_second(preset.gigabits_per_second), LinkLatency{}};
    }
  }
  try {
    return Link{std::string(text), parse_bit_rate(text, where), LinkLatency{}};
  } catch (const InputError&) {
    throw InputError("'" + std::string(text) +
                         "' is not a link; use a preset (200G, 100G, emulated-100G) or a rate "
                         "such as 200Gb/s, 109.07G or 25GB/s",
                     where);
  }
}

std::string_view to_string(LineCoding coding) {
  switch (coding) {
    case LineCoding::b8b10b:
      return "8b/10b";
    case LineCoding::b128b130b:
      return "128b/130b";
  }
  return "unknown";
}

LineCoding parse_line_coding(std::string_view text, const InputLocation& where) {
  if (text == "8b/10b" || text == "8b10b") return LineCoding::b8b10b;
  if (text == "128b/130b" || text == "128b130b") return LineCoding::b128b130b;
  throw InputError("'" + std::string(text) + "' is not a line coding; use 8b/10b or 128b/130b",
                   where);
}

namespace {

double coding_efficiency(LineCoding coding) {
  return coding == LineCoding::b8b10b ? 8.0 / 10.0 : 128.0 / 130.0;
}

}  // namespace

PcieLinkRates pcie_link_rates(const PcieSpec& spec) {
  // Per-lane transfer rates of PCIe Gen1-5 (GT/s). Gen6 switches to PAM4 with
  // FLIT encoding, which this model does not describe.
  static constexpr double kGigatransfers[] = {2.5, 5.0, 8.0, 16.0, 32.0};
  if (spec.generation < 1 || spec.generation > 5) {
    throw InputError(
        std::to_string(spec.generation) + " is not a supported PCIe generation; use 1 to 5",
        InputLocation::for_key("pcie.generation"));
  }
  if (spec.lanes != 1 && spec.lanes != 2 && spec.lanes != 4 && spec.lanes != 8 &&
      spec.lanes != 16) {
    throw InputError(
        std::to_string(spec.lanes) + " lanes is not a PCIe width; use 1, 2, 4, 8 or 16",
        InputLocation::for_key("pcie.lanes"));
  }
  if (!(spec.protocol_efficiency > 0.0 && spec.protocol_efficiency <= 1.0)) {
    throw InputError("protocol efficiency must be in (0, 1], e.g. 0.88",
                     InputLocation::for_key("pcie.protocol_efficiency"));
  }
  PcieLinkRates out;
  out.transfer_rate_gt_s = kGigatransfers[spec.generation - 1];
  out.coding =
      spec.coding.value_or(spec.generation <= 2 ? LineCoding::b8b10b : LineCoding::b128b130b);
  out.raw = BitRate::gigabits_per_second(out.transfer_rate_gt_s * spec.lanes);
  out.after_coding = out.raw * coding_efficiency(out.coding);
  out.usable = out.after_coding * spec.protocol_efficiency;
  return out;
}

}  // namespace tpnet
