// Prefill tests and the tokens one prefill step takes
// (tpnet/workload/prefill_scenario.hpp, docs/formulas.md s.4).

#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

using namespace tpnet;

TEST_CASE("the study's tests P1-P6 are 1k, 8k, 32k, 4x8k, 64k and 4x16k", "[prefill]") {
  // formulas.md s.4's table: 1,024, 8,192, 32,768, 32,768, 65,536 and 65,536 tokens.
  const std::vector<PrefillScenario> p = study_scenarios();
  REQUIRE(p.size() == 6);
  const std::vector<std::pair<long long, TokenCount>> shapes{{1, 1024}, {1, 8192},  {1, 32768},
                                                             {4, 8192}, {1, 65536}, {4, 16384}};
  const std::vector<TokenCount> totals{1024, 8192, 32768, 32768, 65536, 65536};
  for (std::size_t i = 0; i < p.size(); ++i) {
    INFO(p[i].name);
    CHECK(p[i].name == "P" + std::to_string(i + 1));
    CHECK(p[i].prompt.requests == shapes[i].first);
    CHECK(p[i].prompt.tokens_each == shapes[i].second);
    CHECK(p[i].prompt.total_tokens() == totals[i]);
    CHECK_FALSE(p[i].baseline_ttft);  // none measured: the study's TTFTs come from a baseline
  }
}

TEST_CASE("a prefill step takes the chunk, or r x the long-prefill threshold when smaller",
          "[prefill]") {
  EngineConfig engine;  // max_num_batched_tokens 4,096, no threshold
  CHECK(prefill_step_budget(engine, PromptSpec{1, 8192}) == 4096);
  CHECK(prefill_step_budget(engine, PromptSpec{4, 8192}) == 4096);
  // formulas.md s.4: a threshold of 2,048 gives 1 x 8k a budget of 2,048,
  // and 4 x 8k min(4,096, 4 x 2,048 = 8,192) = 4,096.
  engine.long_prefill_token_threshold = 2048;
  CHECK(prefill_step_budget(engine, PromptSpec{1, 8192}) == 2048);
  CHECK(prefill_step_budget(engine, PromptSpec{4, 8192}) == 4096);
  CHECK(prefill_step_budget(engine, PromptSpec{2, 8192}) == 4096);
  // A product past 2^62 is refused, not wrapped into a small budget.
  engine.long_prefill_token_threshold = 1LL << 40;
  CHECK_THROWS_AS(prefill_step_budget(engine, PromptSpec{1LL << 30, 1}), InputError);
}

TEST_CASE("a run takes at most kMaxScenarios scenarios", "[prefill][bad-input]") {
  CHECK_NOTHROW(require_scenario_count(0));
  CHECK_NOTHROW(require_scenario_count(kMaxScenarios));
  try {
    require_scenario_count(kMaxScenarios + 1);
    FAIL("accepted one scenario too many");
  } catch (const InputError& e) {
    CHECK(e.where().key == "workload.prompts");
    CHECK_THAT(std::string(e.what()), ContainsSubstring("10001 scenarios"));
    CHECK_THAT(std::string(e.what()), ContainsSubstring("allowed at most 10000"));
  }
}
