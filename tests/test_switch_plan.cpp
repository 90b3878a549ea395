// Switch plans: docs/background.md s.5's figures, the port arithmetic behind them,
// multi-switch oversubscription and the switchless layouts.

#include <algorithm>
#include <string>

#include "catch.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/fabric/switch_plan.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/switch_catalog.hpp"

using namespace tpnet;

namespace {

const BitRate k200G = BitRate::gigabits_per_second(200);
const BitRate k100G = BitRate::gigabits_per_second(100);

const NodeSpec& spark() {
  static const NodeSpec node = builtin_node("dgx-spark");
  return node;
}

const PortUse* find_use(const SwitchUnit& unit, const std::string& group, bool isl = false) {
  for (const auto& use : unit.ports) {
    if (use.group == group && use.isl == isl) return &use;
  }
  return nullptr;
}

bool has_trap(const SwitchPlan& plan, const std::string& id) {
  return std::any_of(plan.traps.begin(), plan.traps.end(),
                     [&](const SwitchTrap& t) { return t.id == id; });
}

}  // namespace

TEST_CASE("CRS812 takes 4 DGX Sparks at 200G on its QSFP-DD ports, 6 with the QSFP56 ports",
          "[golden][switch]") {
  const SwitchSpec crs812 = builtin_switch("crs812");
  CHECK(headline_nodes_on(crs812, k200G) == 4);
  CHECK(max_nodes_on(crs812, k200G) == 6);
  const SwitchAnswer a = answer_for_switch(crs812, spark(), 6, k200G);
  CHECK(a.fits_one);
  CHECK(a.headline_nodes == 4);
  CHECK_THAT(a.headline_note, ContainsSubstring("4 is the figure usually quoted"));
  CHECK_THAT(a.headline_note, ContainsSubstring("2 x QSFP56 200G ports as 1x200G (+2)"));
  const SwitchUnit& unit = a.plans.front().units.front();
  CHECK(find_use(unit, "qsfp56-dd")->mode.name() == "2x200G");
  CHECK(find_use(unit, "qsfp56-dd")->nodes == 4);
  CHECK(find_use(unit, "qsfp56")->mode.name() == "1x200G");
  CHECK(find_use(unit, "qsfp56")->nodes == 2);
}

TEST_CASE("CRS812 takes 8 DGX Sparks at 100G on its QSFP-DD ports, 12 with the QSFP56 ports",
          "[golden][switch]") {
  const SwitchSpec crs812 = builtin_switch("crs812");
  CHECK(headline_nodes_on(crs812, k100G) == 8);
  CHECK(max_nodes_on(crs812, k100G) == 12);
  const SwitchAnswer a = answer_for_switch(crs812, spark(), 8, k100G);
  CHECK_THAT(a.headline_note,
             ContainsSubstring("8 is the figure usually quoted, counting only the 2 x QSFP56-DD "
                               "400G ports (each as 4x100G)"));
  CHECK_THAT(a.headline_note, ContainsSubstring("2 x QSFP56 200G ports as 2x100G (+4)"));
  // docs/background.md's 8 fit the QSFP-DD ports alone: two 4 x 100G breakout cables.
  REQUIRE(a.fits_one);
  const SwitchPlan& plan = a.plans.front();
  const SwitchUnit& unit = plan.units.front();
  REQUIRE(unit.ports.size() == 1);
  CHECK(unit.ports[0].group == "qsfp56-dd");
  CHECK(unit.ports[0].cages == 2);
  CHECK(unit.ports[0].mode.name() == "4x100G");
  REQUIRE(plan.cables.size() == 1);
  CHECK(plan.cables[0].text() == "2 x QSFP56-DD 400G to 4 x 100G breakout cable");
}

TEST_CASE("CRS804 takes 8 DGX Sparks at 200G", "[golden][switch]") {
  const SwitchSpec crs804 = builtin_switch("crs804");
  CHECK(max_nodes_on(crs804, k200G) == 8);
  CHECK(headline_nodes_on(crs804, k200G) == 8);
  const auto plan = plan_one_switch(crs804, spark(), 8, k200G);
  REQUIRE(plan);
  CHECK(plan->cables.front().text() == "4 x QSFP56-DD 400G to 2 x 200G breakout cable");
  CHECK_FALSE(plan_one_switch(crs804, spark(), 9, k200G));
}

