#include "catch.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/usecase/plan_search.hpp"

using namespace tpnet;

namespace {

PlanSearchRequest sixteen_sparks() {
  PlanSearchRequest in;
  in.nodes = 16;
  in.speeds = {parse_link("100G", InputLocation::for_key("--speeds")),
               parse_link("200G", InputLocation::for_key("--speeds"))};
  in.workload = resolve_workload("rag");
  in.node = builtin_node("dgx-spark");
  in.model = builtin_model("glm-5.3");
  for (const auto& name : builtin_switch_names()) in.switches.push_back(builtin_switch(name));
  return in;
}

}  // namespace

TEST_CASE("GLM-5.3 on 16 Sparks: two TP8 instances on one CRS804 at 100G, ahead of one TP16",
          "[recommend][golden]") {
  PlanSearchRequest in = sixteen_sparks();
  in.baseline = MeasuredTtft{ParallelLayout{8, 1, 1}, Seconds(6.36), PromptSpec{1, 8192}};
  const PlanSearchReport report = search_plans(in);
  REQUIRE(report.options.size() == 10);  // TP1-TP16 at two speeds
  const PlanOption& best = report.options.front();
  CHECK(best.usable);
  CHECK(best.instances == 2);
  CHECK(best.tp == 8);
  CHECK(best.speed.name == "100G");
  REQUIRE(best.fabric);
  CHECK(best.fabric->switches == 1);
  CHECK(best.fabric->plan->switch_name == "crs804");
  const PlanOption& tp16 = report.options[1];
  CHECK(tp16.tp == 16);
  CHECK(tp16.speed.name == "100G");
  // TP16's share of TTFT roughly doubles TP8's (docs/background.md s.5): 31.1% against 17.4%.
  CHECK_THAT(*tp16.worst_ttft_increase / *best.worst_ttft_increase, WithinAbs(1.8, 0.05));
  CHECK_THAT(tp16.reason, ContainsSubstring("TP16 loses 1.8x the share of TTFT that TP8 loses"));
  CHECK_THAT(best.reason, ContainsSubstring("2 instances keep serving if one fails"));
}

TEST_CASE("layouts that do not fit in memory are listed but never recommended", "[recommend]") {
  const PlanSearchReport report = search_plans(sixteen_sparks());
  for (const auto& r : report.options) {
    if (r.tp < 8) {
      CHECK_FALSE(r.fits_memory);
      CHECK_FALSE(r.usable);
      CHECK(r.rank > 4);
      CHECK_THAT(r.reason, ContainsSubstring("does not fit"));
    }
  }
}

TEST_CASE("a TTFT budget rules out the slower link", "[recommend]") {
  PlanSearchRequest in = sixteen_sparks();
  in.ttft_budget = Seconds(1.0);
  const PlanSearchReport report = search_plans(in);
  const PlanOption& best = report.options.front();
  CHECK(best.speed.name == "200G");
  CHECK(best.tp == 8);
  for (const auto& r : report.options) {
    if (r.speed.name == "100G" && r.fits_memory) CHECK_FALSE(r.within_budget);
  }
}

TEST_CASE("two nodes need no switch: one direct cable", "[recommend]") {
  PlanSearchRequest in = sixteen_sparks();
  in.nodes = 2;
  in.model = builtin_model("llama-3.1-70b");
  const PlanSearchReport report = search_plans(in);
  const PlanOption& best = report.options.front();
  REQUIRE(best.fabric);
  CHECK(best.fabric->switches == 0);
  CHECK_THAT(best.fabric->description, ContainsSubstring("direct cable"));
}

TEST_CASE("plan inputs out of range are refused naming the flag", "[recommend][bad-input]") {
  PlanSearchRequest in = sixteen_sparks();
  in.nodes = 1;
  CHECK_THROWS_AS(search_plans(in), InputError);
  in = sixteen_sparks();
  in.speeds.clear();
  CHECK_THROWS_AS(search_plans(in), InputError);
  CHECK_THROWS_AS(resolve_workload("podcasts"), InputError);
}

TEST_CASE("workloads come as presets or YAML files", "[recommend]") {
  CHECK(resolve_workload("chat").prompts.front().prompt.tokens_each == 1024);
  CHECK(resolve_workload("long-docs").prompts.size() == 2);
  const Workload w = parse_workload_yaml("name: mine\nprompts: [2k, 4x16k]\n", "w.yaml");
  CHECK(w.prompts[1].prompt.requests == 4);
  try {
    (void)parse_workload_yaml("name: mine\nprompts: [2k, zero]\n", "w.yaml");
    FAIL("accepted zero");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), ContainsSubstring("w.yaml:2: prompts:"));
  }
  CHECK_THROWS_AS(parse_workload_yaml("name: mine\n", "w.yaml"), InputError);
  CHECK_THROWS_AS(parse_workload_yaml("name: mine\nprompts: [1k]\nextra: 1\n", "w.yaml"),
                  InputError);
}
