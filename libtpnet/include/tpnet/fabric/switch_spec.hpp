#pragma once
/// Switches as data: port groups with their cages and breakout modes, fabric
/// capacity and the known traps of each model. The built-in catalog is
/// models/switches/*.yaml, embedded at build time; schema in docs/switch.md.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"

namespace tpnet {

/// A physical port form factor and how many electrical lanes it carries;
/// breakouts split the lanes evenly between sub-ports.
struct CageType {
  std::string_view name;  ///< "QSFP56-DD"
  int lanes = 1;
};

/// Every cage type a catalog may name: QSFP56-DD, QSFP-DD, QSFP112-DD, OSFP
/// (8 lanes), QSFP112, QSFP56, QSFP28, QSFP+ (4), SFP56, SFP28, SFP+, SFP, RJ45 (1).
[[nodiscard]] const std::vector<CageType>& cage_types();
/// The cage's lane count; nullopt for a name not in cage_types().
[[nodiscard]] std::optional<int> cage_lanes(std::string_view cage);

/// One way to run a cage: `count` sub-ports of `speed` each (1 x native rate,
/// or a breakout such as 4 x 100G).
struct BreakoutMode {
  int count = 1;
  BitRate speed;

  [[nodiscard]] bool breakout() const { return count > 1; }
  [[nodiscard]] std::string name() const;  ///< "4x100G"
};

/// "4x100G" -> {4, 100 Gb/s}; the rate takes any unit parse_bit_rate accepts.
BreakoutMode parse_breakout_mode(std::string_view text, const InputLocation& where);

/// Why a mode cannot run on a cage (empty when it can): the sub-ports must
/// split the cage's lanes evenly and together carry no more than its rate.
[[nodiscard]] std::string breakout_mode_problem(const BreakoutMode& mode, std::string_view cage,
                                                int lanes, BitRate rate);

enum class PortRole { data, management };

/// `count` identical cages.
struct PortGroup {
  std::string name;  ///< "qsfp56-dd"
  int count = 0;
  std::string cage;                 ///< "QSFP56-DD"
  int lanes = 1;                    ///< from the cage type
  BitRate rate;                     ///< native rate of one cage
  std::vector<BreakoutMode> modes;  ///< always includes 1 x rate
  PortRole role = PortRole::data;
  std::string note;

  /// The mode with the most sub-ports at exactly `speed`; nullopt when none runs at it.
  [[nodiscard]] std::optional<BreakoutMode> densest_mode_at(BitRate speed) const;
  /// "2 x QSFP56-DD 400G"
  [[nodiscard]] std::string label() const;
};

/// When a trap applies to a plan.
enum class TrapWhen { always, breakout, multi_switch };
[[nodiscard]] std::string_view to_string(TrapWhen when);

/// A known way a plan on this switch goes wrong, and what to do about it.
struct SwitchTrap {
  std::string id;  ///< "breakout-speed"
  TrapWhen when = TrapWhen::always;
  std::string text;
  std::string source;
};

struct SwitchSpec {
  std::string name;  ///< catalog name, the file stem: "crs812"
  std::vector<std::string> aliases;
  std::string model;  ///< "MikroTik CRS812-8DS-2DQ-2DDQ-RM"
  std::string vendor;
  std::string description;
  std::string source;
  std::string chip;
  /// What the switch forwards at once, per direction (the sum of its ports'
  /// rates for a non-blocking switch).
  BitRate fabric_capacity;
  std::vector<PortGroup> port_groups;
  std::vector<SwitchTrap> traps;
  std::vector<std::string> notes;

  /// Sum of every data port's native rate, per direction.
  [[nodiscard]] BitRate data_port_capacity() const;
  /// The fabric forwards every data port at full rate at once.
  [[nodiscard]] bool non_blocking() const;
  /// The distinct sub-port speeds its data ports offer, fastest first.
  [[nodiscard]] std::vector<BitRate> speeds() const;
  /// "2 x QSFP56-DD 400G, 2 x QSFP56 200G, 8 x SFP56 50G" (data ports).
  [[nodiscard]] std::string ports_summary() const;
};

/// "400G", "2.5G", "1.6T": a rate as the catalogs and plans name it.
[[nodiscard]] std::string rate_label(BitRate rate);

}  // namespace tpnet
