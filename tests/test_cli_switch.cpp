// tpnet switch, end to end: JSON keys, the four formats and the bad-input contract.

#include <yaml-cpp/yaml.h>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"

using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::json_of;
using tpnet::test::run_tpnet;
using tpnet::test::write_temp;

namespace {

/// The summary row of `name` in a `tpnet switch` JSON answer.
YAML::Node row_of(const YAML::Node& j, const std::string& name) {
  for (const auto& row : j["switches"]) {
    if (row["switch"].as<std::string>() == name) return row;
  }
  FAIL("no row for " << name);
  return {};
}

}  // namespace

TEST_CASE("tpnet switch reproduces docs/background.md s.5's Sparks per switch at 100G and 200G",
          "[cli][switch][golden]") {
  const YAML::Node j100 =
      json_of(run_tpnet({"switch", "--nodes", "16", "--speed", "100G", "--format", "json"}));
  CHECK(j100["nodes"].as<int>() == 16);
  CHECK(j100["speed_bps"].as<double>() == 100e9);
  CHECK(row_of(j100, "crs804")["max_nodes"].as<int>() == 16);
  CHECK(row_of(j100, "crs804")["fits_one_switch"].as<bool>());
  CHECK(row_of(j100, "crs812")["headline_nodes"].as<int>() == 8);
  CHECK(row_of(j100, "crs812")["max_nodes"].as<int>() == 12);
  CHECK(row_of(j100, "crs812")["switches_needed"].as<int>() == 2);
  CHECK(row_of(j100, "crs812")["oversubscription"].as<double>() == 2.0);

  const YAML::Node j200 =
      json_of(run_tpnet({"switch", "--nodes", "8", "--speed", "200G", "--format", "json"}));
  CHECK(row_of(j200, "crs804")["max_nodes"].as<int>() == 8);
  CHECK(row_of(j200, "crs812")["headline_nodes"].as<int>() == 4);
  CHECK(row_of(j200, "crs812")["max_nodes"].as<int>() == 6);
  CHECK(row_of(j200, "crs520")["supports_speed"].as<bool>() == false);
  CHECK_THAT(row_of(j200, "crs520")["no_speed_reason"].as<std::string>(),
             ContainsSubstring("runs at 200G"));
}

TEST_CASE("tpnet switch JSON carries the port plan, cables, traps and checklist", "[cli][switch]") {
  const YAML::Node j = json_of(run_tpnet(
      {"switch", "--nodes", "16", "--speed", "100G", "--switch", "crs804", "--format", "json"}));
  REQUIRE(j["switches"].size() == 1);
  const YAML::Node plan = j["switches"][0]["plans"][0];
  CHECK(plan["topology"].as<std::string>() == "one switch");
  CHECK(plan["switches"].as<int>() == 1);
  CHECK(plan["uses_breakouts"].as<bool>());
  CHECK(plan["isl"]["cables"].as<int>() == 0);
  const YAML::Node port = plan["units"][0]["ports"][0];
  CHECK(port["cage"].as<std::string>() == "QSFP56-DD");
  CHECK(port["cage_rate_bps"].as<double>() == 400e9);
  CHECK(port["mode"].as<std::string>() == "4x100G");
  CHECK(port["subports_per_cage"].as<int>() == 4);
  CHECK(port["subport_rate_bps"].as<double>() == 100e9);
  CHECK(port["cages"].as<int>() == 4);
  CHECK(port["nodes"].as<int>() == 16);
  CHECK(plan["cables"][0]["count"].as<int>() == 4);
  CHECK(plan["cables"][0]["description"].as<std::string>() ==
        "QSFP56-DD 400G to 4 x 100G breakout cable");
  CHECK(plan["traps"][0]["id"].as<std::string>() == "breakout-speed");
  CHECK(plan["checklist"].size() == 3);
  CHECK(j["node"]["network_rate_bps"].as<double>() == 200e9);
  CHECK(j["warnings"].size() == 0);
}

TEST_CASE("tpnet switch lists the switchless layouts for two, three and four nodes",
          "[cli][switch]") {
  const YAML::Node two =
      json_of(run_tpnet({"switch", "--nodes", "2", "--speed", "200G", "--format", "json"}));
  REQUIRE(two["switchless"].size() == 1);
  CHECK(two["switchless"][0]["topology"].as<std::string>() == "direct cable");
  CHECK(two["switchless"][0]["cables"].as<int>() == 1);
  const YAML::Node three =
      json_of(run_tpnet({"switch", "--nodes", "3", "--speed", "100G", "--format", "json"}));
  CHECK(three["switchless"][0]["topology"].as<std::string>() == "ring");
  CHECK(three["switchless"][0]["per_node_rate_bps"].as<double>() == 200e9);
  const YAML::Node four =
      json_of(run_tpnet({"switch", "--nodes", "4", "--speed", "100G", "--format", "json"}));
  REQUIRE(four["switchless"].size() == 1);
  CHECK(four["switchless"][0]["topology"].as<std::string>() == "ring");
  CHECK(four["switchless"][0]["cables"].as<int>() == 4);
  const YAML::Node five =
      json_of(run_tpnet({"switch", "--nodes", "5", "--speed", "100G", "--format", "json"}));
  CHECK(five["switchless"].size() == 0);
}

