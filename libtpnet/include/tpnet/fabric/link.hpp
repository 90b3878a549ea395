#pragma once
/// A network link between nodes, the physical link only: its name, the rate
/// its traffic moves at and the preset it is. How NCCL prices a collective's
/// fixed cost over it is the cluster's (fabric/collective_settings.hpp).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"

namespace tpnet {

struct Link {
  std::string name;  ///< what the user typed, or the preset name
  BitRate rate;      ///< rate traffic actually moves at
  /// The preset this link is, by name or else by rate ("200Gb/s" is 200G):
  /// what picks its fabric profile. Empty for a rate no preset has.
  std::string preset = {};
};

/// PCIe line coding: 8b/10b (Gen1-2) or 128b/130b (Gen3-5).
enum class LineCoding { b8b10b, b128b130b };

[[nodiscard]] std::string_view to_string(LineCoding coding);
LineCoding parse_line_coding(std::string_view text, const InputLocation& where);

struct PcieSpec {
  int generation = 5;
  int lanes = 4;
  std::optional<LineCoding> coding;  ///< default: the generation's own
  /// Share of the coded rate left after TLP/DLLP packet and flow-control
  /// overhead. 0.88 turns Gen5 x4's 126 Gb/s into the ~111 Gb/s a direct
  /// cable measured between two DGX Sparks (docs/background.md s.1).
  double protocol_efficiency = 0.88;
};

struct PcieLinkRates {
  double transfer_rate_gt_s = 0.0;  ///< per lane
  LineCoding coding = LineCoding::b128b130b;
  BitRate raw;           ///< lanes x GT/s
  BitRate after_coding;  ///< raw x coding efficiency
  BitRate usable;        ///< after_coding x protocol efficiency
};

/// Derives what a PCIe host link can carry; throws InputError for an
/// unknown generation, a lane count PCIe does not define, or an efficiency
/// outside (0, 1].
PcieLinkRates pcie_link_rates(const PcieSpec& spec);

}  // namespace tpnet