TEST_CASE("CRS804 takes 16 DGX Sparks at 100G", "[golden][switch]") {
  const SwitchSpec crs804 = builtin_switch("crs804");
  CHECK(max_nodes_on(crs804, k100G) == 16);
  const SwitchAnswer a = answer_for_switch(crs804, spark(), 16, k100G);
  CHECK(a.fits_one);
  CHECK(a.headline_note.empty());  // quoted and catalog figures agree
  const SwitchPlan& plan = a.plans.front();
  CHECK(plan.cables.front().text() == "4 x QSFP56-DD 400G to 4 x 100G breakout cable");
  CHECK(plan.units.front().spare.empty());
  CHECK(plan.fabric_full_rate());
  CHECK(plan.units.front().fabric_load.bits_per_second() == 1.6e12);
}

TEST_CASE("no plan runs more sub-ports than a cage has or more cages than a group has",
          "[switch]") {
  for (const auto& sw : builtin_switches()) {
    for (const BitRate speed : sw.speeds()) {
      const int max = max_nodes_on(sw, speed);
      for (const int nodes : {1, 2, 3, 5, max / 2, max - 1, max, max + 1, 2 * max + 3}) {
        if (nodes < 1) continue;
        INFO(sw.name << " " << rate_label(speed) << " " << nodes);
        std::vector<SwitchPlan> plans;
        if (auto one = plan_one_switch(sw, spark(), nodes, speed)) plans.push_back(*one);
        for (auto& p : plan_multi_switch(sw, spark(), nodes, speed)) plans.push_back(p);
        CHECK((nodes <= max) == (plans.size() >= 1 && plans[0].switches == 1));
        for (const auto& plan : plans) {
          int placed = 0;
          for (const auto& unit : plan.units) {
            placed += unit.nodes * unit.copies;
            int on_unit = 0;
            for (const auto& g : sw.port_groups) {
              int cages = 0;
              for (const auto& use : unit.ports) {
                if (use.group != g.name) continue;
                cages += use.cages;
                if (use.isl) {
                  CHECK(use.nodes == 0);
                  CHECK(use.mode.count == 1);
                  CHECK(use.cage_rate >= speed);
                } else {
                  CHECK(use.nodes + use.spare_subports == use.cages * use.mode.count);
                }
                CHECK(use.mode.count <= g.lanes);
                CHECK(use.spare_subports < std::max(1, use.mode.count));
                on_unit += use.nodes;
              }
              for (const auto& spare : unit.spare) {
                if (spare.group == g.name) cages += spare.cages;
              }
              CHECK(cages <= g.count);
              if (g.role == PortRole::data) CHECK(cages == g.count);  // every cage accounted for
            }
            CHECK(on_unit == unit.nodes);
          }
          CHECK(placed == nodes);
        }
      }
    }
  }
}

TEST_CASE("leftover ports say what they could still serve", "[switch]") {
  // 5 Sparks at 100G on a CRS812: one full 4 x 100G breakout, then the fifth
  // on a straight QSFP56 cable rather than a half-used breakout.
  const auto plan = plan_one_switch(builtin_switch("crs812"), spark(), 5, k100G);
  REQUIRE(plan);
  const SwitchUnit& unit = plan->units.front();
  REQUIRE(unit.ports.size() == 2);
  CHECK(unit.ports[0].group == "qsfp56-dd");
  CHECK(unit.ports[0].cages == 1);
  CHECK(unit.ports[0].nodes == 4);
  CHECK(unit.ports[1].group == "qsfp56");
  CHECK(unit.ports[1].mode.name() == "1x100G");
  CHECK(unit.ports[1].spare_subports == 0);
  CHECK(unit.ports[1].cable == "QSFP56 cable run at 100G");
  REQUIRE(unit.spare.size() == 3);
  CHECK(unit.spare[0].group == "qsfp56-dd");
  CHECK(unit.spare[0].cages == 1);
  CHECK(unit.spare[0].more_nodes == 4);
  CHECK(unit.spare[0].could_serve == "4 more nodes at 100G, or an uplink at up to 400G");
  CHECK(unit.spare[1].group == "qsfp56");
  CHECK(unit.spare[1].more_nodes == 2);
  CHECK(unit.spare[2].group == "sfp56");
  CHECK(unit.spare[2].more_nodes == 0);
  CHECK_THAT(unit.spare[2].could_serve, ContainsSubstring("no node at 100G"));
}