TEST_CASE("tpnet switch prints a table, CSV and Markdown", "[cli][switch]") {
  const CliResult table = run_tpnet({"switch", "--nodes", "16", "--speed", "100G"});
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, ContainsSubstring("tpnet switch: 16 x dgx-spark at 100G per node"));
  CHECK_THAT(table.out, ContainsSubstring("crs804 cables: 4 x QSFP56-DD 400G to 4 x 100G"));
  CHECK_THAT(table.out, ContainsSubstring("note crs812: 8 is the figure usually quoted"));
  CHECK_THAT(table.out, ContainsSubstring("crs804 trap: Breakout sub-ports do not auto-negotiate"));

  const CliResult csv =
      run_tpnet({"switch", "--nodes", "16", "--speed", "100G", "--format", "csv"});
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out.rfind("switch,model,supports_speed,max_nodes,headline_nodes", 0) == 0);
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 7);  // header + 6 switches

  const CliResult md =
      run_tpnet({"switch", "--nodes", "8", "--speed", "200G", "--format", "markdown"});
  REQUIRE(md.exit_code == 0);
  CHECK_THAT(md.out, ContainsSubstring("### switches"));
  CHECK_THAT(md.out, ContainsSubstring("crs804 at 200G: 4 x QSFP56-DD 400G as 2x200G"));
}

TEST_CASE("tpnet switch takes a switch YAML file", "[cli][switch]") {
  const auto path = write_temp("tpnet_cli_switch.yaml", R"(name: lab
fabric_capacity: 800G
ports:
  - count: 2
    cage: QSFP56-DD
    rate: 400G
    modes: [4x100G]
)");
  const YAML::Node j = json_of(run_tpnet({"switch", "--nodes", "8", "--speed", "100G", "--switch",
                                          path.string(), "--format", "json"}));
  CHECK(row_of(j, "lab")["max_nodes"].as<int>() == 8);
  CHECK(row_of(j, "lab")["fits_one_switch"].as<bool>());
}

TEST_CASE("tpnet switch bad input exits 2 with one line naming the flag", "[cli][switch]") {
  expect_bad_input(run_tpnet({"switch", "--nodes", "0", "--speed", "100G"}),
                   "--nodes: 0 is out of range");
  expect_bad_input(run_tpnet({"switch", "--nodes", "100001", "--speed", "100G"}),
                   "plan 1 to 100000 nodes");
  // Past int's range: refused with the count given, not a narrowed one.
  expect_bad_input(run_tpnet({"switch", "--nodes", "3000000000", "--speed", "100G"}),
                   "--nodes: 3000000000 is out of range");
  expect_bad_input(run_tpnet({"switch", "--nodes", "4", "--speed", "fast"}),
                   "--speed: 'fast' is not a bit rate");
  expect_bad_input(run_tpnet({"switch", "--nodes", "4", "--speed", "400G"}),
                   "faster than a dgx-spark port");
  expect_bad_input(run_tpnet({"switch", "--nodes", "4", "--speed", "200G", "--switch", "crs520"}),
                   "no port of crs520 runs at 200G");
  expect_bad_input(run_tpnet({"switch", "--nodes", "4", "--speed", "100G", "--switch", "crs81"}),
                   "did you mean crs812");
  expect_bad_input(run_tpnet({"switch", "--nodes", "4", "--speed", "100G", "--node", "spark"}),
                   "--node: unknown node 'spark'");
  expect_bad_input(run_tpnet({"switch", "--speed", "100G"}), "--nodes");
  const auto bad = write_temp("tpnet_cli_bad_switch.yaml",
                              "name: x\nfabric_capacity: 1T\nports:\n  - count: 1\n    cage: "
                              "QSFP28\n    rate: 100G\n    modes: [4x50G]\n");
  expect_bad_input(
      run_tpnet({"switch", "--nodes", "4", "--speed", "100G", "--switch", bad.string()}),
      "tpnet_cli_bad_switch.yaml:7: ports[0].modes: 4x50G does not divide");
}

TEST_CASE("tpnet switch never crashes on more nodes than any switch takes", "[cli][switch]") {
  const YAML::Node j =
      json_of(run_tpnet({"switch", "--nodes", "100000", "--speed", "100G", "--format", "json"}));
  for (const auto& row : j["switches"]) {
    CHECK(row["switches_needed"].as<int>() == 0);
    CHECK_THAT(row["verdict"].as<std::string>(), ContainsSubstring("does not fit"));
  }
}
