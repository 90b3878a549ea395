// plan's layouts beyond instances x TP: pipeline stages, expert parallelism
// with data-parallel attention and xPyD, side by side with TP, ranked by what
// the node's public runs say each gives (docs/formulas.md s.30.5).
#include <algorithm>
#include <set>
#include <string>

#include "catch.hpp"
#include "tpnet/io/document_render.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/price_yaml.hpp"
#include "tpnet/io/switch_catalog.hpp"
#include "tpnet/io/workload_yaml.hpp"
#include "tpnet/usecase/plan_search.hpp"

using namespace tpnet;

namespace {

PlanSearchRequest sparks(const std::string& model, int nodes) {
  PlanSearchRequest in;
  in.nodes = nodes;
  in.speeds = {parse_link("100G", InputLocation::for_key("--speeds")),
               parse_link("200G", InputLocation::for_key("--speeds"))};
  in.workload = resolve_workload("rag");
  in.node = builtin_node("dgx-spark");
  in.fabric_catalog = builtin_fabric_profiles();
  in.model = builtin_model(model);
  for (const auto& name : builtin_switch_names()) in.switches.push_back(builtin_switch(name));
  in.families = parse_layout_families("all", InputLocation::for_key("--layouts"));
  return in;
}

std::set<std::string> layouts_of(const PlanSearchReport& report, LayoutFamily family) {
  std::set<std::string> names;
  for (const auto& r : report.options) {
    if (r.family == family) names.insert(r.layout_name());
  }
  return names;
}

const PlanOption* find_option(const PlanSearchReport& report, const std::string& layout,
                              FabricTopology topology, const std::string& speed) {
  for (const auto& r : report.options) {
    if (r.layout_name() == layout && r.fabric && r.fabric->topology == topology &&
        r.speed.name == speed) {
      return &r;
    }
  }
  return nullptr;
}

}  // namespace

TEST_CASE("layout families are read from a comma list or all, in plan's order",
          "[plan][families]") {
  const InputLocation at = InputLocation::for_key("--layouts");
  CHECK(parse_layout_families("all", at).size() == 4);
  const auto asked = parse_layout_families("pd,ep,tp,ep", at);
  REQUIRE(asked.size() == 3);
  CHECK(asked[0] == LayoutFamily::tp);
  CHECK(asked[1] == LayoutFamily::ep);
  CHECK(asked[2] == LayoutFamily::disaggregated);
  CHECK(to_string(LayoutFamily::disaggregated) == "pd");
  for (const char* bad : {"", "tp,", "dp", "TP"}) {
    try {
      (void)parse_layout_families(bad, at);
      FAIL("accepted " << bad);
    } catch (const InputError& e) {
      CHECK(e.where().key == "--layouts");
      CHECK_THAT(e.detail(), ContainsSubstring("tp, pp, ep and pd, or all"));
    }
  }
  CHECK(parse_plan_objective("tokens-per-dollar", at) == PlanObjective::tokens_per_dollar);
  CHECK(parse_plan_objective("throughput", at) == PlanObjective::throughput);
}

TEST_CASE(
    "four Sparks for a MoE model: every TP, PP, EP and xPyD layout whose instances divide "
    "them",
    "[plan][families]") {
  const PlanSearchReport report = search_plans(sparks("minimax-m2", 4));
  CHECK(layouts_of(report, LayoutFamily::tp) ==
        std::set<std::string>{"4 x TP1", "2 x TP2", "1 x TP4"});
  CHECK(layouts_of(report, LayoutFamily::pp) ==
        std::set<std::string>{"2 x TP1xPP2", "1 x TP1xPP4", "1 x TP2xPP2"});
  // EP spans TP x DP ranks, DP at least 2.
  CHECK(layouts_of(report, LayoutFamily::ep) ==
        std::set<std::string>{"2 x TP1xEP2", "1 x TP1xEP4", "1 x TP2xEP4"});
  // x and y coprime: 2P2D is two 1P1D groups, listed as those.
  CHECK(layouts_of(report, LayoutFamily::disaggregated) ==
        std::set<std::string>{"2 x 1P1D", "1 x 1P3D", "1 x 3P1D", "1 x 1P1D TP2"});
  CHECK(report.objective == PlanObjective::throughput);  // no prices: what each gives
}

TEST_CASE("a dense model has no expert-parallel layouts to lay out", "[plan][families]") {
  const PlanSearchReport report = search_plans(sparks("llama-3.1-70b", 4));
  CHECK(layouts_of(report, LayoutFamily::ep).empty());
  CHECK_FALSE(layouts_of(report, LayoutFamily::pp).empty());
}

