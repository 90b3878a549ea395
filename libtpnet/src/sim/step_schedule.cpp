#include "tpnet/sim/step_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "tpnet/base/error.hpp"
#include "tpnet/base/limits.hpp"

namespace tpnet {
namespace {

/// The most requests one simulation takes: a day of traffic at 10 requests/s.
constexpr std::size_t kMostRequests = 1000000;

enum class Phase { waiting, prefill, decode, done };

struct State {
  Phase phase = Phase::waiting;
  TokenCount prefilled = 0;
  double produced = 0.0;  ///< output tokens so far (fractional under speculative acceptance)
};

void require_schedule(bool ok, const std::string& field, const std::string& why) {
  if (!ok) throw InputError(why, InputLocation::for_key(field));
}

void validate(const SchedulerSettings& s) {
  const int per_decode = 1 + s.num_speculative_tokens;
  require_schedule(
      s.num_speculative_tokens >= 0 && s.num_speculative_tokens <= kMaxSpeculativeTokens,
      "engine.num_speculative_tokens",
      fmt::format("{} is out of range; allowed 0 to {}", s.num_speculative_tokens,
                  kMaxSpeculativeTokens));
  require_schedule(
      s.max_num_batched_tokens >= per_decode && s.max_num_batched_tokens <= kMaxTokens,
      "engine.max_num_batched_tokens",
      fmt::format("{} tokens is out of range; allowed {} (1 + the speculative tokens, one "
                  "decode) to {}",
                  s.max_num_batched_tokens, per_decode, kMaxTokens));
  require_schedule(
      s.long_prefill_token_threshold >= 0 && s.long_prefill_token_threshold <= kMaxTokens,
      "engine.long_prefill_token_threshold",
      fmt::format("{} tokens is out of range; allowed 0 (none) to {}",
                  s.long_prefill_token_threshold, kMaxTokens));
  require_schedule(
      s.max_num_seqs >= 1 && s.max_num_seqs <= kMaxRunningRequests, "engine.max_num_seqs",
      fmt::format("{} is out of range; allowed 1 to {}", s.max_num_seqs, kMaxRunningRequests));
  require_schedule(
      std::isfinite(s.accepted_tokens_per_decode) && s.accepted_tokens_per_decode >= 1.0 &&
          s.accepted_tokens_per_decode <= per_decode,
      "engine.accepted_tokens_per_decode",
      fmt::format("{} is out of range; a decode forward yields 1 to {} tokens (1 + the "
                  "speculative tokens)",
                  s.accepted_tokens_per_decode, per_decode));
}

void validate(const std::vector<ScheduledRequest>& requests) {
  require_schedule(!requests.empty() && requests.size() <= kMostRequests, "workload.requests",
                   fmt::format("{} requests; allowed 1 to {}", requests.size(), kMostRequests));
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const ScheduledRequest& r = requests[i];
    const std::string which = fmt::format("request {}: ", i + 1);
    require_schedule(std::isfinite(r.arrival_s) && r.arrival_s >= 0.0 && r.arrival_s <= kMaxSeconds,
                     "workload.requests", which + "arrival must be 0 to 360000000 s");
    require_schedule(
        r.prompt_tokens >= 1 && r.prompt_tokens <= kMaxTokens, "workload.requests",
        which + fmt::format("{} prompt tokens; allowed 1 to {}", r.prompt_tokens, kMaxTokens));
    require_schedule(
        r.output_tokens >= 1 && r.output_tokens <= kMaxTokens, "workload.requests",
        which + fmt::format("{} output tokens; allowed 1 to {}", r.output_tokens, kMaxTokens));
  }
}

}  // namespace

TokenCount ScheduledStep::tokens() const {
  TokenCount sum = 0;
  for (const StepWork& w : work) sum += w.prefill_tokens + w.decode_tokens;
  return sum;
}

TokenCount ScheduledStep::sampled_tokens() const {
  TokenCount sum = 0;
  for (const StepWork& w : work) sum += w.decode_tokens + (w.completes_prompt ? 1 : 0);
  return sum;
}

bool ScheduledStep::mixes_prefill_and_decode() const {
  const bool prefill =
      std::any_of(work.begin(), work.end(), [](const StepWork& w) { return w.prefill_tokens > 0; });
  const bool decode =
      std::any_of(work.begin(), work.end(), [](const StepWork& w) { return w.decode_tokens > 0; });
  return prefill && decode;
}

