// vLLM V1's scheduler step by step (docs/formulas.md s.21): long prompts in
// pairs under long_prefill_token_threshold, decode interleaved with the rest
// of the prefill, max_num_seqs, arrivals, speculative acceptance.

#include <vector>

#include "catch.hpp"
#include "tpnet/sim/step_schedule.hpp"

using namespace tpnet;

namespace {

/// Every step takes 1 s plus 1 ms per token: times count steps and tokens.
double unit_cost(const ScheduledStep& step) { return 1.0 + 1e-3 * double(step.tokens()); }

std::vector<ScheduledRequest> at_once(int count, TokenCount prompt, TokenCount output) {
  return std::vector<ScheduledRequest>(static_cast<std::size_t>(count),
                                       ScheduledRequest{0.0, prompt, output});
}

}  // namespace

TEST_CASE("schedule: one prompt is chunked by the token budget", "[schedule]") {
  SchedulerSettings s;
  s.max_num_batched_tokens = 4096;
  const ScheduleResult r = simulate_schedule(at_once(1, 10000, 3), s, unit_cost, true);
  // 4096 + 4096 + 1808 prompt tokens, then 2 decode steps of 1 token.
  REQUIRE(r.step_count == 5);
  CHECK(r.steps[0].work[0].prefill_tokens == 4096);
  CHECK(r.steps[1].work[0].context_tokens == 4096);
  CHECK(r.steps[2].work[0].prefill_tokens == 1808);
  CHECK(r.steps[2].work[0].completes_prompt);
  CHECK(r.requests[0].prefill_steps == 3);
  CHECK(r.requests[0].decode_steps == 2);
  CHECK_THAT(r.requests[0].first_token_s, WithinRel(3.0 + 10.0, 1e-12));
  CHECK_THAT(r.requests[0].finished_s, WithinRel(5.0 + 10.002, 1e-12));
  // The decode steps attend to the prompt, then the prompt and one output.
  CHECK(r.steps[3].work[0].context_tokens == 10000);
  CHECK(r.steps[4].work[0].context_tokens == 10001);
}

TEST_CASE("schedule: four 16K prompts under a 2,048 threshold go in pairs", "[schedule]") {
  // The GLM-5.3 study: chunk 4096, long_prefill_token_threshold 2048.
  SchedulerSettings s;
  s.max_num_batched_tokens = 4096;
  s.long_prefill_token_threshold = 2048;
  const ScheduleResult r = simulate_schedule(at_once(4, 16384, 64), s, unit_cost, true);
  // Steps 1-8: requests 1 and 2, 2,048 tokens each; both finish at step 8.
  for (int i = 0; i < 8; ++i) {
    REQUIRE(r.steps[std::size_t(i)].work.size() == 2);
    CHECK(r.steps[std::size_t(i)].work[0].request == 0);
    CHECK(r.steps[std::size_t(i)].work[1].request == 1);
  }
  CHECK(r.requests[0].first_token_s == r.steps[7].end_s);
  CHECK(r.requests[1].first_token_s == r.steps[7].end_s);
  // From step 9 the first pair decodes while the second pair prefills:
  // 2 decode tokens leave 4,094 of the budget, 2,048 + 2,046.
  const ScheduledStep& ninth = r.steps[8];
  REQUIRE(ninth.work.size() == 4);
  CHECK(ninth.work[0].decode_tokens == 1);
  CHECK(ninth.work[1].decode_tokens == 1);
  CHECK(ninth.work[2].prefill_tokens == 2048);
  CHECK(ninth.work[3].prefill_tokens == 2046);
  CHECK(ninth.mixes_prefill_and_decode());
  CHECK(r.requests[3].first_token_s > r.requests[2].first_token_s);
  CHECK(r.requests[2].prefill_steps == 8);
  CHECK(r.requests[3].prefill_steps == 9);  // 8 x 2,046 tokens, then the rest
  CHECK(r.mixed_steps == 9);
  // The last request's first token is the TTFT the study reported.
  double last = 0.0;
  for (const auto& t : r.requests) last = std::max(last, t.ttft_s());
  CHECK(last == r.requests[3].ttft_s());
}

TEST_CASE("schedule: max_num_seqs holds the rest waiting", "[schedule]") {
  SchedulerSettings s;
  s.max_num_batched_tokens = 8192;
  s.max_num_seqs = 2;
  const ScheduleResult r = simulate_schedule(at_once(3, 100, 5), s, unit_cost, true);
  // Two run; the third is admitted only when one of them finishes.
  CHECK(r.steps[0].work.size() == 2);
  CHECK(r.requests[2].admitted_s == r.requests[0].finished_s);
  CHECK(r.requests[2].first_token_s > r.requests[0].finished_s);
}

