#include "catch.hpp"
#include "tpnet/io/plan_yaml.hpp"

using namespace tpnet;

namespace {

const std::string kOrigin = std::string(TPNET_SOURCE_DIR) + "/examples/test-plan.yaml";

const char* const kPlan = R"(model: glm-5.3
layout: {tp: 8}
engine: {num_speculative_tokens: 4}
links: {from: 200G, to: 100G}
workload:
  baseline: data/glm53_tp8_200g.csv
budgets:
  max_extra_ttft: 10s
  max_ttft_increase: 25%
  max_decode_slowdown: 10%
)";

std::string error_of(const std::string& text) {
  try {
    (void)parse_plan_yaml(text, kOrigin);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace

TEST_CASE("a plan reads its baseline beside itself and every budget holds", "[plan]") {
  const Plan plan = parse_plan_yaml(kPlan, kOrigin);
  CHECK(plan.layout.tp == 8);
  CHECK(plan.engine.tensor_parallel_size == 8);
  CHECK(plan.scenarios.size() == 6);
  const PlanResult result = evaluate_plan(plan);
  CHECK(result.passed());
  CHECK(result.rows.size() == 6);
  // 6 scenarios x (extra TTFT, TTFT increase) + one decode verdict for the link pair
  CHECK(result.verdicts.size() == 13);
}

TEST_CASE("a tighter budget fails the plan and names the scenario", "[plan][gate]") {
  const Plan plan =
      parse_plan_yaml(replaced(kPlan, "max_ttft_increase: 25%", "max_ttft_increase: 18%"), kOrigin);
  const PlanResult result = evaluate_plan(plan);
  CHECK_FALSE(result.passed());
  std::vector<std::string> failed;
  for (const auto& v : result.verdicts) {
    if (!v.within) failed.push_back(v.subject);
  }
  CHECK(failed == std::vector<std::string>{"TP8 200G->100G P4", "TP8 200G->100G P6"});
}

TEST_CASE("a TTFT budget without any TTFT to compare with is an input error", "[plan][bad-input]") {
  const Plan plan = parse_plan_yaml(
      replaced(kPlan, "baseline: data/glm53_tp8_200g.csv", "prompts: [8k, 4x8k]"), kOrigin);
  CHECK_THROWS_AS(evaluate_plan(plan), InputError);
}

TEST_CASE("a projection from another TP size gives the TTFT budget something to check", "[plan]") {
  std::string text = replaced(kPlan, "baseline: data/glm53_tp8_200g.csv", "prompts: [8k]");
  text = replaced(text, "layout: {tp: 8}", "layout: {tp: 16}");
  text += "projection: {tp: 8, ttft: 6.36s, prompt: 8k}\n";
  const PlanResult result = evaluate_plan(parse_plan_yaml(text, kOrigin));
  REQUIRE(result.rows.size() == 1);
  REQUIRE(result.rows.front().projected_increase);
  CHECK_THAT(*result.rows.front().projected_increase, WithinAbs(0.311, 0.0005));
  CHECK_FALSE(result.passed());  // 31% > 25%
}

TEST_CASE("plan errors name the file, line and key", "[plan][bad-input]") {
  CHECK_THAT(error_of(std::string(kPlan) + "budget: {}\n"),
             ContainsSubstring("test-plan.yaml:11: budget: unknown key"));
  CHECK_THAT(error_of(replaced(kPlan, "to: 100G", "to: 100Q")),
             ContainsSubstring(":4: links.to: '100Q' is not a link"));
  CHECK_THAT(error_of(replaced(kPlan, "max_ttft_increase: 25%", "max_ttft_increase: 25")),
             ContainsSubstring(":9: budgets.max_ttft_increase: '25' is not a percentage"));
  CHECK_THAT(error_of(replaced(kPlan, "layout: {tp: 8}", "layout: {tp: 8, ep: 8, dp: 2}")),
             ContainsSubstring("dp: unknown key"));
  CHECK_THAT(error_of(replaced(kPlan, "model: glm-5.3", "model: glm-9")),
             ContainsSubstring(":1: model: unknown model 'glm-9'"));
  CHECK_THAT(
      error_of(replaced(kPlan, "baseline: data/glm53_tp8_200g.csv", "baseline: nothere.csv")),
      ContainsSubstring("nothere.csv: no such file"));
  CHECK_THAT(
      error_of(replaced(kPlan, "  baseline: data/glm53_tp8_200g.csv\n", "  decode_requests: 2\n")),
      ContainsSubstring("workload: give exactly one of prompts"));
  CHECK_THAT(error_of("model: glm-5.3\nlayout: {tp: 8}\nlinks: {from: 200G, to: 100G}\nworkload: "
                      "{prompts: [8k]}\n"),
             ContainsSubstring("needs at least one budget"));
  CHECK_THAT(error_of(replaced(kPlan, "layout: {tp: 8}", "layout: {tp: 1}")),
             ContainsSubstring("one node"));
  CHECK_THAT(error_of(""), ContainsSubstring("is empty"));
  CHECK_THAT(
      error_of(replaced(kPlan, "engine: {num_speculative_tokens: 4}", "engine: {max_num_seqs: 0}")),
      ContainsSubstring(":3: engine.max_num_seqs: 0 is out of range"));
  CHECK_THAT(error_of(replaced(kPlan, "layout: {tp: 8}", "layout: {tp: 8, dp: 2}")),
             ContainsSubstring(":2: layout.dp: unknown key"));
}

TEST_CASE("a projection that cannot hold names the plan's key, not a flag", "[plan][bad-input]") {
  std::string text = replaced(kPlan, "baseline: data/glm53_tp8_200g.csv", "prompts: [8k]");
  text += "projection: {tp: 8, ttft: 0.5s, prompt: 8k}\n";
  try {
    (void)evaluate_plan(parse_plan_yaml(text, kOrigin));
    FAIL("accepted a TTFT shorter than its network time");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()),
               ContainsSubstring("test-plan.yaml: projection: the baseline TTFT"));
  }
}

TEST_CASE("a single-node TTFT projects: all of it is compute", "[plan]") {
  std::string text = replaced(kPlan, "baseline: data/glm53_tp8_200g.csv", "prompts: [8k]");
  text += "projection: {tp: 1, ttft: 40s, prompt: 8k}\n";
  const PlanResult result = evaluate_plan(parse_plan_yaml(text, kOrigin));
  // compute at TP8 = 40 s / 8; network = 8192 x 3,376,128 B x 8 / 200 Gb/s
  const double comm = 8192 * 3376128.0 * 8 / 200e9;
  CHECK_THAT(*result.rows.front().projected_increase, WithinRel(comm / (5.0 + comm), 1e-12));
}