TEST_CASE("a part-used breakout leaves its spare sub-ports to more nodes", "[switch]") {
  // 6 Sparks at 100G on a CRS804: one full 4 x 100G cage and one with 2 of 4 used.
  const auto plan = plan_one_switch(builtin_switch("crs804"), spark(), 6, k100G);
  REQUIRE(plan);
  const SwitchUnit& unit = plan->units.front();
  REQUIRE(unit.ports.size() == 2);
  CHECK(unit.ports[1].cages == 1);
  CHECK(unit.ports[1].nodes == 2);
  CHECK(unit.ports[1].spare_subports == 2);
  REQUIRE(unit.spare.size() == 1);
  CHECK(unit.spare[0].cages == 2);
  CHECK(unit.spare[0].subports == 2);
  CHECK(unit.spare[0].more_nodes == 10);
}

TEST_CASE("16 DGX Sparks at 100G need two CRS812s joined by a 400G ISL, 2:1 oversubscribed",
          "[switch]") {
  const SwitchAnswer a = answer_for_switch(builtin_switch("crs812"), spark(), 16, k100G);
  CHECK_FALSE(a.fits_one);
  CHECK(a.switches_needed == 2);
  REQUIRE(a.plans.size() == 1);  // no non-blocking star of CRS812s exists
  const SwitchPlan& plan = a.plans.front();
  CHECK(plan.topology == Topology::pair);
  REQUIRE(plan.isl);
  CHECK(plan.isl->cage == "QSFP56-DD");
  CHECK(plan.isl->cables() == 1);
  CHECK(plan.isl->lag_capacity.bits_per_second() == 400e9);
  // 8 nodes on each side: at most 8 x 100G must cross the 400G link.
  CHECK(plan.isl->worst_cross_traffic.bits_per_second() == 800e9);
  CHECK(plan.oversubscription() == 2.0);
  CHECK(plan.units[0].nodes + plan.units[1].nodes == 16);
  CHECK(has_trap(plan, "isl-shared"));
  CHECK(has_trap(plan, "isl-rstp"));
  CHECK(has_trap(plan, "breakout-speed"));
  CHECK(plan.checklist.size() == 5);
  CHECK_FALSE(plan.checklist[3].catalog_ok);
  // An all-to-all sends 8/15 of each node's rate across: 8 x 8/15 x 100G,
  // less than the worst case but still above the 400G link.
  CHECK(plan.isl->all_to_all_cross_traffic.bits_per_second() == Approx(8 * 8 / 15.0 * 100e9));
  CHECK(plan.isl->all_to_all_oversubscription == Approx(64 / 60.0));
  CHECK_FALSE(plan.all_to_all_full_rate());
  CHECK_FALSE(plan.checklist[4].catalog_ok);
  CHECK_THAT(plan.checklist[4].check, ContainsSubstring("all-to-all"));
}

TEST_CASE("16 DGX Sparks at 200G need three CRS804s in a star, 3:1 oversubscribed", "[switch]") {
  const SwitchAnswer a = answer_for_switch(builtin_switch("crs804"), spark(), 16, k200G);
  CHECK(a.switches_needed == 3);
  const SwitchPlan& plan = a.plans.front();
  CHECK(plan.topology == Topology::star);
  REQUIRE(plan.units.size() == 2);
  CHECK(plan.units[0].role == SwitchRole::hub);
  CHECK(plan.units[0].nodes == 4);  // two of its four cages go to the leaves
  CHECK(plan.units[1].copies == 2);
  CHECK(plan.units[1].nodes == 6);
  CHECK(plan.isl->cables() == 2);
  // A leaf's 6 nodes against the other 10: 6 x 200G over one 400G link.
  CHECK(plan.oversubscription() == 3.0);
  // An all-to-all: each of the 6 sends 10/15 of its 200G to the other side.
  CHECK(plan.isl->all_to_all_oversubscription == Approx(6 * 10 / 15.0 * 200e9 / 400e9));
  CHECK(plan.cables.back().text() == "2 x QSFP56-DD 400G cable between switches");
}