TEST_CASE("EP over a ring of four is refused: the all-to-all needs every pair joined",
          "[plan][families]") {
  const PlanSearchReport report = search_plans(sparks("minimax-m2", 4));
  const PlanOption* ring = find_option(report, "1 x TP1xEP4", FabricTopology::ring, "200G");
  REQUIRE(ring != nullptr);
  CHECK_FALSE(ring->usable);
  CHECK_THAT(ring->layout_refusal, ContainsSubstring("needs a switch"));
  CHECK_THAT(ring->reason, ContainsSubstring("every pair"));
  // On a switch the same layout runs.
  const PlanOption* switched = find_option(report, "1 x TP1xEP4", FabricTopology::switched, "200G");
  REQUIRE(switched != nullptr);
  CHECK(switched->layout_refusal.empty());
  // xPyD's hand-off goes from any prefill node to any decode node: the same rule.
  const PlanOption* pd = find_option(report, "1 x 1P3D", FabricTopology::ring, "200G");
  REQUIRE(pd != nullptr);
  CHECK_THAT(pd->layout_refusal, ContainsSubstring("any prefill node to any decode node"));
  // Pipeline stages only hand on to the next: a ring carries them.
  const PlanOption* pp = find_option(report, "1 x TP1xPP4", FabricTopology::ring, "200G");
  REQUIRE(pp != nullptr);
  CHECK(pp->layout_refusal.empty());
}

TEST_CASE("side by side with prices, layouts rank by expected tokens/s per dollar",
          "[plan][families]") {
  PlanSearchRequest in = sparks("minimax-m2", 8);
  in.prices = builtin_prices();
  in.today = CalendarDate{2026, 12, 6};
  const PlanSearchReport report = search_plans(in);
  CHECK(report.objective == PlanObjective::tokens_per_dollar);
  std::optional<double> previous;
  bool unranked = false;
  for (const auto& r : report.options) {
    if (!r.usable) break;
    if (!r.tokens_per_dollar) {
      unranked = true;
      continue;
    }
    CHECK_FALSE(unranked);  // an option without a complete price never ranks ahead
    CHECK(*r.tokens_per_dollar == Approx(*r.expected_throughput() / r.cost->total).epsilon(1e-12));
    if (previous) CHECK(*r.tokens_per_dollar <= *previous);
    previous = r.tokens_per_dollar;
  }
  REQUIRE(previous.has_value());
  const PlanOption& best = report.options.front();
  const auto answer = plan_answer(report);
  REQUIRE(answer.size() >= 3);
  CHECK_THAT(answer[0], ContainsSubstring(best.layout_name()));
  CHECK_THAT(answer[2], StartsWith("Expected from public runs on the node: TTFT"));
}

TEST_CASE("plan's document side by side: a kind per row and the expected columns in the table",
          "[plan][families]") {
  PlanSearchRequest in = sparks("minimax-m2", 4);
  in.prices = builtin_prices();
  in.today = CalendarDate{2026, 12, 6};
  const PlanSearchReport report = search_plans(in);
  const Document doc = plan_document(in, report);
  const std::string json = render(doc, Format::json);
  CHECK_THAT(json, ContainsSubstring("\"family\": \"ep\""));
  CHECK_THAT(json, ContainsSubstring("\"family\": \"pd\""));
  CHECK_THAT(json, ContainsSubstring("\"tokens_per_s_per_cost\": "));
  CHECK_THAT(json, ContainsSubstring("\"layout_refusal\": "));
  const std::string table = render(doc, Format::table);
  CHECK_THAT(table, ContainsSubstring("tok/s 32"));
  CHECK_THAT(table, ContainsSubstring("1 x TP1xEP4"));
  CHECK_THAT(table, ContainsSubstring("per 1000 USD"));
}

TEST_CASE("layouts beyond TP need the node's expected rates", "[plan][families][bad-input]") {
  PlanSearchRequest in = sparks("minimax-m2", 4);
  in.node.expected.reset();
  try {
    (void)search_plans(in);
    FAIL("accepted a node without expected rates");
  } catch (const InputError& e) {
    CHECK(e.where().key == "layouts");
    CHECK_THAT(e.detail(), ContainsSubstring("no expected rates"));
  }
  in.families = {LayoutFamily::tp};
  in.objective = PlanObjective::throughput;
  try {
    (void)search_plans(in);
    FAIL("ranked by throughput without expected rates");
  } catch (const InputError& e) {
    CHECK(e.where().key == "objective");
  }
  in.families.clear();
  in.objective = PlanObjective::automatic;
  CHECK_THROWS_AS(search_plans(in), InputError);
}

TEST_CASE(
    "options whose bill has a part without a price rank after the priced, by their expected "
    "tokens/s",
    "[plan][families]") {
  // Sixteen Sparks need cables the built-in catalog has no price for: no bill
  // is complete, and the ranking must not fall back to the cheapest fabric.
  PlanSearchRequest in = sparks("glm-5.3", 16);
  in.prices = builtin_prices();
  in.today = CalendarDate{2026, 12, 6};
  const PlanSearchReport report = search_plans(in);
  REQUIRE(report.objective == PlanObjective::tokens_per_dollar);
  std::optional<double> previous;
  for (const auto& r : report.options) {
    if (!r.usable || r.tokens_per_dollar || !r.expected_throughput()) continue;
    if (previous) CHECK(*r.expected_throughput() <= *previous);
    previous = r.expected_throughput();
  }
  REQUIRE(previous.has_value());
  const PlanOption& best = report.options.front();
  for (const auto& r : report.options) {
    if (r.usable && r.expected_throughput() && !r.tokens_per_dollar && !best.tokens_per_dollar) {
      CHECK(*r.expected_throughput() <= *best.expected_throughput());
    }
  }
}
