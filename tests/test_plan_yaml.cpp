// Deployment plan files for `tpnet check` (tpnet/io/plan_yaml.hpp, schema
// in docs/plan.md): what a plan's sections read into, and every error naming
// file, line and key. What a plan decides is tested in test_serving_plan.cpp.

#include <string>

#include "catch.hpp"
#include "plan_fixtures.hpp"
#include "tpnet/io/plan_yaml.hpp"

using namespace tpnet;
using tpnet::test::kPlan;
using tpnet::test::replaced;

namespace {

std::string error_of(const std::string& text) {
  try {
    (void)parse_plan_yaml(text, tpnet::test::kPlanOrigin);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("plan errors name the file, line and key", "[serving-plan][bad-input]") {
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

TEST_CASE("a plan's memory section reads the memory fit's settings and refuses reserved",
          "[serving-plan][memory][bad-input]") {
  const ServingPlan plan = parse_plan_yaml(
      std::string(kPlan) +
          "node: dgx-spark\nmemory: {gpu_memory_utilization: 0.85, nccl_channels: 16, "
          "nccl_buffsize: 2MiB, max_model_len: 32768, kv_cache_dtype: fp8}\n",
      tpnet::test::kPlanOrigin);
  const MemorySettings& m = plan.compare.memory;
  CHECK(m.gpu_memory_utilization == 0.85);
  CHECK(m.nccl_channels == 16);
  CHECK(m.nccl_buffsize->count() == 2.0 * 1048576);
  CHECK(m.max_model_len == 32768);
  CHECK(m.kv_cache_dtype_bytes == 1);
  CHECK_THAT(error_of(std::string(kPlan) + "memory: {reserved: 11GB}\n"),
             ContainsSubstring(":11: memory.reserved: is no longer read"));
  CHECK_THAT(error_of(std::string(kPlan) + "node: dgx-sparkle\n"),
             ContainsSubstring(":11: node: unknown node 'dgx-sparkle'"));
}

TEST_CASE("a plan places the Engram tables and the autotune spike under memory",
          "[serving-plan][memory]") {
  const ServingPlan plan =
      parse_plan_yaml(std::string(kPlan) + "memory: {engram_tables: disk, autotune_spike: 10GB}\n",
                      tpnet::test::kPlanOrigin);
  const MemorySettings& m = plan.compare.memory;
  CHECK(m.engram_tables == TablePlacement::disk);
  CHECK(m.autotune_spike.count() == 10e9);
  CHECK_FALSE(
      parse_plan_yaml(kPlan, tpnet::test::kPlanOrigin).compare.memory.engram_tables.has_value());
  CHECK_THAT(error_of(std::string(kPlan) + "memory: {engram_tables: ram}\n"),
             ContainsSubstring(":11: memory.engram_tables: 'ram' is not a place for the tables"));
}