TEST_CASE("ISLs never run slower than a node's link, so no LAG member caps a flow", "[switch]") {
  // The CRS812's 8 x 50G SFP56 ports would make an 8 x 50G LAG, yet a 100G
  // flow hashed onto one member would get 50G.
  for (const auto& plan : plan_multi_switch(builtin_switch("crs812"), spark(), 16, k100G)) {
    CHECK(plan.isl->rate >= k100G);
  }
}

TEST_CASE("a multi-switch search adds a non-blocking star when one exists", "[switch]") {
  // 50 Sparks at 25G on CRS804s (8 x 25G per 400G cage, 32 per switch). Three
  // switches: a hub with 16, leaves with 17 each against 33 behind one 400G
  // ISL: 17 x 25G / 400G = 1.0625. Four: hub 8, leaves 14: 350G / 400G.
  const BitRate k25G = BitRate::gigabits_per_second(25);
  const SwitchAnswer a = answer_for_switch(builtin_switch("crs804"), spark(), 50, k25G);
  REQUIRE(a.plans.size() == 2);
  CHECK(a.plans[0].switches == 3);
  CHECK(a.plans[0].oversubscription() == 1.0625);
  CHECK(a.plans[1].switches == 4);
  CHECK(a.plans[1].oversubscription() == 0.875);
  CHECK(a.plans[1].checklist.back().catalog_ok);
  CHECK_THAT(a.verdict, ContainsSubstring("non-blocking with 4"));
  // Where the fewest switches are already non-blocking, that is the only plan.
  const SwitchAnswer b = answer_for_switch(builtin_switch("crs804"), spark(), 40, k25G);
  REQUIRE(b.plans.size() == 1);
  CHECK(b.plans[0].switches == 2);
  CHECK(b.plans[0].oversubscription() == 1.0);  // 16 x 25G over one 400G ISL
}

TEST_CASE("more nodes than any star of a switch takes is a verdict, not a crash", "[switch]") {
  const SwitchAnswer a = answer_for_switch(builtin_switch("crs812"), spark(), 16, k200G);
  CHECK(a.plans.empty());
  CHECK(a.switches_needed == 0);
  CHECK(a.max_switches == 3);
  CHECK(a.most_nodes_multi == 14);
  CHECK_THAT(a.verdict, ContainsSubstring("does not fit"));
  const SwitchPlanReport r = plan_switches(builtin_switches(), spark(), kMaxClusterNodes, k100G);
  for (const auto& answer : r.switches) CHECK(answer.plans.empty());
}

TEST_CASE("a switch with no port at the speed says so", "[switch]") {
  const SwitchAnswer a = answer_for_switch(builtin_switch("crs520"), spark(), 4, k200G);
  CHECK_FALSE(a.supports_speed);
  CHECK(a.max_nodes == 0);
  CHECK_THAT(a.no_speed_reason, ContainsSubstring("no port of crs520 runs at 200G"));
  CHECK(a.plans.empty());
}

