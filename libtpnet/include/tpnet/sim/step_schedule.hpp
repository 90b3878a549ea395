#pragma once
/// vLLM V1's scheduler, step by step (docs/formulas.md s.21): which tokens of
/// which requests each forward pass carries, and when each request gets its
/// first token. Step times come from the caller (a cost model), so the order
/// of work is computed once, in one place, whatever prices it.

#include <functional>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/model/engine.hpp"

namespace tpnet {

/// One request as it arrives.
struct ScheduledRequest {
  double arrival_s = 0.0;        ///< seconds from the start, >= 0
  TokenCount prompt_tokens = 0;  ///< >= 1
  TokenCount output_tokens = 1;  ///< >= 1; the first comes with the step that ends the prompt
};

/// The scheduler's settings, by vLLM's names.
struct SchedulerSettings {
  TokenCount max_num_batched_tokens = kDefaultChunkTokens;  ///< token budget of one step
  TokenCount long_prefill_token_threshold =
      0;                           ///< most prompt tokens per request per step; 0 = none
  int max_num_seqs = 256;          ///< most requests running at once
  int num_speculative_tokens = 0;  ///< draft tokens: a decode forward carries 1 + these per request
  /// Output tokens a decode forward yields per request on average (speculative
  /// acceptance): 1 without drafts, up to 1 + num_speculative_tokens.
  double accepted_tokens_per_decode = 1.0;
};

/// What one request does in one step.
struct StepWork {
  int request = 0;                ///< index in the arrival list
  TokenCount prefill_tokens = 0;  ///< prompt tokens computed this step (0 in decode)
  TokenCount context_tokens = 0;  ///< tokens already in its KV cache before this step
  int decode_tokens = 0;          ///< tokens a decode forward carries (1 + drafts), 0 in prefill
  bool completes_prompt = false;  ///< the step yields this request's first token
};

/// One forward pass.
struct ScheduledStep {
  double start_s = 0.0;
  double end_s = 0.0;
  std::vector<StepWork> work;  ///< decodes first, then prefills, each in arrival order
  [[nodiscard]] TokenCount tokens() const;
  /// Tokens the step samples (what its logits gather carries): each
  /// decode's tokens, and one for each prompt it completes.
  [[nodiscard]] TokenCount sampled_tokens() const;
  [[nodiscard]] bool mixes_prefill_and_decode() const;
};

/// One request's outcome.
struct RequestTimeline {
  double arrival_s = 0.0;
  double admitted_s = 0.0;     ///< start of its first step
  double first_token_s = 0.0;  ///< end of the step that completed its prompt
  double finished_s = 0.0;     ///< end of the step that yielded its last output token
  int prefill_steps = 0;       ///< steps its prompt was spread over
  int decode_steps = 0;
  [[nodiscard]] double ttft_s() const { return first_token_s - arrival_s; }
};

struct ScheduleResult {
  std::vector<RequestTimeline> requests;  ///< in arrival-list order
  std::vector<ScheduledStep> steps;       ///< empty unless asked to keep them
  int step_count = 0;
  int mixed_steps = 0;  ///< steps that carried prefill and decode work together
};

/// When a simulation may stop.
enum class ScheduleUntil {
  all_outputs,   ///< every request has all its output tokens
  first_tokens,  ///< every request has its first token (decodes after it are not run)
};

/// Seconds a step takes; must be positive and finite.
using StepSeconds = std::function<double(const ScheduledStep& step)>;

/// Runs the scheduler until every request has its output. Each step: a
/// budget of max_num_batched_tokens; running requests in decode first (1 +
/// drafts each, in arrival order), then running requests still in prefill,
/// then waiting requests that have arrived, in arrival order, while fewer
/// than max_num_seqs run; each prefill takes min(what is left of its prompt,
/// long_prefill_token_threshold, the budget left). When nothing can run the
/// clock moves to the next arrival. Deterministic. With `first_tokens` it
/// stops once every request has its first token (finished_s stays 0 for
/// requests still decoding).
/// Throws InputError naming the field for settings or requests out of range,
/// and for a step time that is not positive and finite.
[[nodiscard]] ScheduleResult simulate_schedule(const std::vector<ScheduledRequest>& requests,
                                               const SchedulerSettings& settings,
                                               const StepSeconds& step_seconds,
                                               bool keep_steps = false,
                                               ScheduleUntil until = ScheduleUntil::all_outputs);

/// What users see of a run's requests (docs/prediction.md): each one's
/// TTFT, the span from the first arrival to the last first token, the mean
/// TTFT, and a request's decode speed, (outputs - 1) / (finish - first
/// token), averaged over the requests with more than one output.
struct RequestSummary {
  std::vector<Seconds> ttft;  ///< per request, in the order given
  Seconds last_first_token;
  Seconds mean_ttft;
  double decode_tokens_per_s = 0.0;  ///< 0 when no request decodes
};

/// `timelines[i]` is `requests[i]`'s; both non-empty and of one length
/// (InputError naming `workload.prompts` otherwise).
[[nodiscard]] RequestSummary summarize_requests(const std::vector<RequestTimeline>& timelines,
                                                const std::vector<ScheduledRequest>& requests);

}  // namespace tpnet