TEST_CASE("schedule: arrivals wait for the clock, an idle engine jumps to them", "[schedule]") {
  SchedulerSettings s;
  const std::vector<ScheduledRequest> trace{{0.0, 1000, 2}, {100.0, 1000, 2}, {100.5, 10, 1}};
  const ScheduleResult r = simulate_schedule(trace, s, unit_cost, true);
  CHECK(r.requests[1].admitted_s == 100.0);
  CHECK_THAT(r.requests[1].ttft_s(), WithinRel(2.0, 1e-12));
  // The third arrives during the second's first step: admitted at its end.
  CHECK_THAT(r.requests[2].admitted_s, WithinRel(102.0, 1e-12));
  CHECK(r.requests[2].finished_s == r.requests[2].first_token_s);
}

TEST_CASE("schedule: speculative decoding carries drafts and yields accepted tokens",
          "[schedule]") {
  SchedulerSettings s;
  s.num_speculative_tokens = 3;
  s.accepted_tokens_per_decode = 2.5;
  const ScheduleResult r = simulate_schedule(at_once(1, 10, 11), s, unit_cost, true);
  // First token with the prompt, then 10 more at 2.5 per forward: 4 decode forwards.
  CHECK(r.requests[0].decode_steps == 4);
  CHECK(r.steps[1].work[0].decode_tokens == 4);
}

TEST_CASE("schedule: deterministic, and bad settings name the field", "[schedule]") {
  SchedulerSettings s;
  s.long_prefill_token_threshold = 1024;
  const auto a = simulate_schedule(at_once(8, 5000, 100), s, unit_cost);
  const auto b = simulate_schedule(at_once(8, 5000, 100), s, unit_cost);
  REQUIRE(a.requests.size() == b.requests.size());
  for (std::size_t i = 0; i < a.requests.size(); ++i) {
    CHECK(a.requests[i].first_token_s == b.requests[i].first_token_s);
  }
  CHECK(a.steps.empty());
  SchedulerSettings bad = s;
  bad.max_num_seqs = 0;
  CHECK_THROWS_WITH(simulate_schedule(at_once(1, 10, 1), bad, unit_cost),
                    ContainsSubstring("engine.max_num_seqs"));
  bad = s;
  bad.accepted_tokens_per_decode = 2.0;  // no drafts: exactly 1
  CHECK_THROWS_WITH(simulate_schedule(at_once(1, 10, 1), bad, unit_cost),
                    ContainsSubstring("engine.accepted_tokens_per_decode"));
  CHECK_THROWS_WITH(simulate_schedule(at_once(1, 0, 1), s, unit_cost),
                    ContainsSubstring("workload.requests"));
  CHECK_THROWS_WITH(
      simulate_schedule(at_once(1, 10, 1), s, [](const ScheduledStep&) { return 0.0; }),
      ContainsSubstring("positive, finite"));
}

TEST_CASE("a run's requests summarized: TTFT each, the last first token, mean TTFT, decode speed",
          "[schedule]") {
  // Two requests by hand: arrivals 0 and 1 s, first tokens at 2 and 4 s,
  // finished at 4 s (5 outputs: 4 after the first in 2 s) and 4 s (1 output).
  std::vector<RequestTimeline> timelines(2);
  timelines[0].arrival_s = 0.0;
  timelines[0].first_token_s = 2.0;
  timelines[0].finished_s = 4.0;
  timelines[1].arrival_s = 1.0;
  timelines[1].first_token_s = 4.0;
  timelines[1].finished_s = 4.0;
  const std::vector<ScheduledRequest> requests{{0.0, 100, 5}, {1.0, 100, 1}};
  const RequestSummary s = summarize_requests(timelines, requests);
  REQUIRE(s.ttft.size() == 2);
  CHECK(s.ttft[0].value() == 2.0);
  CHECK(s.ttft[1].value() == 3.0);
  CHECK(s.last_first_token.value() == 4.0);
  CHECK(s.mean_ttft.value() == 2.5);
  CHECK(s.decode_tokens_per_s == 2.0);  // only the first decodes: 4 tokens in 2 s
  CHECK_THROWS_AS(summarize_requests({}, {}), InputError);
  CHECK_THROWS_AS(summarize_requests(timelines, {requests[0]}), InputError);
}

TEST_CASE("a step samples each decode's tokens and one per prompt it completes", "[schedule]") {
  ScheduledStep step;
  step.work.push_back(StepWork{0, 0, 100, 3, false});      // a decode with 2 drafts
  step.work.push_back(StepWork{1, 512, 512, 0, true});     // a prompt's last chunk
  step.work.push_back(StepWork{2, 1024, 1024, 0, false});  // a chunk that does not end it
  CHECK(step.sampled_tokens() == 4);
  CHECK(step.tokens() == 3 + 512 + 1024);
}
