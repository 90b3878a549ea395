// `tpnet check` on a plan (tpnet/usecase/serving_plan.hpp): budgets held and
// failed, projections, and the memory verdict. Reading plan files is tested
// in test_plan_yaml.cpp.

#include <fmt/format.h>

#include <string>

#include "catch.hpp"
#include "plan_fixtures.hpp"
#include "tpnet/io/plan_yaml.hpp"

using namespace tpnet;
using tpnet::test::kPlan;
using tpnet::test::replaced;

TEST_CASE("a plan reads its baseline beside itself and every budget holds", "[serving-plan]") {
  const ServingPlan plan = parse_plan_yaml(kPlan, tpnet::test::kPlanOrigin);
  CHECK(plan.layout().tp == 8);
  CHECK(plan.compare.engine.tensor_parallel_size == 8);
  CHECK(plan.compare.prompts.size() == 6);
  CHECK(plan.compare.node.name == "dgx-spark");
  const CheckReport result = run_check(plan);
  CHECK(result.passed());
  CHECK(result.rows.size() == 6);
  // the memory fit, 6 scenarios x (extra TTFT, TTFT increase), one decode verdict for the link
  REQUIRE(result.verdicts.size() == 14);
  CHECK(result.verdicts.front().budget == "memory_fit");
  CHECK(result.verdicts.front().within);
}

TEST_CASE("a tighter budget fails the plan and names the scenario", "[serving-plan][gate]") {
  const ServingPlan plan =
      parse_plan_yaml(replaced(kPlan, "max_ttft_increase: 25%", "max_ttft_increase: 18%"),
                      tpnet::test::kPlanOrigin);
  const CheckReport result = run_check(plan);
  CHECK_FALSE(result.passed());
  std::vector<std::string> failed;
  for (const auto& v : result.verdicts) {
    if (!v.within) failed.push_back(v.subject);
  }
  CHECK(failed == std::vector<std::string>{"TP8 200G->100G P4", "TP8 200G->100G P6"});
}

TEST_CASE("check's answer names each exceeded budget and by how much", "[serving-plan][gate]") {
  const ServingPlan plan =
      parse_plan_yaml(replaced(kPlan, "max_ttft_increase: 25%", "max_ttft_increase: 18%"),
                      tpnet::test::kPlanOrigin);
  const std::vector<std::string> answer = check_answer(run_check(plan));
  REQUIRE(answer.size() == 3);
  CHECK(answer[0] == "BUDGET EXCEEDED: 2 of 14 checks fail.");
  CHECK_THAT(answer[1], ContainsSubstring("max_ttft_increase on TP8 200G->100G P4: "));
  CHECK_THAT(answer[1], ContainsSubstring("against a limit of 18.0%"));
  CHECK_THAT(answer[1], ContainsSubstring(" percentage points over."));
  CHECK_THAT(answer[2], ContainsSubstring("TP8 200G->100G P6"));
}

TEST_CASE("check's answer says every budget holds and which is closest", "[serving-plan]") {
  const std::vector<std::string> answer =
      check_answer(run_check(parse_plan_yaml(kPlan, tpnet::test::kPlanOrigin)));
  REQUIRE(answer.size() == 2);
  CHECK(answer[0] == "Every budget holds: 14 checks within their limits.");
  CHECK_THAT(answer[1], StartsWith("Closest to its limit: "));
}

TEST_CASE("a TTFT budget without any TTFT to compare with is an input error",
          "[serving-plan][bad-input]") {
  const ServingPlan plan =
      parse_plan_yaml(replaced(kPlan, "baseline: data/glm53_tp8_200g.csv", "prompts: [8k, 4x8k]"),
                      tpnet::test::kPlanOrigin);
  try {
    (void)run_check(plan);
    FAIL("accepted a TTFT budget without a TTFT");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()),
               ContainsSubstring("test-plan.yaml: budgets.max_ttft_increase"));
  }
}

