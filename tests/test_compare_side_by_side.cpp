// compare's layouts side by side on a cluster: replicas, expected TTFT and
// decode from the node's public runs, the nodes' cost, best first
// (docs/formulas.md s.10.1).
#include <string>

#include "catch.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/price_yaml.hpp"
#include "tpnet/usecase/compare.hpp"

using namespace tpnet;

namespace {

CompareRequest minimax_on(int nodes) {
  CompareRequest in;
  in.model = builtin_model("minimax-m2");
  in.node = builtin_node("dgx-spark");
  in.layouts = {ParallelLayout{4, 1, 1}, ParallelLayout{2, 2, 1}, ParallelLayout{4, 1, 8}};
  in.from = without_profiles({parse_link("200G", InputLocation::for_key("from"))});
  in.to = without_profiles({parse_link("100G", InputLocation::for_key("to"))});
  in.prompts = {PrefillScenario{"8k", PromptSpec{1, 8192}, {}}};
  in.cluster_nodes = nodes;
  in.fabric_catalog = builtin_fabric_profiles();
  return in;
}

const CompareExpectation* named(const CompareReport& report, const std::string& name) {
  for (const auto& e : report.expectations) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("eight Sparks side by side: replicas of each layout, one-node replicas added",
          "[compare][side-by-side]") {
  const CompareReport report = run_compare(minimax_on(8));
  const CompareExpectation* tp4 = named(report, "2 x TP4");
  REQUIRE(tp4 != nullptr);
  CHECK(tp4->replicas == 2);
  CHECK(tp4->nodes == 4);
  REQUIRE(tp4->expected);
  REQUIRE(tp4->ttft_from_s);
  // The slower link costs the first token something, never a gain.
  CHECK(tp4->expected->ttft_s.typical > *tp4->ttft_from_s);
  CHECK(named(report, "2 x TP2xPP2") != nullptr);
  CHECK(named(report, "TP4xEP8") != nullptr);
  // minimax-m2 does not fit one Spark: the replicas are listed and say why.
  const CompareExpectation* one = named(report, "8 x TP1");
  REQUIRE(one != nullptr);
  CHECK_FALSE(one->expected);
  CHECK_THAT(one->refusal, ContainsSubstring("does not fit"));
  // Best first: the most aggregate tokens/s (no prices).
  for (std::size_t i = 1; i < report.expectations.size(); ++i) {
    const auto a = report.expectations[i - 1].throughput();
    const auto b = report.expectations[i].throughput();
    if (a && b) CHECK(*a >= *b);
    if (!a) CHECK_FALSE(b);
  }
  const auto answer = side_by_side_answer(report);
  REQUIRE(answer.size() == 1);
  CHECK_THAT(answer[0], StartsWith("Expected on 8 nodes, " + report.expectations.front().name));
}

TEST_CASE("side by side with prices: the nodes' cost and tokens/s per dollar rank",
          "[compare][side-by-side]") {
  CompareRequest in = minimax_on(8);
  in.prices = builtin_prices();
  in.today = CalendarDate{2026, 12, 6};
  const CompareReport report = run_compare(in);
  const CompareExpectation& best = report.expectations.front();
  REQUIRE(best.cost);
  REQUIRE(best.tokens_per_dollar);
  CHECK(*best.tokens_per_dollar == Approx(*best.throughput() / best.cost->total));
  CHECK(best.cost->nodes == Approx(best.cost->total));  // the nodes only: plan buys the fabric
}

TEST_CASE("a layout whose instances do not divide the cluster is said, not priced",
          "[compare][side-by-side]") {
  const CompareReport report = run_compare(minimax_on(4));
  const CompareExpectation* ep8 = named(report, "TP4xEP8");
  REQUIRE(ep8 != nullptr);
  CHECK_FALSE(ep8->expected);
  CHECK_THAT(ep8->refusal, ContainsSubstring("4 nodes do not divide into instances of 8"));
}

TEST_CASE("no side by side without a cluster or xPyD, and a node without expected rates is refused",
          "[compare][side-by-side][bad-input]") {
  CompareRequest in = minimax_on(8);
  in.cluster_nodes.reset();
  CHECK(run_compare(in).expectations.empty());
  in.cluster_nodes = 8;
  in.node.expected.reset();
  try {
    (void)run_compare(in);
    FAIL("accepted a node without expected rates");
  } catch (const InputError& e) {
    CHECK(e.where().key == "node");
  }
  in = minimax_on(0);
  CHECK_THROWS_AS(run_compare(in), InputError);
}
