// The switch and node catalogs: built-in entries, name lookup, and the YAML
// readers' errors (file:line: key: what is wrong).

#include <algorithm>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/node_yaml.hpp"
#include "tpnet/io/switch_catalog.hpp"
#include "tpnet/io/switch_yaml.hpp"

using namespace tpnet;

namespace {

const std::string kSwitch = R"(name: tiny
model: Test Switch
fabric_capacity: 800G
ports:
  - name: big
    count: 2
    cage: QSFP56-DD
    rate: 400G
    modes: [2x200G, 4x100G]
traps:
  - id: force
    when: breakout
    text: force the speed
)";

const std::string kNode = R"(name: box
memory: 64GB
memory_bandwidth: 100GB/s
ports:
  count: 1
  cage: QSFP56
  rate: 200G
  speeds: [100G]
)";

std::string switch_error(const std::string& text) {
  try {
    (void)parse_switch_yaml(text, "bad.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string node_error(const std::string& text) {
  try {
    (void)parse_node_yaml(text, "node.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

/// kSwitch with `from` replaced by `to`.
std::string switch_with(const std::string& from, const std::string& to) {
  std::string text = kSwitch;
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string node_with(const std::string& from, const std::string& to) {
  std::string text = kNode;
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("every built-in switch parses, is named after its file and states its source",
          "[switch][catalog]") {
  const auto names = builtin_switch_names();
  CHECK(names ==
        std::vector<std::string>{"crs504", "crs520", "crs804", "crs812", "sn3700", "sn5400"});
  for (const auto& sw : builtin_switches()) {
    INFO(sw.name);
    CHECK(std::find(names.begin(), names.end(), sw.name) != names.end());
    CHECK_FALSE(sw.source.empty());
    CHECK_FALSE(sw.chip.empty());
    CHECK(sw.non_blocking());
    for (const auto& g : sw.port_groups) {
      CHECK(cage_lanes(g.cage) == g.lanes);
      CHECK(g.densest_mode_at(g.rate));  // the native rate is always a mode
    }
  }
}

TEST_CASE("the switch catalog reads docs/background.md's ports for the CRS812 and CRS804",
          "[switch][catalog][golden]") {
  const SwitchSpec crs812 = builtin_switch("crs812");
  CHECK(crs812.model == "MikroTik CRS812-8DS-2DQ-2DDQ-RM");
  CHECK(crs812.chip == "Marvell 98DX7335");
  CHECK(crs812.fabric_capacity.bits_per_second() == 1.6e12);
  REQUIRE(crs812.port_groups.size() == 4);
  CHECK(crs812.port_groups[0].label() == "2 x QSFP56-DD 400G");
  CHECK(crs812.port_groups[1].label() == "2 x QSFP56 200G");
  CHECK(crs812.port_groups[2].label() == "8 x SFP56 50G");
  CHECK(crs812.port_groups[3].role == PortRole::management);
  CHECK(crs812.port_groups[0].modes.size() == 7);
  CHECK(crs812.port_groups[1].modes.size() == 8);
  CHECK(crs812.ports_summary() == "2 x QSFP56-DD 400G, 2 x QSFP56 200G, 8 x SFP56 50G");

  const SwitchSpec crs804 = builtin_switch("crs804");
  REQUIRE(crs804.port_groups.size() == 2);
  CHECK(crs804.port_groups[0].label() == "4 x QSFP56-DD 400G");
  CHECK(crs804.data_port_capacity().bits_per_second() == 1.6e12);

  CHECK(builtin_switch("sn5400").port_groups[0].count == 64);
  CHECK(builtin_switch("sn3700").port_groups[0].count == 32);
  CHECK(builtin_switch("crs520").port_groups[0].label() == "16 x QSFP28 100G");
  CHECK(builtin_switch("crs504").port_groups[0].label() == "4 x QSFP28 100G");
}

TEST_CASE("switches are found by alias and model code, without regard to case",
          "[switch][catalog]") {
  CHECK(builtin_switch("CRS812-8DS-2DQ-2DDQ-RM").name == "crs812");
  CHECK(builtin_switch("crs804-4ddq-hrm").name == "crs804");
  CHECK(builtin_switch("SN5400").name == "sn5400");
  CHECK(resolve_switch("crs520").name == "crs520");
}

TEST_CASE("an unknown switch name suggests close names", "[switch][catalog][bad-input]") {
  try {
    (void)builtin_switch("crs81");
    FAIL("accepted crs81");
  } catch (const InputError& e) {
    CHECK(e.where().key == "switches");
    CHECK_THAT(std::string(e.what()), ContainsSubstring("unknown switch 'crs81'"));
    CHECK_THAT(std::string(e.what()), ContainsSubstring("did you mean crs812"));
  }
  CHECK_THROWS_AS(resolve_switch(""), InputError);
  CHECK_THROWS_AS(resolve_switch("./missing.yaml"), InputError);
}

TEST_CASE("the model catalog holds models only: switches and nodes have their own lists",
          "[switch][catalog]") {
  const auto models = builtin_model_names();
  for (const auto& name : builtin_switch_names()) {
    CHECK(std::find(models.begin(), models.end(), name) == models.end());
  }
  CHECK(std::find(models.begin(), models.end(), "dgx-spark") == models.end());
  CHECK(builtin_node_names() == std::vector<std::string>{"dgx-spark"});
}

TEST_CASE("the DGX Spark node carries docs/background.md's memory, ports and host links",
          "[node][catalog][golden]") {
  const NodeSpec spark = builtin_node("dgx-spark");
  CHECK(spark.memory.count() == 128e9);
  CHECK(spark.memory_bandwidth.bytes_per_second() == 273e9);
  CHECK(spark.usable_memory.count() == 121e9);
  CHECK(spark.reserved_memory.count() == 9e9);
  CHECK(spark.nic == "ConnectX-7");
  CHECK(spark.ports.count == 2);
  CHECK(spark.ports.rate.bits_per_second() == 200e9);
  CHECK(spark.ports.supports(BitRate::gigabits_per_second(100)));
  CHECK_FALSE(spark.ports.supports(BitRate::gigabits_per_second(400)));
  CHECK(spark.host_links.count == 2);
  CHECK(spark.host_links.pcie_gen == 5);
  CHECK(spark.host_links.lanes == 4);
  CHECK(spark.host_links.usable.bits_per_second() == 109e9);
  // ~200 Gb/s per node however it is cabled: not 2 x 200G, not 2 x 109G.
  CHECK(spark.network_rate().bits_per_second() == 200e9);
  CHECK_THROWS_AS(builtin_node("dgx"), InputError);
}

TEST_CASE("a switch file parses, adding the native mode when it is not listed", "[switch][yaml]") {
  const SwitchSpec s = parse_switch_yaml(kSwitch, "tiny.yaml");
  CHECK(s.name == "tiny");
  REQUIRE(s.port_groups.size() == 1);
  const PortGroup& g = s.port_groups[0];
  CHECK(g.lanes == 8);
  REQUIRE(g.modes.size() == 3);
  CHECK(g.modes[0].name() == "1x400G");
  CHECK(g.modes[2].name() == "4x100G");
  CHECK(g.densest_mode_at(BitRate::gigabits_per_second(100))->count == 4);
  CHECK_FALSE(g.densest_mode_at(BitRate::gigabits_per_second(25)));
  REQUIRE(s.traps.size() == 1);
  CHECK(s.traps[0].when == TrapWhen::breakout);
}

TEST_CASE("a breakout mode that does not divide the cage is an error naming file, line and key",
          "[switch][yaml][bad-input]") {
  SECTION("more sub-ports than lanes split into") {
    const std::string e = switch_error(switch_with("[2x200G, 4x100G]", "[2x200G, 3x100G]"));
    CHECK_THAT(e, ContainsSubstring("bad.yaml:9: ports[0].modes: 3x100G does not divide"));
    CHECK_THAT(e, ContainsSubstring("1, 2, 4, 8 sub-ports"));
  }
  SECTION("sub-ports faster than the cage") {
    const std::string e = switch_error(switch_with("[2x200G, 4x100G]", "[4x200G]"));
    CHECK_THAT(e, ContainsSubstring("bad.yaml:9: ports[0].modes: 4x200G does not divide"));
    CHECK_THAT(e, ContainsSubstring("need 800G, more than the cage's 400G"));
  }
  SECTION("not a mode at all") {
    CHECK_THAT(switch_error(switch_with("[2x200G, 4x100G]", "[four by 100]")),
               ContainsSubstring("ports[0].modes: 'four by 100' is not a breakout mode"));
  }
  SECTION("listed twice") {
    CHECK_THAT(switch_error(switch_with("[2x200G, 4x100G]", "[4x100G, 4x100G]")),
               ContainsSubstring("4x100G is listed twice"));
  }
  SECTION("more than one cage's lanes on a single-lane cage") {
    const std::string e =
        switch_error(switch_with("cage: QSFP56-DD\n    rate: 400G\n    modes: [2x200G, 4x100G]",
                                 "cage: SFP56\n    rate: 50G\n    modes: [2x25G]"));
    CHECK_THAT(e, ContainsSubstring("bad.yaml:9: ports[0].modes: 2x25G does not divide a SFP56"));
  }
}

TEST_CASE("an unknown port type or key in a switch file names file, line and key",
          "[switch][yaml][bad-input]") {
  CHECK_THAT(switch_error(switch_with("cage: QSFP56-DD", "cage: QSFP57")),
             ContainsSubstring("bad.yaml:7: ports[0].cage: 'QSFP57' is not a known port type"));
  CHECK_THAT(switch_error(switch_with("fabric_capacity: 800G", "fabric_capacity: 800G\nfabric: 1")),
             ContainsSubstring("bad.yaml:4: fabric: unknown key"));
  CHECK_THAT(switch_error(switch_with("    count: 2\n", "    count: 2\n    speed: 1\n")),
             ContainsSubstring("bad.yaml:7: ports[0].speed: unknown key"));
  CHECK_THAT(switch_error(switch_with("    rate: 400G", "    rate: 400")),
             ContainsSubstring("ports[0].rate: '400' is not a bit rate"));
  CHECK_THAT(switch_error(switch_with("    count: 2", "    count: 0")),
             ContainsSubstring("ports[0].count: 0 is out of range"));
  CHECK_THAT(switch_error(switch_with("when: breakout", "when: sometimes")),
             ContainsSubstring("traps[0].when: 'sometimes' is not a trap condition"));
  CHECK_THAT(switch_error(switch_with("fabric_capacity: 800G\n", "")),
             ContainsSubstring("bad.yaml:1: fabric_capacity: required key is missing"));
  CHECK_THAT(switch_error(switch_with("  - name: big\n", "  - name: big\n    role: spine\n")),
             ContainsSubstring("ports[0].role: 'spine' is not a port role"));
  CHECK_THAT(switch_error("name: x\nfabric_capacity: 1T\nports: []\n"),
             ContainsSubstring("bad.yaml:3: ports: expected a list of port groups"));
  CHECK_THAT(switch_error(""), ContainsSubstring("bad.yaml: is empty"));
}

TEST_CASE("a switch file loads from a path", "[switch][yaml]") {
  const auto path = tpnet::test::write_temp("tpnet_test_switch.yaml", kSwitch);
  CHECK(resolve_switch(path.string()).name == "tiny");
  CHECK(load_switch_file(path.string()).port_groups.size() == 1);
}

TEST_CASE("a node file parses and its errors name file, line and key", "[node][yaml][bad-input]") {
  const NodeSpec n = parse_node_yaml(kNode, "node.yaml");
  CHECK(n.usable_memory.count() == 64e9);  // defaults to all of it
  CHECK(n.ports.speeds.size() == 2);       // the port's own rate added
  CHECK(n.network_rate().bits_per_second() == 200e9);
  CHECK_THAT(node_error(node_with("[100G]", "[400G]")),
             ContainsSubstring("node.yaml:8: ports.speeds: 400G is faster than the port's rate"));
  CHECK_THAT(node_error(node_with("cage: QSFP56", "cage: XFP")),
             ContainsSubstring("node.yaml:6: ports.cage: 'XFP' is not a known port type"));
  CHECK_THAT(node_error(node_with("memory: 64GB", "memory: 64GB\nusable_memory: 65GB")),
             ContainsSubstring("node.yaml:3: usable_memory: must not exceed memory"));
  CHECK_THAT(node_error(node_with("memory: 64GB", "memory: 64GB\ngpu: 1")),
             ContainsSubstring("node.yaml:3: gpu: unknown key"));
  CHECK_THAT(node_error(node_with("memory_bandwidth: 100GB/s", "memory_bandwidth: fast")),
             ContainsSubstring("memory_bandwidth: 'fast' is not a bit rate"));
  CHECK_THAT(node_error(node_with("  count: 1\n", "  count: 1\n  lanes: 4\n")),
             ContainsSubstring("ports.lanes: unknown key"));
}

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

TEST_CASE("a node's bus-bandwidth fault bands are read from its file and checked in order",
          "[node][yaml][bad-input][doctor]") {
  const NodeSpec spark = builtin_node("dgx-spark");
  REQUIRE(spark.bus_bandwidth_faults);
  const BusBandwidthFaults& f = *spark.bus_bandwidth_faults;
  // docs/background.md s.9's measurements each fall in their own band.
  CHECK(BitRate::gigabits_per_second(4.9) < f.software_forwarded_below);
  CHECK(BitRate::gigabits_per_second(12.74) <= f.degraded_nic_up_to);
  CHECK(BitRate::gigabits_per_second(109.11) >= f.one_pcie_half_from);
  CHECK(BitRate::gigabits_per_second(111.86) <= f.one_pcie_half_to);
  CHECK(BitRate::gigabits_per_second(196) > f.one_pcie_half_to);
  CHECK_FALSE(f.source.empty());
  CHECK_FALSE(parse_node_yaml(kNode, "node.yaml").bus_bandwidth_faults);

  const std::string bands =
      "bus_bandwidth_faults:\n  software_forwarded_below: 8G\n  degraded_nic_up_to: 25G\n"
      "  one_pcie_half: [95G, 125G]\n  one_pcie_half_on_links_from: 180G\n  source: s\n";
  const auto with_bands = [&](const std::string& from, const std::string& to) {
    std::string text = bands;
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return node_with("memory: 64GB\n", "memory: 64GB\n" + text.replace(at, from.size(), to));
  };
  CHECK(parse_node_yaml(with_bands("s\n", "s\n"), "node.yaml").bus_bandwidth_faults);
  CHECK_THAT(node_error(with_bands("[95G, 125G]", "[125G, 95G]")),
             ContainsSubstring("bus_bandwidth_faults.one_pcie_half: needs lowest < highest"));
  CHECK_THAT(node_error(with_bands("degraded_nic_up_to: 25G", "degraded_nic_up_to: 5G")),
             ContainsSubstring("bus_bandwidth_faults.degraded_nic_up_to: needs "
                               "software_forwarded_below < degraded_nic_up_to"));
  CHECK_THAT(node_error(with_bands("[95G, 125G]", "95G")),
             ContainsSubstring("bus_bandwidth_faults.one_pcie_half: expected [lowest, highest]"));
  CHECK_THAT(node_error(with_bands("  source: s\n", "")),
             ContainsSubstring("bus_bandwidth_faults.source"));
}
