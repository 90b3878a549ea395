#include "tpnet/sim/disaggregated_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>

#include "tpnet/base/error.hpp"

namespace tpnet {
namespace {

/// The requests one instance was given (indices into the run's list) and
/// the same requests as its scheduler sees them.
struct InstanceQueue {
  std::vector<std::size_t> members;
  std::vector<ScheduledRequest> scheduled;
};

/// Runs one instance's scheduler, adding its forwards to `pool`.
ScheduleResult run_instance(const InstanceQueue& queue, const SchedulerSettings& settings,
                            const StepSeconds& price, DisaggregatedPool& pool) {
  const StepSeconds counted = [&](const ScheduledStep& step) {
    const double seconds = price(step);
    ++pool.steps;
    pool.busy_s += seconds;
    return seconds;
  };
  return simulate_schedule(queue.scheduled, settings, counted);
}

EngineConfig engine_at_tp(const EngineConfig& engine, int tp) {
  EngineConfig out = engine;
  out.tensor_parallel_size = tp;
  return out;
}

}  // namespace

DisaggregatedResult simulate_disaggregated(const std::vector<ScheduledRequest>& requests,
                                           const DisaggregationLayout& layout,
                                           const SchedulerSettings& settings,
                                           const DisaggregatedPricing& pricing) {
  require_field(layout.prefill_instances >= 1, "disaggregation.prefill_instances",
                "must be at least 1");
  require_field(layout.decode_instances >= 1, "disaggregation.decode_instances",
                "must be at least 1");
  require_field(!requests.empty(), "workload.requests", "give at least one request");
  const std::size_t n = requests.size();
  std::vector<std::size_t> by_arrival(n);
  std::iota(by_arrival.begin(), by_arrival.end(), std::size_t{0});
  std::stable_sort(by_arrival.begin(), by_arrival.end(), [&](std::size_t a, std::size_t b) {
    return requests[a].arrival_s < requests[b].arrival_s;
  });

  DisaggregatedResult out;
  out.requests.resize(n);
  out.prefill.instances = layout.prefill_instances;
  out.decode.instances = layout.decode_instances;
  std::vector<InstanceQueue> prefill(static_cast<std::size_t>(layout.prefill_instances));
  std::vector<InstanceQueue> decode(static_cast<std::size_t>(layout.decode_instances));
  for (std::size_t order = 0; order < n; ++order) {
    const std::size_t index = by_arrival[order];
    DisaggregatedRequest& request = out.requests[index];
    request.arrival_s = requests[index].arrival_s;
    request.prefill_instance = static_cast<int>(order % prefill.size());
    request.decode_instance = static_cast<int>(order % decode.size());
    InstanceQueue& queue = prefill[static_cast<std::size_t>(request.prefill_instance)];
    queue.members.push_back(index);
    // The prefill instance serves the proxy's request with max_tokens 1.
    queue.scheduled.push_back(
        ScheduledRequest{requests[index].arrival_s, requests[index].prompt_tokens, 1});
  }
  for (const InstanceQueue& queue : prefill) {
    if (queue.members.empty()) continue;
    const ScheduleResult result = run_instance(queue, settings, pricing.prefill_step, out.prefill);
    for (std::size_t i = 0; i < queue.members.size(); ++i) {
      DisaggregatedRequest& request = out.requests[queue.members[i]];
      request.prefill_start_s = result.requests[i].admitted_s;
      request.prefill_end_s = result.requests[i].first_token_s;
    }
  }

  // Each decode instance pulls one cache at a time, in the order the
  // prefills end (ties in arrival order).
  for (std::size_t order = 0; order < n; ++order) {
    const std::size_t index = by_arrival[order];
    decode[static_cast<std::size_t>(out.requests[index].decode_instance)].members.push_back(index);
  }
  for (InstanceQueue& queue : decode) {
    std::stable_sort(queue.members.begin(), queue.members.end(), [&](std::size_t a, std::size_t b) {
      return out.requests[a].prefill_end_s < out.requests[b].prefill_end_s;
    });
    double link_free = 0.0;
    for (const std::size_t index : queue.members) {
      DisaggregatedRequest& request = out.requests[index];
      const double seconds = pricing.hand_off_seconds(requests[index]);
      require_field(
          std::isfinite(seconds) && seconds >= 0.0, "disaggregation.kv_transfer",
          fmt::format("a hand-off of {} s; it must take a finite time of at least 0 s", seconds));
      request.hand_off_start_s = std::max(link_free, request.prefill_end_s);
      request.hand_off_end_s = request.hand_off_start_s + seconds;
      link_free = request.hand_off_end_s;
      // The cache holds the prompt but its last token, which the decode
      // instance's first step recomputes to sample the first output token:
      // one token to its scheduler, its context added back when priced.
      queue.scheduled.push_back(
          ScheduledRequest{request.hand_off_end_s, 1, requests[index].output_tokens});
    }
    if (queue.members.empty()) continue;
    std::vector<TokenCount> cached(queue.members.size());
    for (std::size_t i = 0; i < queue.members.size(); ++i) {
      cached[i] = requests[queue.members[i]].prompt_tokens - 1;
    }
    const StepSeconds whole_context = [&](const ScheduledStep& step) {
      ScheduledStep priced = step;
      for (StepWork& w : priced.work) {
        w.context_tokens += cached[static_cast<std::size_t>(w.request)];
        if (w.prefill_tokens > 0) {
          // The recomputed last token reads the whole cache as a decode does.
          w.decode_tokens = static_cast<int>(w.prefill_tokens);
          w.prefill_tokens = 0;
          w.completes_prompt = false;
        }
      }
      return pricing.decode_step(priced);
    };
    const ScheduleResult result = run_instance(queue, settings, whole_context, out.decode);
    for (std::size_t i = 0; i < queue.members.size(); ++i) {
      DisaggregatedRequest& request = out.requests[queue.members[i]];
      request.first_token_s = result.requests[i].first_token_s;
      request.finished_s = result.requests[i].finished_s;
    }
  }

  double first_arrival = out.requests.front().arrival_s;
  double ttft_sum = 0.0;
  double hand_off_sum = 0.0;
  double rate_sum = 0.0;
  int rated = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const DisaggregatedRequest& request = out.requests[i];
    first_arrival = std::min(first_arrival, request.arrival_s);
    out.last_first_token_s = std::max(out.last_first_token_s, request.first_token_s);
    out.finished_s = std::max(out.finished_s, request.finished_s);
    ttft_sum += request.ttft_s();
    hand_off_sum += request.hand_off_s();
    const TokenCount outputs = requests[i].output_tokens;
    if (outputs > 1 && request.finished_s > request.first_token_s) {
      rate_sum += static_cast<double>(outputs - 1) / (request.finished_s - request.first_token_s);
      ++rated;
    }
  }
  out.last_first_token_s -= first_arrival;
  out.mean_ttft_s = ttft_sum / static_cast<double>(n);
  out.mean_hand_off_s = hand_off_sum / static_cast<double>(n);
  out.hand_off_share_of_ttft = ttft_sum > 0.0 ? hand_off_sum / ttft_sum : 0.0;
  out.decode_tokens_per_s = rated > 0 ? rate_sum / rated : 0.0;
  const double span = out.finished_s - first_arrival;
  for (DisaggregatedPool* pool : {&out.prefill, &out.decode}) {
    pool->utilisation = span > 0.0 ? pool->busy_s / (pool->instances * span) : 0.0;
  }
  out.prefill_busier = out.prefill.utilisation > out.decode.utilisation;
  return out;
}

StepCostModel step_cost_at_tp(const StepCostModel& cost, const ModelArch& model, int tp) {
  StepCostModel out = cost;
  out.flops_per_token = gemm_flops_per_token(model, tp);
  out.expert_flops_per_token = expert_gemm_flops_per_token(model, tp);
  out.decode.tp = tp;
  return out;
}

PoolStepPrice::PoolStepPrice(const ModelArch& model, const EngineConfig& engine,
                             const StepCostModel& cost, const FabricProfile& fabric, int tp)
    : engine_(engine_at_tp(engine, tp)),
      cost_(step_cost_at_tp(cost, model, tp)),
      features_(model, tp, cost_.flops_per_token, cost_.expert_flops_per_token,
                cost_.kv_dtype_bytes),
      communication_(model, engine_, fabric) {}

StepCost PoolStepPrice::operator()(const ScheduledStep& step) {
  const StepCommunication communication = communication_(step);
  sent_ += communication.sent_per_node;
  return price_step(cost_, features_(step), communication);
}

}  // namespace tpnet
