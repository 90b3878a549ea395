// The report's words (usecase/decision_document.hpp): the verdict follows the
// plan's choice, every section is placed, and numbers carry their units.

#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/switch_catalog.hpp"
#include "tpnet/io/workload_yaml.hpp"
#include "tpnet/usecase/decision_document.hpp"

using namespace tpnet;

namespace {

DecisionReport sparks_report(int nodes, const std::string& model,
                             const std::vector<std::string>& speeds = {"100G", "200G"}) {
  DecisionRequest request;
  PlanSearchRequest& in = request.plan;
  in.nodes = nodes;
  for (const auto& s : speeds) {
    in.speeds.push_back(parse_link(s, InputLocation::for_key("speeds")));
  }
  in.workload = resolve_workload("rag");
  in.node = builtin_node("dgx-spark");
  in.fabric_catalog = builtin_fabric_profiles();
  in.model = builtin_model(model);
  for (const auto& name : builtin_switch_names()) in.switches.push_back(builtin_switch(name));
  return run_decision_report(request);
}

std::vector<std::string> headings(const Document& doc) {
  std::vector<std::string> out;
  for (const auto& s : doc.sections) out.push_back(s.heading);
  return out;
}

const DocumentSection* section(const Document& doc, const std::string& heading) {
  for (const auto& s : doc.sections) {
    if (s.heading == heading) return &s;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("GLM-5.3 on 16 Sparks: the verdict buys the plan's switch and every section is placed",
          "[decision-document][plan]") {
  const DecisionReport g = sparks_report(16, "glm-5.3");
  const Document doc = write_decision_document(g);
  CHECK(doc.title == "glm-5.3 on 16 x dgx-spark: network decision (100G vs 200G)");
  // The verdict box: what to buy, what it costs, what the slower link would
  // cost and decode, in four lines; the reasons and sources follow it.
  REQUIRE(doc.answer.size() == 4);
  const PlanOption& chosen = *g.chosen_option();
  CHECK(doc.answer[0] == "Buy " + chosen.fabric->description + " and run 2 x TP8 at " +
                             chosen.speed.name + " per node.");
  CHECK_THAT(doc.answer[1], StartsWith("What it costs: "));
  CHECK_THAT(doc.answer[2], StartsWith("100G instead of 200G at TP"));
  CHECK_THAT(doc.answer[2], ContainsSubstring(" TTFT on the longest test"));
  CHECK_THAT(doc.answer[3], StartsWith("Decode "));
  for (const auto& line : doc.answer) {
    CHECK_THAT(line, !ContainsSubstring("Prices"));
    CHECK_THAT(line, !ContainsSubstring("`"));  // no raw field path in the box
  }
  const DocumentSection* details = section(doc, "Why, and the sources");
  REQUIRE(details != nullptr);
  CHECK_THAT(details->paragraphs.front(), ContainsSubstring("Why: " + chosen.reason));
  CHECK(details->paragraphs[1] ==
        "Ranked by fewest-switches (give a TTFT budget to rank by cost, or "
        "sweeps to rank by users per dollar).");
  CHECK(headings(doc) ==
        std::vector<std::string>{"Why, and the sources", "TTFT cost of 100G instead of 200G",
                                 "Layouts compared", "Predicted steps", "Expected speed",
                                 "Switch port plan", "Traps and checklist", "Memory fit",
                                 "Every layout ranked"});
  std::vector<std::string> charts;
  for (const auto& s : doc.sections) {
    for (const auto& f : s.figures) {
      charts.push_back(f.chart);
      CHECK_FALSE(f.caption.empty());
    }
  }
  CHECK(charts == std::vector<std::string>{"penalty", "compare", "expected", "switch", "memory"});
  for (const auto& chart : charts) {
    CHECK(std::find(std::begin(kDecisionCharts), std::end(kDecisionCharts), chart) !=
          std::end(kDecisionCharts));
  }
  // The expected speed of every layout of 16 Sparks, from public runs.
  const DocumentTable& expected = section(doc, "Expected speed")->tables.front();
  CHECK(expected.rows.size() == g.expected->layouts.size());
  // No measured TTFTs: the timeline says what it needs instead of a chart.
  CHECK_THAT(section(doc, "Predicted steps")->paragraphs.front(),
             ContainsSubstring("`workload.baseline`"));
  // The ranked table has a row per plan option and a unit on each size and time.
  const DocumentTable& table = section(doc, "Every layout ranked")->tables.front();
  REQUIRE(table.rows.size() == g.plan.options.size());
  for (const auto& row : table.rows) {
    REQUIRE(row.size() == table.header.size());
    CHECK_THAT(row[5], EndsWith("B"));
    CHECK_THAT(row[6], EndsWith("B"));
    CHECK_THAT(row[7], EndsWith("s"));
  }
}

TEST_CASE("a model that fits one Spark: the verdict buys no fabric and no switch is drawn",
          "[decision-document][plan]") {
  const Document doc = write_decision_document(sparks_report(4, "qwen3.6-27b"));
  CHECK_THAT(doc.answer.front(),
             StartsWith("Buy no fabric and run 4 x TP1: the replicas exchange nothing over RoCE."));
  const DocumentSection* sw = section(doc, "Switch port plan");
  REQUIRE(sw != nullptr);
  CHECK(sw->figures.empty());
  CHECK(sw->paragraphs ==
        std::vector<std::string>{"No switch to buy: 4 x TP1 replicas exchange nothing over RoCE."});
  CHECK(section(doc, "Traps and checklist") == nullptr);
}

TEST_CASE("two Sparks: the cable is named, the one layout is said in words, not charted",
          "[decision-document][plan]") {
  const Document doc = write_decision_document(sparks_report(2, "llama-3.1-70b"));
  CHECK_THAT(doc.answer.front(), ContainsSubstring("direct cable"));
  const DocumentSection* layouts = section(doc, "Layouts compared");
  REQUIRE(layouts != nullptr);
  CHECK(layouts->figures.empty());
  CHECK_THAT(layouts->paragraphs.front(),
             StartsWith("Only TP2 spreads an instance over the network at this cluster size"));
  CHECK_THAT(section(doc, "Switch port plan")->paragraphs.front(),
             StartsWith("No switch to buy: the recommended layout is cabled as "));
}

TEST_CASE("one link speed: the verdict says so instead of pricing a link against itself",
          "[decision-document][plan]") {
  const DecisionReport g = sparks_report(8, "glm-5.3", {"200G"});
  const Document doc = write_decision_document(g);
  REQUIRE(doc.answer.size() == 3);
  CHECK(doc.answer[2] == "Only one link speed was asked (200G): there is no slower link to price.");
  // No option's reason prices its profile against itself.
  for (const auto& option : g.plan.options) {
    if (!option.fabric || !option.fabric->profile) continue;
    const std::string& name = option.fabric->profile->name;
    CHECK_THAT(option.reason, !ContainsSubstring("on " + name + " against " + name));
  }
}
