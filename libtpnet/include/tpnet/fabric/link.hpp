#pragma once
/// A network link between nodes: the rate its traffic moves at, and how the
/// fixed cost of one all-reduce over it (the alpha of the alpha-beta model)
/// is priced: NCCL's tuning model by default, or a user's alpha-beta override.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/fabric/nccl_model.hpp"

namespace tpnet {

/// A plain alpha-beta latency: `base` once per collective plus `per_step` for
/// each sequential step (2(N-1) for a ring). Only used when the user overrides
/// NCCL's model (--base-latency/--step-latency, or a calibration fit); a half
/// left unset keeps NCCL's ring LL constants, 6.6 us and 2.7 us
/// (docs/formulas.md s.5).
struct StepLatency {
  Seconds base = Seconds::microseconds(6.6);
  Seconds per_step = Seconds::microseconds(2.7);
};

/// How the fixed latency of an all-reduce over a link is priced.
struct LinkLatency {
  /// Set: this alpha-beta model replaces NCCL's ("latency: user override").
  std::optional<StepLatency> override;
  /// NCCL's view of the cluster. `ranks`, `nodes` and `link_rate` are filled
  /// in from each all-reduce and the link; the rest applies as set.
  NcclSetup nccl;
  /// true (default): the tuner may only pick the engine's --algorithm, whose
  /// bytes the study's formulas count. false: `nccl.algorithms` applies.
  bool nccl_algorithm_from_engine = true;
};

struct Link {
  std::string name;  ///< what the user typed, or the preset name
  BitRate rate;      ///< rate traffic actually moves at
  LinkLatency latency;
};

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
