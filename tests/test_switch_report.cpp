// `tpnet switch` as a use case (tpnet/usecase/switch_report.hpp): the request
// the command builds and the refusals it names by request field.

#include <string>

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
