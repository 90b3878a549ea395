// Prefill over a slower link (tpnet/usecase/penalty.hpp, docs/formulas.md
// s.4): the bound's sign, measured bytes per token, the step budget's
// forward passes, the share's cap, budgets and the refusals. The GLM-5.3
// study's numbers (background s.4) are reproduced in test_golden_glm53.cpp.

#include <string>

#include "catch.hpp"
#include "study_fixtures.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
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
  CHECK_THROWS_AS(
      analyze_bytes(glm53(), engine, preset("200G"), CollectiveSettings{}, Seconds(1e-4)),
      InputError);
}

TEST_CASE("penalty's answer and document: the longest prompt predicted, decode unchanged",
          "[prefill]") {
  PenaltyRequest request;
  request.model = resolve_model("glm-5.3");
  request.engine = tpnet::test::glm_engine();
  request.from = ProfiledLink{parse_link("200G", InputLocation::for_key("from")),
                              tpnet::test::builtin_profile("dgx-spark-200g-switch")};
  request.to = ProfiledLink{parse_link("emulated-100G", InputLocation::for_key("to")),
                            tpnet::test::builtin_profile("dgx-spark-one-half-switch")};
  request.decode_node = builtin_node("dgx-spark");
  request.measured_per_token = Bytes(3.57e6);
  request.measured_per_token_origin = "counters";
  const PenaltyReport r = run_penalty(request);
  REQUIRE(r.decode);
  const std::vector<std::string> answer = penalty_answer(r);
  REQUIRE(answer.size() == 4);
  // P5 (64K tokens in one request) is the study's longest prompt.
  CHECK_THAT(answer[0], StartsWith("emulated-100G vs 200G: longest prompt (P5, 65536 tokens) +"));
  CHECK_THAT(answer[0], EndsWith("TTFT predicted."));
  CHECK_THAT(answer[2], StartsWith("Decode does not change: emulated-100G adds at most"));
  CHECK_THAT(answer[3], StartsWith("Bounds on the longest prompt's cost:"));
  const Document doc = penalty_document(request, r);
  CHECK(doc.answer == answer);
  std::vector<std::string> keys;
  for (const Field& f : doc.fields) keys.push_back(f.key);
  CHECK(keys == std::vector<std::string>{"model", "tp", "algorithm", "chunk_tokens", "", "", "from",
                                         "to", "per_token_bytes", "per_token_source",
                                         "extra_s_per_1k_tokens", "scenarios", "fabrics"});
  CHECK(doc.fields[9].text == "measured (counters)");
  CHECK(doc.fields[11].records.size() == 6);  // P1-P6
  // The same links: nothing to say.
  request.to = request.from;
  CHECK(penalty_answer(run_penalty(request)).empty());
}