ScheduleResult simulate_schedule(const std::vector<ScheduledRequest>& requests,
                                 const SchedulerSettings& settings, const StepSeconds& step_seconds,
                                 bool keep_steps, ScheduleUntil until) {
  validate(settings);
  validate(requests);
  const std::size_t n = requests.size();
  // Arrival order; ties keep the list's order.
  std::vector<int> by_arrival(n);
  std::iota(by_arrival.begin(), by_arrival.end(), 0);
  std::stable_sort(by_arrival.begin(), by_arrival.end(), [&](int a, int b) {
    return requests[static_cast<std::size_t>(a)].arrival_s <
           requests[static_cast<std::size_t>(b)].arrival_s;
  });

  ScheduleResult result;
  result.requests.resize(n);
  for (std::size_t i = 0; i < n; ++i) result.requests[i].arrival_s = requests[i].arrival_s;
  std::vector<State> state(n);
  std::vector<int> running;  // admitted and not done, in arrival order
  std::size_t next = 0;      // next request in by_arrival not yet admitted
  std::size_t done = 0;
  const int per_decode = 1 + settings.num_speculative_tokens;
  const TokenCount cap = settings.long_prefill_token_threshold > 0
                             ? settings.long_prefill_token_threshold
                             : std::numeric_limits<TokenCount>::max();
  double clock = 0.0;
  ScheduledStep step;

  std::size_t first_tokens = 0;
  while (done < n && (until == ScheduleUntil::all_outputs || first_tokens < n)) {
    step.work.clear();
    step.start_s = clock;
    TokenCount budget = settings.max_num_batched_tokens;
    for (const int r : running) {
      const auto index = static_cast<std::size_t>(r);
      if (state[index].phase != Phase::decode || budget < per_decode) continue;
      // The KV cache holds the prompt and every output token but the newest,
      // which this forward feeds in.
      const TokenCount context = requests[index].prompt_tokens +
                                 static_cast<TokenCount>(std::floor(state[index].produced)) - 1;
      step.work.push_back(StepWork{r, 0, context, per_decode, false});
      budget -= per_decode;
    }
    auto prefill = [&](int r) {
      const auto index = static_cast<std::size_t>(r);
      const TokenCount left = requests[index].prompt_tokens - state[index].prefilled;
      const TokenCount take = std::min({left, cap, budget});
      if (take <= 0) return;
      step.work.push_back(StepWork{r, take, state[index].prefilled, 0, take == left});
      budget -= take;
    };
    for (const int r : running) {
      if (state[static_cast<std::size_t>(r)].phase == Phase::prefill) prefill(r);
    }
    while (budget > 0 && next < n &&
           running.size() < static_cast<std::size_t>(settings.max_num_seqs) &&
           requests[static_cast<std::size_t>(by_arrival[next])].arrival_s <= clock) {
      const int r = by_arrival[next++];
      state[static_cast<std::size_t>(r)].phase = Phase::prefill;
      result.requests[static_cast<std::size_t>(r)].admitted_s = clock;
      running.push_back(r);
      prefill(r);
    }
    if (step.work.empty()) {
      // Nothing runnable: wait for the next arrival (there is one, or all are done).
      clock = std::max(clock, requests[static_cast<std::size_t>(by_arrival[next])].arrival_s);
      continue;
    }
    const double seconds = step_seconds(step);
    if (!std::isfinite(seconds) || !(seconds > 0.0)) {
      throw InputError(fmt::format("a step time of {} s; every step must take a positive, finite "
                                   "time",
                                   seconds),
                       InputLocation::for_key("fabric"));
    }
    step.end_s = clock + seconds;
    for (const StepWork& w : step.work) {
      const auto index = static_cast<std::size_t>(w.request);
      State& s = state[index];
      RequestTimeline& t = result.requests[index];
      if (w.prefill_tokens > 0) {
        s.prefilled += w.prefill_tokens;
        ++t.prefill_steps;
        if (!w.completes_prompt) continue;
        t.first_token_s = step.end_s;
        ++first_tokens;
        s.produced = 1.0;
        s.phase = Phase::decode;
      } else {
        s.produced += settings.accepted_tokens_per_decode;
        ++t.decode_steps;
      }
      if (s.produced + 1e-9 >= static_cast<double>(requests[index].output_tokens)) {
        s.phase = Phase::done;
        t.finished_s = step.end_s;
        ++done;
      }
    }
    running.erase(std::remove_if(running.begin(), running.end(),
                                 [&](int r) {
                                   return state[static_cast<std::size_t>(r)].phase == Phase::done;
                                 }),
                  running.end());
    ++result.step_count;
    if (step.mixes_prefill_and_decode()) ++result.mixed_steps;
    if (keep_steps) result.steps.push_back(step);
    clock = step.end_s;
  }
  return result;
}

RequestSummary summarize_requests(const std::vector<RequestTimeline>& timelines,
                                  const std::vector<ScheduledRequest>& requests) {
  require_field(!timelines.empty() && timelines.size() == requests.size(), "workload.prompts",
                "a run's summary needs one timeline per request, and at least one");
  RequestSummary out;
  out.ttft.reserve(timelines.size());
  double first_arrival = timelines.front().arrival_s;
  double last_first = 0.0;
  double ttft_sum = 0.0;
  double rate_sum = 0.0;
  int rated = 0;
  for (std::size_t i = 0; i < timelines.size(); ++i) {
    const RequestTimeline& t = timelines[i];
    first_arrival = std::min(first_arrival, t.arrival_s);
    last_first = std::max(last_first, t.first_token_s);
    out.ttft.emplace_back(t.ttft_s());
    ttft_sum += t.ttft_s();
    const TokenCount outputs = requests[i].output_tokens;
    if (outputs > 1 && t.finished_s > t.first_token_s) {
      rate_sum += static_cast<double>(outputs - 1) / (t.finished_s - t.first_token_s);
      ++rated;
    }
  }
  out.last_first_token = Seconds(last_first - first_arrival);
  out.mean_ttft = Seconds(ttft_sum / static_cast<double>(timelines.size()));
  out.decode_tokens_per_s = rated > 0 ? rate_sum / rated : 0.0;
  return out;
}

}  // namespace tpnet
