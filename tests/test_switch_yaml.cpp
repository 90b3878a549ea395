// Switch files (tpnet/io/switch_yaml.hpp, schema in docs/switch.md): a file
// parses into port groups with their breakout modes, and every error names
// file, line and key.

#include <string>

#include "catch.hpp"
#include "cli_checks.hpp"
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

std::string switch_error(const std::string& text) {
  try {
    (void)parse_switch_yaml(text, "bad.yaml");
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

}  // namespace

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
