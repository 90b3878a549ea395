// Switches as data (tpnet/fabric/switch_spec.hpp): breakout modes, cages and
// what a switch's data ports add up to, on a switch built by hand.

#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "tpnet/fabric/switch_spec.hpp"

using namespace tpnet;

TEST_CASE("breakout modes name and check themselves", "[switch]") {
  const BreakoutMode m = parse_breakout_mode("4x100G", InputLocation::for_key("mode"));
  CHECK(m.count == 4);
  CHECK(m.speed.bits_per_second() == 100e9);
  CHECK(m.name() == "4x100G");
  CHECK(breakout_mode_problem(m, "QSFP56-DD", 8, BitRate::gigabits_per_second(400)).empty());
  CHECK_FALSE(breakout_mode_problem(m, "QSFP56", 4, BitRate::gigabits_per_second(200)).empty());
  CHECK_THROWS_AS(parse_breakout_mode("x100G", InputLocation::for_key("mode")), InputError);
  CHECK_THROWS_AS(parse_breakout_mode("0x100G", InputLocation::for_key("mode")), InputError);
  CHECK(rate_label(BitRate::gigabits_per_second(1600)) == "1.6T");
  CHECK(rate_label(BitRate::gigabits_per_second(2.5)) == "2.5G");
}

namespace {

BitRate gbps(double g) { return BitRate::gigabits_per_second(g); }

PortGroup group(int count, std::string cage, int lanes, BitRate rate,
                std::vector<BreakoutMode> modes, PortRole role = PortRole::data) {
  PortGroup g;
  g.name = cage;
  g.count = count;
  g.cage = std::move(cage);
  g.lanes = lanes;
  g.rate = rate;
  g.modes = std::move(modes);
  g.role = role;
  return g;
}

/// Two 400G QSFP56-DD cages that break out to 2x200G and 4x100G, four 50G
/// SFP56 cages, and a 1G management port that no sum counts.
SwitchSpec hand_built(BitRate fabric_capacity) {
  SwitchSpec s;
  s.name = "hand";
  s.fabric_capacity = fabric_capacity;
  s.port_groups = {
      group(2, "QSFP56-DD", 8, gbps(400), {{1, gbps(400)}, {2, gbps(200)}, {4, gbps(100)}}),
      group(4, "SFP56", 1, gbps(50), {{1, gbps(50)}}),
      group(1, "RJ45", 1, gbps(1), {{1, gbps(1)}}, PortRole::management)};
  return s;
}

}  // namespace

TEST_CASE("a switch's data ports add up to its capacity, management ports aside", "[switch]") {
  // 2 x 400G + 4 x 50G = 1,000 Gb/s; the 1G management port is not forwarded.
  const SwitchSpec s = hand_built(gbps(1000));
  CHECK(s.data_port_capacity().bits_per_second() == 1000e9);
  CHECK(s.non_blocking());
  CHECK_FALSE(hand_built(gbps(800)).non_blocking());  // 800G of fabric for 1T of ports
  CHECK(s.ports_summary() == "2 x QSFP56-DD 400G, 4 x SFP56 50G");
  // Every sub-port speed once, fastest first; the management port's 1G is not offered.
  const std::vector<BitRate> speeds = s.speeds();
  REQUIRE(speeds.size() == 4);
  CHECK(speeds[0] == gbps(400));
  CHECK(speeds[1] == gbps(200));
  CHECK(speeds[2] == gbps(100));
  CHECK(speeds[3] == gbps(50));
}

TEST_CASE("a port group's densest mode at a speed has the most sub-ports", "[switch]") {
  PortGroup g = hand_built(gbps(1000)).port_groups[0];
  g.modes.push_back({2, gbps(100)});  // half the cage idle at 100G
  CHECK(g.densest_mode_at(gbps(100))->count == 4);
  CHECK(g.densest_mode_at(gbps(400))->count == 1);
  CHECK_FALSE(g.densest_mode_at(gbps(25)));
  CHECK(g.label() == "2 x QSFP56-DD 400G");
}

TEST_CASE("cages carry 8, 4 or 1 lanes and unknown cages none", "[switch]") {
  CHECK(cage_lanes("QSFP56-DD") == 8);
  CHECK(cage_lanes("OSFP") == 8);
  CHECK(cage_lanes("QSFP112") == 4);
  CHECK(cage_lanes("SFP56") == 1);
  CHECK_FALSE(cage_lanes("XFP"));
  CHECK_FALSE(cage_lanes("qsfp56"));  // names are matched as the catalogs spell them
  CHECK(cage_types().size() == 13);
  // A 2x25G mode does not split a one-lane cage; 8 x 50G fills an 8-lane 400G cage exactly.
  CHECK_THAT(breakout_mode_problem({2, gbps(25)}, "SFP56", 1, gbps(50)),
             ContainsSubstring("its 1 lane split evenly into 1 sub-ports"));
  CHECK(breakout_mode_problem({8, gbps(50)}, "QSFP56-DD", 8, gbps(400)).empty());
  CHECK(to_string(TrapWhen::multi_switch) == "multi-switch");
  CHECK(rate_label(gbps(0.01)) == "10M");
}
