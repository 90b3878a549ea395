// The scheduler as an engine's flags set it: the tokens a decode forward
// yields, the settings handed to the scheduler, and how many steps a
// simulation beside a bound would take before it is refused.

#include "catch.hpp"
#include "tpnet/sim/engine_schedule.hpp"

using namespace tpnet;

TEST_CASE("a decode forward yields 1 + drafts tokens unless an acceptance is given") {
  EngineConfig engine;
  engine.num_speculative_tokens = 3;
  CHECK(accepted_tokens_per_decode(engine, std::nullopt) == 4.0);
  CHECK(accepted_tokens_per_decode(engine, 2.5) == 2.5);
  CHECK_THROWS_WITH(accepted_tokens_per_decode(engine, 4.5),
                    ContainsSubstring("engine.accepted_tokens_per_decode"));
  CHECK_THROWS_WITH(accepted_tokens_per_decode(engine, 0.5), ContainsSubstring("1 to 4"));
}

TEST_CASE("the scheduler settings are the engine's vLLM flags with the acceptance") {
  EngineConfig engine;
  engine.max_num_batched_tokens = 2048;
  engine.long_prefill_token_threshold = 1024;
  engine.max_num_seqs = 8;
  engine.num_speculative_tokens = 2;
  const SchedulerSettings s = scheduler_settings(engine, 2.5);
  CHECK(s.max_num_batched_tokens == 2048);
  CHECK(s.long_prefill_token_threshold == 1024);
  CHECK(s.max_num_seqs == 8);
  CHECK(s.num_speculative_tokens == 2);
  CHECK(s.accepted_tokens_per_decode == 2.5);
}

TEST_CASE("steps a prompt takes: chunks of the step budget, then decode batches") {
  EngineConfig engine;
  engine.max_num_batched_tokens = 4096;
  engine.max_num_seqs = 2;
  // 3 x 10,000 tokens at 4,096 a step: ceil(30,000 / 4,096) = 8 steps.
  const PromptSpec prompt{3, 10000};
  CHECK(estimated_steps(engine, prompt, 100, 1.0, false) == 8.0);
  // Two batches (max_num_seqs 2) of ceil(100 / 2.5) = 40 decode steps.
  CHECK(estimated_steps(engine, prompt, 100, 2.5, true) == 8.0 + 2.0 * 40.0);
}

TEST_CASE("a simulation past its step limit is refused naming the field") {
  CHECK_NOTHROW(require_simulated_steps(kMaxSimulatedSteps, "workload.prompts"));
  CHECK_THROWS_WITH(require_simulated_steps(kMaxSimulatedSteps + 1.0, "workload.prompts"),
                    ContainsSubstring("workload.prompts"));
  CHECK_THROWS_WITH(require_simulated_steps(11.0, "layout.tp", 10.0),
                    ContainsSubstring("at most 10"));
}
