#include "predict_disaggregated.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "tpnet/base/error.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/sim/disaggregated_schedule.hpp"
#include "tpnet/sim/kv_transfer_time.hpp"
#include "tpnet/traffic/kv_transfer.hpp"
#include "tpnet/usecase/memory.hpp"

namespace tpnet {
namespace {

/// vLLM refuses the TP, or one instance of it does not fit: named by `field`.
void require_pool_runs(const PredictRequest& r, int tp, const char* field, const char* pool) {
  const std::string refusal = tp_refusal(r.model, tp);
  if (!refusal.empty()) {
    throw InputError(fmt::format("a {} instance of TP {}: {}", pool, tp, refusal),
                     InputLocation::for_key(field));
  }
  if (!r.memory) return;
  MemoryRequest memory = *r.memory;
  memory.layout = ParallelLayout{tp, 1, 1};
  memory.engine.tensor_parallel_size = tp;
  const MemoryReport fit = analyze_memory(r.model, memory);
  if (!fit.fits) {
    throw InputError(fmt::format("a {} instance of TP {} does not fit in memory ({}): {}", pool, tp,
                                 to_string(fit.limit), fit.fit_summary),
                     InputLocation::for_key(field));
  }
}

NodeSpec hand_off_node(const PredictRequest& r) { return r.memory ? r.memory->node : NodeSpec{}; }

KvTransferSettings hand_off_settings(const PredictRequest& r, const StepCostModel& cost) {
  return KvTransferSettings{r.kv_block_size, cost.kv_dtype_bytes};
}

}  // namespace

void check_disaggregated_predict(const PredictRequest& r, PredictReport& report) {
  const DisaggregationLayout& layout = *r.disaggregation;
  require_field(layout.prefill_instances >= 1 && layout.decode_instances >= 1, "disaggregation",
                "give at least one prefill and one decode instance");
  require_field(layout.prefill_tp >= 1, "disaggregation.prefill_tp", "must be at least 1");
  require_field(layout.decode_tp >= 1, "disaggregation.decode_tp", "must be at least 1");
  require_field(r.kv_block_size >= 1, "engine.block_size", "must be at least 1 token");
  require_field(r.data_parallel_size == 1, "disaggregation",
                "an xPyD run with data-parallel instances is not modelled: give each pool a TP "
                "without data parallelism");
  require_field(!r.step_sink, "predict.timeline",
                "an xPyD run writes no step timeline: its pools step apart");
  require_field(!r.keep_steps, "predict.traffic",
                "an xPyD run predicts no RDMA counters: its pools step apart");
  require_pool_runs(r, layout.prefill_tp, "disaggregation.prefill_tp", "prefill");
  require_pool_runs(r, layout.decode_tp, "disaggregation.decode_tp", "decode");
  report.warnings.push_back(fmt::format(
      "{} is not validated on Spark: no public measurement of a vLLM prefill/decode hand-off "
      "between Sparks exists that tpnet knows of; the KV transfer is the formula of "
      "docs/formulas.md s.32 on each link's profile",
      layout.name()));
  if (r.memory && r.memory->node.kv_connector) {
    const KvConnectorRate& connector = *r.memory->node.kv_connector;
    std::string text = fmt::format(
        "the hand-off moves at most {:.1f} Gb/s, what the KV connector measured between two {} "
        "with host buffers ({})",
        connector.host_memory.bits_per_second() / 1e9, r.memory->node.name, connector.source);
    if (connector.gpu_memory.bits_per_second() > 0.0) {
      text += fmt::format(
          "; with GPU-allocated buffers it measured {:.1f} Gb/s, so a connector that registers "
          "the KV cache where it lies is slower still",
          connector.gpu_memory.bits_per_second() / 1e9);
    }
    report.warnings.push_back(std::move(text));
  }
  if (!r.memory) {
    report.warnings.emplace_back(
        "no node memory given: the KV hand-off is priced without host staging");
  }
  report.notes.push_back(fmt::format(
      "{}: requests go round robin in arrival order to {} prefill instance(s) of TP {} (one "
      "output token each) and {} decode instance(s) of TP {}; each decode instance pulls one "
      "cache at a time, in the order the prefills end; TTFT ends with the decode instance's "
      "first step for the request",
      layout.name(), layout.prefill_instances, layout.prefill_tp, layout.decode_instances,
      layout.decode_tp));
}

PredictLink run_disaggregated_link(const PredictRequest& r, const StepCostModel& cost,
                                   const SchedulerSettings& scheduler,
                                   const PredictScenario& scenario, std::size_t link_index,
                                   const FabricProfile* fabric) {
  const DisaggregationLayout& layout = *r.disaggregation;
  PredictLink out;
  out.link = r.links[link_index].link;
  out.fabric = fabric != nullptr ? *fabric : *r.links[link_index].fabric;
  PoolStepPrice prefill_price(r.model, r.engine, cost, out.fabric, layout.prefill_tp);
  PoolStepPrice decode_price(r.model, r.engine, cost, out.fabric, layout.decode_tp);
  double communication = 0.0;
  double busy = 0.0;
  const auto priced = [&](PoolStepPrice& price, const ScheduledStep& step) {
    const StepCost c = price(step);
    communication += c.communication.value();
    busy += c.total.value();
    return c.total.value();
  };
  const NodeSpec node = hand_off_node(r);
  const KvTransferSettings settings = hand_off_settings(r, cost);
  const auto hand_off = [&](TokenCount prompt) {
    const KvTransfer transfer =
        kv_transfer(r.model, layout.prefill_tp, layout.decode_tp, prompt, settings);
    return std::pair{transfer, kv_transfer_time(out.fabric, transfer, node, Seconds(0.0))};
  };
  const DisaggregatedPricing pricing{
      [&](const ScheduledStep& step) {
        int prefills = 0;
        for (const StepWork& w : step.work) prefills += w.prefill_tokens > 0 ? 1 : 0;
        out.most_prefills_in_a_step = std::max(out.most_prefills_in_a_step, prefills);
        return priced(prefill_price, step);
      },
      [&](const ScheduledStep& step) { return priced(decode_price, step); },
      [&](const ScheduledRequest& q) { return hand_off(q.prompt_tokens).second.total.value(); }};
  DisaggregatedLink run{layout,
                        simulate_disaggregated(scenario.requests, layout, scheduler, pricing),
                        KvTransfer{}, KvTransferTime{}};
  TokenCount longest = 0;
  for (const ScheduledRequest& q : scenario.requests) longest = std::max(longest, q.prompt_tokens);
  std::tie(run.longest_transfer, run.longest_transfer_time) = hand_off(longest);

  const DisaggregatedResult& result = run.run;
  out.schedule.step_count = result.prefill.steps + result.decode.steps;
  double first_arrival = result.requests.front().arrival_s;
  for (const DisaggregatedRequest& q : result.requests) {
    first_arrival = std::min(first_arrival, q.arrival_s);
    RequestTimeline t;
    t.arrival_s = q.arrival_s;
    t.admitted_s = q.prefill_start_s;
    t.first_token_s = q.first_token_s;
    t.finished_s = q.finished_s;
    out.schedule.requests.push_back(t);
    out.first_token.emplace_back(q.ttft_s());
  }
  const std::size_t spans =
      fabric == nullptr ? std::min(r.spans_of_requests, result.requests.size()) : 0;
  for (std::size_t i = 0; i < spans; ++i) {
    const DisaggregatedRequest& q = result.requests[i];
    out.spans.push_back({RequestSpan{q.prefill_start_s, q.prefill_end_s, true},
                         RequestSpan{q.hand_off_end_s, q.finished_s, false}});
  }
  out.last_first_token = Seconds(result.last_first_token_s);
  out.mean_ttft = Seconds(result.mean_ttft_s);
  out.decode_tokens_per_s = result.decode_tokens_per_s;
  out.communication = Seconds(communication);
  out.network_share = busy > 0.0 ? communication / busy : 0.0;
  out.sent_per_node = prefill_price.sent_per_node() + decode_price.sent_per_node();
  out.finished = Seconds(result.finished_s);
  out.disaggregated = std::move(run);
  return out;
}

}  // namespace tpnet
