// Prefill over a slower link (tpnet/usecase/penalty.hpp, docs/formulas.md
// s.4): the bound's sign, measured bytes per token, the step budget's
// forward passes, the share's cap, budgets and the refusals. The GLM-5.3
// study's numbers (background s.4) are reproduced in test_golden_glm53.cpp.

#include <string>

#include "catch.hpp"
#include "study_fixtures.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/usecase/bytes_report.hpp"
#include "tpnet/usecase/penalty.hpp"

using namespace tpnet;
using tpnet::test::glm53;
using tpnet::test::preset;
using tpnet::test::tp8;

TEST_CASE("a network time above the measured TTFT caps the share at 100% and says so",
          "[prefill]") {
  PrefillScenario odd{"odd", PromptSpec{1, 65536}, Seconds(1.0)};
  const auto r = analyze_penalty(glm53(), tp8(), preset("200G"), preset("100G"), {odd});
  CHECK(*r.scenarios.front().network_share == 1.0);
  CHECK_THAT(r.scenarios.front().notes.back(), ContainsSubstring("capped"));
}

TEST_CASE("equal links add nothing and a faster link gives a negative bound", "[prefill]") {
  const auto same =
      analyze_penalty(glm53(), tp8(), preset("200G"), preset("200G"), study_scenarios());
  for (const auto& s : same.scenarios) CHECK(s.nominal_bound.value() == 0.0);
  const auto faster =
      analyze_penalty(glm53(), tp8(), preset("100G"), preset("200G"), study_scenarios());
  for (const auto& s : faster.scenarios) CHECK(s.nominal_bound.value() < 0.0);
}

TEST_CASE("measured bytes per token replace the formula", "[prefill]") {
  const auto r =
      analyze_penalty(glm53(), tp8(), preset("200G"), preset("100G"),
                      {PrefillScenario{"8k", PromptSpec{1, 8192}, {}}}, Bytes::megabytes(3.57));
  CHECK(r.per_token_measured);
  CHECK_THAT(r.scenarios.front().prefill_bytes_per_node.count(), WithinRel(3.57e6 * 8192, 1e-12));
}

TEST_CASE("a long-prefill threshold splits prefill into more forward passes", "[prefill]") {
  EngineConfig engine = tp8();
  engine.long_prefill_token_threshold = 2048;
  const auto r = analyze_penalty(glm53(), engine, preset("200G"), preset("100G"),
                                 {PrefillScenario{"8k", PromptSpec{1, 8192}, {}},
                                  PrefillScenario{"4x8k", PromptSpec{4, 8192}, {}}});
  CHECK(r.scenarios[0].prefill_forwards == 4);  // 2,048 tokens per step
  CHECK(r.scenarios[1].prefill_forwards == 8);  // four requests share the 4,096 budget
  // Bytes per token do not depend on the threshold.
  CHECK(r.scenarios[0].prefill_bytes_per_node.count() == 8192 * 3376128.0);
}

TEST_CASE("TP1 sends nothing over the network and is refused", "[prefill][bad-input]") {
  EngineConfig engine = tp8();
  engine.tensor_parallel_size = 1;
  CHECK_THROWS_AS(analyze_penalty(glm53(), engine, preset("200G"), preset("100G"), {}), InputError);
  engine.tensor_parallel_size = 0;
  CHECK_THROWS_AS(analyze_bytes(glm53(), engine, preset("200G"), Seconds(1e-4)), InputError);
}
