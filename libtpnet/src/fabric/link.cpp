#include "tpnet/fabric/link.hpp"

#include <cmath>
#include <string>

#include "tpnet/base/quantity.hpp"
#include "tpnet/fabric/node.hpp"

namespace tpnet {

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