TEST_CASE("plan_switches refuses impossible requests", "[switch][bad-input]") {
  const auto switches = builtin_switches();
  CHECK_THROWS_AS(plan_switches(switches, spark(), 0, k100G), InputError);
  CHECK_THROWS_AS(plan_switches(switches, spark(), kMaxClusterNodes + 1, k100G), InputError);
  try {
    (void)plan_switches(switches, spark(), 4, BitRate::gigabits_per_second(400));
    FAIL("accepted 400G");
  } catch (const InputError& e) {
    CHECK(e.where().key == "speed");
    CHECK_THAT(std::string(e.what()), ContainsSubstring("faster than a dgx-spark port (200G)"));
  }
  try {
    (void)plan_switches({builtin_switch("crs520")}, spark(), 4, k200G);
    FAIL("accepted 200G on a CRS520");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), ContainsSubstring("no port of crs520 runs at 200G"));
  }
  NodeSpec odd = spark();
  odd.ports.speeds.push_back(BitRate::gigabits_per_second(75));
  try {
    (void)plan_switches(switches, odd, 4, BitRate::gigabits_per_second(75));
    FAIL("accepted 75G");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()),
               ContainsSubstring("no switch in the catalog has a port that runs at 75G"));
  }
}

TEST_CASE("traps attach to the plans that meet them", "[switch]") {
  // Straight cables on one switch: no breakout trap, but the one-bridge trap.
  const auto straight = plan_one_switch(builtin_switch("crs520"), spark(), 16, k100G);
  REQUIRE(straight);
  CHECK_FALSE(straight->uses_breakouts);
  CHECK_FALSE(has_trap(*straight, "breakout-speed"));
  CHECK(has_trap(*straight, "one-bridge"));
  CHECK_FALSE(has_trap(*straight, "isl-shared"));
  CHECK(straight->checklist[0].catalog == "none needed: one cable per node");
  // Breakouts on a MikroTik: force the speeds.
  const auto broken = plan_one_switch(builtin_switch("crs804"), spark(), 8, k200G);
  REQUIRE(broken);
  CHECK(has_trap(*broken, "breakout-speed"));
  CHECK_THAT(broken->traps.front().text, ContainsSubstring("come up at 50G"));
  // The checklist of docs/background.md s.5: breakouts, the NIC at the speed, full rate.
  REQUIRE(broken->checklist.size() == 3);
  CHECK_THAT(broken->checklist[0].check, ContainsSubstring("2x200G on QSFP56-DD 400G"));
  CHECK_THAT(broken->checklist[1].check, ContainsSubstring("ConnectX-7 links at 200G"));
  CHECK_THAT(broken->checklist[1].check, ContainsSubstring("4 lanes of 50G per node"));
  CHECK_THAT(broken->checklist[2].catalog, ContainsSubstring("1.6T planned: full rate"));
  CHECK(broken->checklist[2].catalog_ok);
}

TEST_CASE("two DGX Sparks need only a direct cable, three or four a ring", "[switch]") {
  const auto two = switchless_options(spark(), 2);
  REQUIRE(two.size() == 1);
  CHECK(two[0].topology == "direct cable");
  CHECK(two[0].cables == 1);
  CHECK(two[0].link_rate == k200G);
  CHECK(two[0].per_node_rate == k200G);
  const auto three = switchless_options(spark(), 3);
  REQUIRE(three.size() == 1);
  CHECK(three[0].topology == "ring");
  CHECK(three[0].cables == 3);
  CHECK(three[0].per_node_rate == k200G);  // both ports together: ~200 Gb/s
  CHECK(switchless_options(spark(), 1)[0].cables == 0);
  const auto four = switchless_options(spark(), 4);
  REQUIRE(four.size() == 1);
  CHECK(four[0].topology == "ring");
  CHECK(four[0].cables == 4);
  // Opposite nodes have no cable: the note says stock NCCL's tree cannot connect.
  CHECK_THAT(four[0].notes[0], ContainsSubstring("opposite nodes have no cable"));
  CHECK_THAT(four[0].notes[1], ContainsSubstring("one RDMA device's rate"));
  // An all-to-all cannot reach the opposite node: EP there needs a switch.
  const auto names_ep = [](const std::string& note) {
    return note.find("EP over four nodes needs a switch") != std::string::npos;
  };
  CHECK(std::any_of(four[0].notes.begin(), four[0].notes.end(), names_ep));
  CHECK_FALSE(std::any_of(three[0].notes.begin(), three[0].notes.end(), names_ep));
  CHECK(switchless_options(spark(), 5).empty());
}
