#include "tpnet/measured/point_estimate.hpp"
#include "tpnet/traffic/layout_traffic.hpp"

#include <algorithm>
#include <cmath>

#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/collective.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

namespace tpnet {

Seconds compute_per_token_for(const ComputeCalibration& compute, const ParallelLayout& layout) {
  return compute.per_prompt_token * (static_cast<double>(compute.tp) / layout.nodes());
}

PrefillPoint point_prefill(const AllReduceCalibration& c, const ModelArch& model,
                           const EngineConfig& engine, const ParallelLayout& layout,
                           const PromptSpec& prompt, BitRate from, BitRate to,
                           std::optional<Seconds> compute_per_token) {
  PrefillPoint p;
  const TokenCount total = prompt.total_tokens();
  const TokenCount budget = prefill_step_budget(engine, prompt);
  const TokenCount full = total / budget;
  const TokenCount rest = total % budget;
  p.forwards = full + (rest > 0 ? 1 : 0);
  p.last_tokens = rest > 0 ? rest : budget;

  // One forward of `tokens`: the busiest stage's all-reduces from the curve,
  // its other bytes at the calibrated rate.
  auto forward = [&](TokenCount tokens, BitRate rate) {
    const LayoutTraffic t = layout_traffic(model, engine, layout, tokens);
    Seconds time(0.0);
    if (t.allreduces > 0 && layout.tp >= 2) {
      time +=
          calibrated_allreduce_time(c, activation_block(model, engine, tokens), layout.tp, rate) *
          static_cast<double>(t.allreduces);
    }
    const Bytes other = t.total_bytes - t.allreduce_bytes;
    if (other.count() > 0.0) time += other / calibrated_rate(c, rate);
    return time;
  };
  auto prompt_time = [&](BitRate rate) {
    Seconds time = forward(budget, rate) * static_cast<double>(full);
    if (rest > 0) time += forward(rest, rate);
    return time;
  };
  p.comm_from = full > 0 || rest > 0 ? prompt_time(from) : Seconds(0.0);
  p.comm_to = full > 0 || rest > 0 ? prompt_time(to) : Seconds(0.0);
  p.extra = p.comm_to - p.comm_from;
  if (compute_per_token) {
    p.compute = *compute_per_token * static_cast<double>(total);
    const Seconds ttft = *p.compute + p.comm_from;
    if (ttft.value() > 0.0) {
      p.network_share = p.comm_from / ttft;
      p.ttft_increase = p.extra / ttft;
    }
  }
  return p;
}

DecodePoint point_decode(const AllReduceCalibration& c, const ModelArch& model,
                         const EngineConfig& engine, TokenCount tokens, Bytes logits_sent,
                         BitRate from, BitRate to) {
  const int n = engine.tensor_parallel_size;
  const auto allreduces = static_cast<double>(allreduces_per_forward(model, engine));
  DecodePoint d;
  d.block = activation_block(model, engine, tokens);
  d.allreduce_from = calibrated_allreduce_time(c, d.block, n, from);
  d.allreduce_to = calibrated_allreduce_time(c, d.block, n, to);
  const Seconds step = Seconds(std::max(0.0, c.alpha.value())) /
                       static_cast<double>(allreduce_steps(c.ranks, CollectiveAlgorithm::ring));
  auto gather = [&](BitRate rate) {
    return step * static_cast<double>(n - 1) + logits_sent / calibrated_rate(c, rate);
  };
  d.forward_comm_from = d.allreduce_from * allreduces + gather(from);
  d.forward_comm_to = d.allreduce_to * allreduces + gather(to);
  d.added_per_forward = d.forward_comm_to - d.forward_comm_from;
  return d;
}

}  // namespace tpnet
