#include "tpnet/fabric/switch_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>

#include "tpnet/base/quantity.hpp"

namespace tpnet {

const std::vector<CageType>& cage_types() {
  static const std::vector<CageType> types{
      {"QSFP56-DD", 8}, {"QSFP-DD", 8}, {"QSFP112-DD", 8}, {"OSFP", 8},  {"QSFP112", 4},
      {"QSFP56", 4},    {"QSFP28", 4},  {"QSFP+", 4},      {"SFP56", 1}, {"SFP28", 1},
      {"SFP+", 1},      {"SFP", 1},     {"RJ45", 1},
  };
  return types;
}

std::optional<int> cage_lanes(std::string_view cage) {
  for (const auto& type : cage_types()) {
    if (type.name == cage) return type.lanes;
  }
  return std::nullopt;
}

std::string rate_label(BitRate rate) {
  const double gbps = rate.bits_per_second() / 1e9;
  if (gbps >= 1000.0) return fmt::format("{:g}T", gbps / 1000.0);
  if (gbps >= 1.0) return fmt::format("{:g}G", gbps);
  if (gbps >= 1e-3) return fmt::format("{:g}M", gbps * 1000.0);
  return format_bit_rate(rate);  // "1 b/s": never an exponent
}

std::string BreakoutMode::name() const { return fmt::format("{}x{}", count, rate_label(speed)); }

BreakoutMode parse_breakout_mode(std::string_view text, const InputLocation& where) {
  const auto x = text.find_first_of("xX");
  const auto bad = [&] {
    return InputError(fmt::format("'{}' is not a breakout mode; use COUNTxRATE such as 4x100G, "
                                  "2x200G or 1x400G",
                                  text),
                      where);
  };
  if (x == std::string_view::npos || x == 0) throw bad();
  int count = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + x, count);
  if (ec != std::errc() || ptr != text.data() + x || count < 1 || count > 64) throw bad();
  BreakoutMode mode;
  mode.count = count;
  try {
    mode.speed = parse_bit_rate(text.substr(x + 1), where);
  } catch (const InputError&) {
    throw bad();
  }
  return mode;
}

std::string breakout_mode_problem(const BreakoutMode& mode, std::string_view cage, int lanes,
                                  BitRate rate) {
  if (mode.count > lanes || lanes % mode.count != 0) {
    std::string splits;
    for (int n = 1; n <= lanes; ++n) {
      if (lanes % n == 0) splits += (splits.empty() ? "" : ", ") + std::to_string(n);
    }
    return fmt::format("{} does not divide a {} cage: its {} lane{} split evenly into {} sub-ports",
                       mode.name(), cage, lanes, lanes == 1 ? "" : "s", splits);
  }
  const BitRate total = mode.speed * static_cast<double>(mode.count);
  if (total > rate && !same_rate(total, rate)) {
    return fmt::format(
        "{} does not divide a {} {} cage: {} sub-port{} of {} need {}, more than the cage's {}",
        mode.name(), rate_label(rate), cage, mode.count, mode.count == 1 ? "" : "s",
        rate_label(mode.speed), rate_label(total), rate_label(rate));
  }
  return {};
}

std::optional<BreakoutMode> PortGroup::densest_mode_at(BitRate speed) const {
  std::optional<BreakoutMode> best;
  for (const auto& mode : modes) {
    if (same_rate(mode.speed, speed) && (!best || mode.count > best->count)) best = mode;
  }
  return best;
}

std::string PortGroup::label() const {
  return fmt::format("{} x {} {}", count, cage, rate_label(rate));
}

std::string_view to_string(TrapWhen when) {
  switch (when) {
    case TrapWhen::always:
      return "always";
    case TrapWhen::breakout:
      return "breakout";
    case TrapWhen::multi_switch:
      return "multi-switch";
  }
  return "always";
}

BitRate SwitchSpec::data_port_capacity() const {
  double bps = 0.0;
  for (const auto& g : port_groups) {
    if (g.role == PortRole::data) bps += g.rate.bits_per_second() * g.count;
  }
  return BitRate(bps);
}

bool SwitchSpec::non_blocking() const {
  const BitRate ports = data_port_capacity();
  return fabric_capacity >= ports || same_rate(fabric_capacity, ports);
}

std::vector<BitRate> SwitchSpec::speeds() const {
  std::vector<BitRate> out;
  for (const auto& g : port_groups) {
    if (g.role != PortRole::data) continue;
    for (const auto& mode : g.modes) {
      const bool known =
          std::any_of(out.begin(), out.end(), [&](BitRate r) { return same_rate(r, mode.speed); });
      if (!known) out.push_back(mode.speed);
    }
  }
  std::sort(out.begin(), out.end(), [](BitRate a, BitRate b) { return a > b; });
  return out;
}

std::string SwitchSpec::ports_summary() const {
  std::string out;
  for (const auto& g : port_groups) {
    if (g.role == PortRole::data) out += (out.empty() ? "" : ", ") + g.label();
  }
  return out;
}

}  // namespace tpnet
