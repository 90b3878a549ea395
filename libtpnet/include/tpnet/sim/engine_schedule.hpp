#pragma once
/// vLLM's scheduler as an engine's flags set it: the settings, the tokens a
/// decode forward yields per request, and how many steps simulating a
/// prompt takes, with the limit every simulation beside a bound is held to.

#include <optional>

#include "tpnet/base/quantity.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/sim/step_schedule.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

namespace tpnet {

/// Output tokens a decode forward yields per request: `given` (1 to 1 +
/// drafts; InputError naming `engine.accepted_tokens_per_decode` otherwise),
/// else 1 + drafts (every draft accepted).
[[nodiscard]] double accepted_tokens_per_decode(const EngineConfig& engine,
                                                std::optional<double> given);

/// The scheduler settings of an engine (its vLLM flags) with an acceptance.
[[nodiscard]] SchedulerSettings scheduler_settings(const EngineConfig& engine,
                                                   double accepted_tokens);

/// The most scheduler steps a column beside the bounds simulates
/// (prefill_communication over every penalty scenario or compare row): about
/// 2 us a step, so a few seconds at most.
inline constexpr double kMaxSimulatedSteps = 2e6;
/// About how many steps simulating `prompt` takes: ceil(prompt tokens /
/// prefill_step_budget) for the prefill, plus with `with_decode` batches of
/// max_num_seqs requests x ceil(outputs / accepted) decode steps.
[[nodiscard]] double estimated_steps(const EngineConfig& engine, const PromptSpec& prompt,
                                     TokenCount output_tokens, double accepted_tokens,
                                     bool with_decode);

/// Throws InputError naming `field` when `steps` exceed `limit`, saying what
/// to give instead.
void require_simulated_steps(double steps, const char* field, double limit = kMaxSimulatedSteps);

}  // namespace tpnet
