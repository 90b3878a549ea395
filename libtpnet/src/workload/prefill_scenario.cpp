#include "tpnet/workload/prefill_scenario.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "tpnet/base/checked_math.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/base/limits.hpp"

namespace tpnet {

std::vector<PrefillScenario> study_scenarios() {
  return {
      {"P1", PromptSpec{1, 1024}, {}},  {"P2", PromptSpec{1, 8192}, {}},
      {"P3", PromptSpec{1, 32768}, {}}, {"P4", PromptSpec{4, 8192}, {}},
      {"P5", PromptSpec{1, 65536}, {}}, {"P6", PromptSpec{4, 16384}, {}},
  };
}

TokenCount prefill_step_budget(const EngineConfig& engine, const PromptSpec& prompt) {
  TokenCount budget = engine.max_num_batched_tokens;
  if (engine.long_prefill_token_threshold > 0) {
    budget = std::min(budget, checked_mul(prompt.requests, engine.long_prefill_token_threshold,
                                          "prefill step budget (requests x "
                                          "engine.long_prefill_token_threshold)"));
  }
  return budget;
}

void require_scenario_count(std::size_t count) {
  if (count > kMaxScenarios) {
    throw InputError(fmt::format("{} scenarios (prompts given, or a baseline's rows) are more than "
                                 "one run takes; allowed at most {}",
                                 count, kMaxScenarios),
                     InputLocation::for_key("workload.prompts"));
  }
}

}  // namespace tpnet
