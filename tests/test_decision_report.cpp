// The report's use case (usecase/decision_report.hpp): it decides from the
// one choice `plan` makes, so at every cluster size the layout it buys, the
// fabric it prices TTFT on and the switch it draws are the plan's (issue 28).

#include "catch.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/switch_catalog.hpp"
#include "tpnet/io/workload_yaml.hpp"
#include "tpnet/usecase/decision_report.hpp"

using namespace tpnet;

namespace {

DecisionRequest sparks_request(int nodes, const std::string& model,
                               const std::vector<std::string>& speeds) {
  DecisionRequest request;
  PlanSearchRequest& in = request.plan;
  in.nodes = nodes;
  for (const auto& s : speeds) in.speeds.push_back(parse_link(s, InputLocation::for_key("speeds")));
  in.workload = resolve_workload("rag");
  in.node = builtin_node("dgx-spark");
  in.fabric_catalog = builtin_fabric_profiles();
  in.model = builtin_model(model);
  for (const auto& name : builtin_switch_names()) in.switches.push_back(builtin_switch(name));
  return request;
}

}  // namespace

TEST_CASE("report buys what plan buys: TP1 replicas of a model that fits one node buy no fabric",
          "[decision-report][plan]") {
  for (const int nodes : {2, 4}) {
    CAPTURE(nodes);
    const DecisionRequest request = sparks_request(nodes, "qwen3.6-27b", {"100G", "200G"});
    const DecisionReport g = run_decision_report(request);
    const PlanSearchReport plan = search_plans(request.plan);
    const PlanOption* chosen = g.chosen_option();
    REQUIRE(chosen != nullptr);
    CHECK(chosen->tp == plan.options.front().tp);
    CHECK(chosen->tp == 1);
    CHECK(chosen->instances == nodes);
    REQUIRE(chosen->fabric);
    CHECK(chosen->fabric->topology == FabricTopology::none);
    // The sections are drawn at a layout that uses the network, never TP1.
    CHECK(g.tp >= 2);
    CHECK(g.nodes == nodes);
    CHECK(g.speeds.size() == 2);
  }
  // One node sends nothing: there is nothing to report on.
  CHECK_THROWS_WITH(run_decision_report(sparks_request(1, "qwen3.6-27b", {"100G", "200G"})),
                    ContainsSubstring("nodes: 1 node(s) send nothing over the network"));
}

TEST_CASE("report at 2 nodes for a model that needs two prices TTFT on the direct cable it buys",
          "[decision-report][plan][fabric]") {
  const DecisionReport g =
      run_decision_report(sparks_request(2, "llama-3.1-70b", {"emulated-100G", "200G"}));
  const PlanOption* chosen = g.chosen_option();
  REQUIRE(chosen != nullptr);
  CHECK(chosen->tp == 2);
  REQUIRE(chosen->fabric);
  CHECK(chosen->fabric->topology == FabricTopology::direct);
  CHECK(g.tp == 2);
  REQUIRE(g.fabrics.size() == 2);  // fastest, then slowest
  CHECK(g.fabrics[0].name == "dgx-spark-200g-direct");
  CHECK(g.fabrics[1].name == "dgx-spark-one-half-direct");
  // A direct cable has no switch to draw.
  CHECK(g.switch_drawn() == nullptr);
}

TEST_CASE("report at 16 nodes draws the switch of the layout the plan chose",
          "[decision-report][plan]") {
  const DecisionReport g = run_decision_report(sparks_request(16, "glm-5.3", {"100G", "200G"}));
  const PlanOption* chosen = g.chosen_option();
  const PlanOption* drawn = g.switch_drawn();
  REQUIRE(chosen != nullptr);
  REQUIRE(drawn == chosen);
  CHECK(chosen->tp == 8);
  CHECK(chosen->fabric->plan->switch_name == "crs804");
  CHECK(g.tp == 8);
  const ScenarioPenalty* worst = g.worst_scenario();
  REQUIRE(worst != nullptr);
  for (const auto& s : g.penalty.scenarios) {
    CHECK(s.nominal_bound.value() <= worst->nominal_bound.value());
  }
}

// Issue 28: the report drew another layout's switch under a verdict that
// bought a ring (minimax-m2 on 4 nodes) or no fabric (TP1 replicas).
TEST_CASE("report draws no switch when the layout it buys needs none", "[decision-report][plan]") {
  const DecisionReport ring =
      run_decision_report(sparks_request(4, "minimax-m2", {"100G", "200G"}));
  REQUIRE(ring.chosen_option() != nullptr);
  REQUIRE(ring.chosen_option()->fabric);
  CHECK(ring.chosen_option()->fabric->topology == FabricTopology::ring);
  CHECK(ring.switch_drawn() == nullptr);
  const DecisionReport replicas =
      run_decision_report(sparks_request(4, "qwen3.6-27b", {"100G", "200G"}));
  CHECK(replicas.switch_drawn() == nullptr);
}