TEST_CASE("a projection from another TP size gives the TTFT budget something to check",
          "[serving-plan]") {
  std::string text = replaced(kPlan, "baseline: data/glm53_tp8_200g.csv", "prompts: [8k]");
  text = replaced(text, "layout: {tp: 8}", "layout: {tp: 16}");
  text += "projection: {tp: 8, ttft: 6.36s, prompt: 8k}\n";
  const CheckReport result = run_check(parse_plan_yaml(text, tpnet::test::kPlanOrigin));
  REQUIRE(result.rows.size() == 1);
  REQUIRE(result.rows.front().ttft_increase);
  CHECK_THAT(*result.rows.front().ttft_increase, WithinAbs(0.311, 0.0005));
  CHECK_FALSE(result.passed());  // 31% > 25%
}

TEST_CASE("a projection that cannot hold names the plan's key, not a flag",
          "[serving-plan][bad-input]") {
  std::string text = replaced(kPlan, "baseline: data/glm53_tp8_200g.csv", "prompts: [8k]");
  text += "projection: {tp: 8, ttft: 0.5s, prompt: 8k}\n";
  try {
    (void)run_check(parse_plan_yaml(text, tpnet::test::kPlanOrigin));
    FAIL("accepted a TTFT shorter than its network time");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()),
               ContainsSubstring("test-plan.yaml: projection.ttft: the baseline TTFT"));
  }
}

TEST_CASE("a single-node TTFT projects: all of it is compute", "[serving-plan]") {
  std::string text = replaced(kPlan, "baseline: data/glm53_tp8_200g.csv", "prompts: [8k]");
  text += "projection: {tp: 1, ttft: 40s, prompt: 8k}\n";
  const CheckReport result = run_check(parse_plan_yaml(text, tpnet::test::kPlanOrigin));
  // compute at TP8 = 40 s / 8; network = 8192 x 3,376,128 B x 8 / 200 Gb/s
  const double comm = 8192 * 3376128.0 * 8 / 200e9;
  CHECK_THAT(*result.rows.front().ttft_increase, WithinRel(comm / (5.0 + comm), 1e-12));
}

TEST_CASE("a plan whose layout does not fit the node fails the gate with a memory verdict",
          "[serving-plan][gate][memory]") {
  // DeepSeek-V3 at TP8: 84.8 GB of weights + NCCL's default 37 GB exceed the 108.9 GB budget.
  std::string text = replaced(kPlan, "model: glm-5.3", "model: deepseek-v3");
  text = replaced(text, "baseline: data/glm53_tp8_200g.csv", "prompts: [8k]");
  text = replaced(text, "  max_ttft_increase: 25%\n", "");
  const CheckReport defaults = run_check(parse_plan_yaml(text, tpnet::test::kPlanOrigin));
  CHECK_FALSE(defaults.passed());
  REQUIRE_FALSE(defaults.verdicts.empty());
  const Verdict& fit = defaults.verdicts.front();
  CHECK(fit.budget == "memory_fit");
  CHECK(fit.unit == VerdictUnit::bytes);
  CHECK_FALSE(fit.within);
  CHECK(fit.value > fit.limit);
  // With the node's tuned NCCL buffers it fits, and every budget holds.
  const CheckReport tuned =
      run_check(parse_plan_yaml(text + "memory: {nccl_tuned: true}\n", tpnet::test::kPlanOrigin));
  CHECK(tuned.passed());
}

TEST_CASE(
    "check's memory verdict and the fit sentence quote one figure: fixed parts and one "
    "sequence",
    "[serving-plan][memory]") {
  // Issue 26: the fit line said 92.59 GB (the fixed parts) where the verdict
  // said 93.41 GB (they and one max-model-len sequence) for one fit.
  const CheckReport result = run_check(parse_plan_yaml(kPlan, tpnet::test::kPlanOrigin));
  const Verdict& fit = result.verdicts.front();
  REQUIRE(fit.budget == "memory_fit");
  const MemoryReport& memory = result.compare.layouts.front().memory;
  REQUIRE(memory.sequence_bytes.has_value());
  CHECK(fit.value == memory.required_bytes.count());
  CHECK(memory.required_bytes.count() ==
        memory.fixed_bytes.count() + memory.sequence_bytes->count());
  const std::string quoted = fmt::format("a fit needs {:.2f} GB", fit.value / 1e9);
  CHECK(memory.fit_summary.find(quoted) != std::string::npos);
}
