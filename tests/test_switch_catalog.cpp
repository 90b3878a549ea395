// The switch catalog (tpnet/io/switch_catalog.hpp): built-in entries and name
// lookup. The switch and node files' readers, the node catalog and the
// switch spec have test files of their own names.

#include <algorithm>

#include "catch.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/switch_catalog.hpp"

using namespace tpnet;

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
