#include "tpnet/sim/prefill_communication.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/sim/engine_schedule.hpp"
#include "tpnet/sim/step_cost.hpp"
#include "tpnet/sim/step_schedule.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/collective.hpp"

namespace tpnet {
namespace {

PrefillCommunication communication_between(const ModelArch& model, const EngineConfig& engine,
                                           const FabricProfile& from, const FabricProfile& to,
                                           const PromptSpec& prompt, TokenCount output_tokens,
                                           double accepted_tokens) {
  require_field(prompt.requests >= 1 && prompt.requests <= kMaxPromptRequests, "workload.prompts",
                fmt::format("{} requests; allowed 1 to {}", prompt.requests, kMaxPromptRequests));
  std::vector<ScheduledRequest> requests(static_cast<std::size_t>(prompt.requests),
                                         ScheduledRequest{0.0, prompt.tokens_each, output_tokens});
  // With every request arriving at once the steps' contents do not depend on
  // their times, so one schedule serves both links; it stops at the last
  // first token, which the steps it ran all precede.
  PrefillCommunication c;
  StepCommunicationCache at_from(model, engine, from);
  StepCommunicationCache at_to(model, engine, to);
  // The achieved-rate bound (docs/formulas.md s.25): every all-reduce's
  // bytes at the largest per-byte gap of the two profiles over the block
  // sizes the steps use, plus any fixed cost `to` adds; the logits gathers
  // (a few KB) at their own difference.
  const int tp = engine.tensor_parallel_size;
  const int allreduces = tp > 1 ? allreduces_per_forward(model, engine) : 0;
  struct StepBound {
    double sent = 0.0;        ///< one all-reduce's bytes sent per node
    double fixed = 0.0;       ///< max(0, what `to` adds in fixed cost)
    double difference = 0.0;  ///< one all-reduce's time at `to` less at `from`
  };
  std::unordered_map<TokenCount, StepBound> by_tokens;
  double sent = 0.0;
  double fixed = 0.0;
  double gathers = 0.0;
  std::optional<Bytes> smallest;
  std::optional<Bytes> largest;
  const StepSeconds price = [&](const ScheduledStep& step) {
    const StepCommunication at_f = at_from(step);
    const StepCommunication at_t = at_to(step);
    c.from = c.from + at_f.time;
    c.to = c.to + at_t.time;
    if (allreduces > 0) {
      auto it = by_tokens.find(step.tokens());
      if (it == by_tokens.end()) {
        const Bytes block = activation_block(model, engine, step.tokens());
        const FabricAllReduce f = fabric_allreduce(from, block, tp, engine.algorithm);
        const FabricAllReduce t = fabric_allreduce(to, block, tp, engine.algorithm);
        const StepBound b{(block * allreduce_sent_factor(tp, engine.algorithm)).count(),
                          std::max(0.0, (t.latency - f.latency).value()),
                          (t.time - f.time).value()};
        it = by_tokens.emplace(step.tokens(), b).first;
        if (!smallest || block < *smallest) smallest = block;
        if (!largest || block > *largest) largest = block;
      }
      sent += allreduces * it->second.sent;
      fixed += allreduces * it->second.fixed;
      gathers +=
          std::max(0.0, (at_t.time - at_f.time).value() - allreduces * it->second.difference);
    }
    ++c.steps;
    return 1.0;
  };
  (void)simulate_schedule(requests, scheduler_settings(engine, accepted_tokens), price, false,
                          ScheduleUntil::first_tokens);
  c.extra = c.to - c.from;
  if (smallest && largest) {
    c.gap = largest_per_byte_gap(from, to, tp, engine.algorithm, *smallest, *largest);
    c.bound = Seconds(fixed + sent * c.gap.seconds_per_byte + gathers);
  } else {
    c.bound = c.extra;  // no all-reduce: only gathers, if any, and they are priced exactly
  }
  return c;
}

}  // namespace

PrefillCommunication prefill_communication(const ModelArch& model, const EngineConfig& engine,
                                           const FabricProfile& from, const FabricProfile& to,
                                           const PromptSpec& prompt, TokenCount output_tokens,
                                           double accepted_tokens, bool with_range) {
  PrefillCommunication c =
      communication_between(model, engine, from, to, prompt, output_tokens, accepted_tokens);
  if (!with_range) {
    c.extra_range = {c.extra, c.extra};
    return c;
  }
  c.extra_range =
      extra_range(from, to, c.extra, [&](const FabricProfile& f, const FabricProfile& t) {
        return communication_between(model, engine, f, t, prompt, output_tokens, accepted_tokens)
            .extra;
      });
  return c;
}

}  // namespace tpnet
