#include "tpnet/sim/engine_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tpnet/base/error.hpp"

namespace tpnet {
double accepted_tokens_per_decode(const EngineConfig& engine, std::optional<double> given) {
  const double all = 1.0 + engine.num_speculative_tokens;
  if (!given) return all;
  require_field(
      std::isfinite(*given) && *given >= 1.0 && *given <= all, "engine.accepted_tokens_per_decode",
      fmt::format("{:g} is out of range; a decode forward yields 1 to {:g} tokens (1 + the "
                  "speculative tokens)",
                  *given, all));
  return *given;
}

SchedulerSettings scheduler_settings(const EngineConfig& engine, double accepted_tokens) {
  SchedulerSettings s;
  s.max_num_batched_tokens = engine.max_num_batched_tokens;
  s.long_prefill_token_threshold = engine.long_prefill_token_threshold;
  s.max_num_seqs = engine.max_num_seqs;
  s.num_speculative_tokens = engine.num_speculative_tokens;
  s.accepted_tokens_per_decode = accepted_tokens;
  return s;
}

double estimated_steps(const EngineConfig& engine, const PromptSpec& prompt,
                       TokenCount output_tokens, double accepted_tokens, bool with_decode) {
  const double tokens =
      static_cast<double>(prompt.requests) * static_cast<double>(prompt.tokens_each);
  const double budget =
      static_cast<double>(std::max<TokenCount>(1, prefill_step_budget(engine, prompt)));
  double steps = std::ceil(tokens / budget);
  if (with_decode) {
    const double batches =
        std::ceil(static_cast<double>(prompt.requests) / std::max(1, engine.max_num_seqs));
    steps +=
        batches * std::ceil(static_cast<double>(output_tokens) / std::max(1.0, accepted_tokens));
  }
  return steps;
}

void require_simulated_steps(double steps, const char* field, double limit) {
  require_field(
      steps <= limit, field,
      fmt::format("would simulate about {:.3g} scheduler steps; at most {:.0f} in one run "
                  "(fewer or shorter prompts, fewer outputs, or a larger step budget)",
                  steps, limit));
}

}  // namespace tpnet
