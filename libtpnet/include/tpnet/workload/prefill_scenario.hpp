#pragma once
/// One prefill test: a prompt shape (one request or several at once) and,
/// when measured, its TTFT at the faster link; the study's six tests; and how
/// many prompt tokens one prefill step takes (docs/formulas.md s.4).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tpnet/base/quantity.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/model/engine.hpp"

namespace tpnet {

/// Output tokens a request decodes when nothing says how many: the studies'
/// 1,024, for predict, penalty, compare, plan's workload prompts and the
/// report's timeline alike.
inline constexpr TokenCount kDefaultOutputTokens = 1024;

/// Prompt tokens of one request when nothing says: the 8K prompt every
/// study starts with (predict's default prompt, expect's prompt).
inline constexpr TokenCount kDefaultPromptTokens = 8192;

struct PrefillScenario {
  std::string name;  ///< "P2", or the prompt text "8k"
  PromptSpec prompt;
  std::optional<Seconds> baseline_ttft;  ///< measured at the `from` link
  /// From a baseline's optional columns: output tokens per request and the
  /// measured decode speed per request at `from` (predict uses them).
  std::optional<TokenCount> output_tokens = std::nullopt;
  std::optional<double> decode_tokens_per_s = std::nullopt;
};

/// Throws InputError at `workload.prompts` when a run is given more than
/// kMaxScenarios scenarios (prompts, or a baseline's rows): what bounds the
/// work and memory argv and files can ask of one run.
void require_scenario_count(std::size_t count);

/// The GLM-5.3 study's tests P1-P6: 1k, 8k, 32k, 4x8k, 64k, 4x16k.
[[nodiscard]] std::vector<PrefillScenario> study_scenarios();

/// Prompt tokens one prefill step (forward pass) can take: the chunk
/// (max_num_batched_tokens), or r x long_prefill_token_threshold when that is smaller.
[[nodiscard]] TokenCount prefill_step_budget(const EngineConfig& engine, const PromptSpec& prompt);

}  // namespace tpnet
