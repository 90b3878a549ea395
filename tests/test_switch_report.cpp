// `tpnet switch` as a use case (tpnet/usecase/switch_report.hpp): the request
// the command builds, the refusals it names by request field and the
// document it answers with.

#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/switch_catalog.hpp"
#include "tpnet/usecase/switch_report.hpp"

using namespace tpnet;

namespace {

SwitchRequest sixteen_sparks_at_100g() {
  SwitchRequest request;
  request.switches = {builtin_switch("crs804")};
  request.node = builtin_node("dgx-spark");
  request.nodes = 16;
  request.speed = BitRate::gigabits_per_second(100);
  return request;
}

}  // namespace

TEST_CASE("tpnet switch answers for the switches, node, count and speed asked", "[switch]") {
  const SwitchPlanReport r = run_switch(sixteen_sparks_at_100g());
  CHECK(r.nodes == 16);
  CHECK(r.node.name == "dgx-spark");
  REQUIRE(r.switches.size() == 1);
  CHECK(r.switches.front().name == "crs804");
  CHECK(r.switches.front().max_nodes == 16);
  CHECK(r.switches.front().fits_one);
}

TEST_CASE("a node count past int's range is refused with the count as given",
          "[switch][bad-input]") {
  // Narrowed first, 3,000,000,000 would have become a negative count.
  for (const long long nodes : {0LL, -1LL, 100001LL, 3000000000LL}) {
    SwitchRequest request = sixteen_sparks_at_100g();
    request.nodes = nodes;
    try {
      (void)run_switch(request);
      FAIL("accepted " << nodes << " nodes");
    } catch (const InputError& e) {
      CHECK(e.where().key == "nodes");
      CHECK(e.detail() == std::to_string(nodes) + " is out of range; plan 1 to 100000 nodes");
    }
  }
}

TEST_CASE("a switch request without switches is refused naming switches", "[switch][bad-input]") {
  SwitchRequest request = sixteen_sparks_at_100g();
  request.switches.clear();
  try {
    (void)run_switch(request);
    FAIL("planned without a switch");
  } catch (const InputError& e) {
    CHECK(e.where().key == "switches");
  }
}

TEST_CASE("switch's document: the nodes, a row per switch, the switchless options, then each plan",
          "[switch]") {
  const SwitchPlanReport r = run_switch(sixteen_sparks_at_100g());
  const Document doc = switch_report_document(r);
  CHECK(doc.title == "tpnet switch: 16 x dgx-spark at 100G per node");
  CHECK(doc.answer == switch_answer(r));
  REQUIRE_FALSE(doc.answer.empty());
  CHECK_THAT(doc.answer.front(), StartsWith("16 x dgx-spark at 100G per node fit on one "));
  std::vector<std::string> keys;
  for (const Field& f : doc.fields) keys.push_back(f.key);
  // The node as a line for people and a record for JSON; the plan's port
  // table, cables, traps and checklist for people only.
  CHECK(keys == std::vector<std::string>{"nodes", "speed_bps", "per_node_rate_bps", "", "node",
                                         "switches", "switchless", "", "", "", ""});
  REQUIRE(doc.fields[5].records.size() == 1);
  const Record& row = doc.fields[5].records.front();
  CHECK(row.front().text == "crs804");
  CHECK(row[3].key == "max_nodes");
  CHECK(row[3].label == "max at 100G");
  CHECK(row[3].number == 16.0);
  CHECK(row.back().key == "plans");
  CHECK(row.back().json_only);
  CHECK(doc.fields[7].label.rfind("crs804 at 100G: ", 0) == 0);
  CHECK(doc.fields[8].label == "crs804 cables");
  CHECK(doc.fields[10].label == "crs804 check");
  CHECK(doc.warnings == r.warnings);
}
