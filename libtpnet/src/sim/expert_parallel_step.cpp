#include "tpnet/sim/expert_parallel_step.hpp"

#include <algorithm>
#include <cmath>

#include "tpnet/model/layer_plan.hpp"
#include "tpnet/sim/decode_floor.hpp"
#include "tpnet/sim/expert_alltoall_time.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/collective.hpp"

namespace tpnet {
namespace {

/// The cost model of one DP rank: the GEMMs outside the routed experts at
/// tp, the routed experts' at 1/tp of the whole model's per token (each
/// token's k copies spread over tp x dp ranks, receiving dp ranks' tokens),
/// decode reads over the EP group.
StepCostModel ep_rank_cost_model(const StepCostModel& given, const ModelArch& model, int tp,
                                 const ExpertParallel& ep) {
  if (!ep.enabled()) return given;
  StepCostModel cost = given;
  const double dense = gemm_flops_per_token(model, tp) - expert_gemm_flops_per_token(model, tp);
  cost.expert_flops_per_token = expert_gemm_flops_per_token(model, 1) / static_cast<double>(tp);
  cost.flops_per_token = dense + cost.expert_flops_per_token;
  cost.decode.data_parallel = ep.data_parallel;
  return cost;
}

/// The cached value for `key`, or `price()` kept under it.
template <typename Value, typename Price>
const Value& ep_cached(std::unordered_map<TokenCount, Value>& cache, TokenCount key,
                       const Price& price) {
  if (const auto found = cache.find(key); found != cache.end()) return found->second;
  return cache.emplace(key, price()).first->second;
}

}  // namespace

ParallelLayout expert_parallel_layout(int tp, const ExpertParallel& ep) {
  return ParallelLayout{tp, 1, tp * std::max(1, ep.data_parallel)};
}

Bytes expert_parallel_weight_bytes(const DecodeWeightReads& reads, int tp, int data_parallel,
                                   TokenCount tokens, double concentration) {
  const double ranks = static_cast<double>(tp) * data_parallel;
  if (reads.experts <= 0 || reads.experts_per_token <= 0) return reads.active / ranks;
  const double e = reads.experts;
  const double k = reads.experts_per_token;
  const Bytes dense = (reads.active - reads.routed) / static_cast<double>(tp);
  // One expert of each MoE layer, summed over the layers: routed holds k of them.
  const Bytes per_expert = reads.routed / k;
  const double group_tokens =
      static_cast<double>(std::max<TokenCount>(1, tokens)) * static_cast<double>(data_parallel);
  const double touched_share = 1.0 - std::pow(1.0 - k / e, std::pow(group_tokens, concentration));
  return dense + per_expert * (e / ranks * touched_share);
}

StepPricer::StepPricer(const ModelArch& model, const EngineConfig& engine,
                       const FabricProfile& fabric, const StepCostModel& cost,
                       const ExpertParallel& ep)
    : model_(model),
      engine_(engine),
      fabric_(fabric),
      ep_(ep),
      cost_(ep_rank_cost_model(cost, model, engine.tensor_parallel_size, ep)),
      features_(model, engine.tensor_parallel_size, cost_.flops_per_token,
                cost_.expert_flops_per_token, cost_.kv_dtype_bytes),
      tp_communication_(model, engine, fabric) {
  if (!ep_.enabled()) return;
  moe_layer_count_ = tally_layers(model.layers).moe;
  // Where the all-to-all's combine sums the experts, an MoE layer keeps only
  // its attention block's all-reduce.
  tp_allreduces_ = std::max(0, allreduces_per_forward(model, engine) - moe_layer_count_);
  // Refuses a dense model and a fabric that cannot join every pair now,
  // before a scheduler runs.
  (void)moe_layers(1);
}

const StepPricer::MoeLayers& StepPricer::moe_layers(TokenCount tokens) {
  return ep_cached(moe_, tokens, [&] {
    const int tp = engine_.tensor_parallel_size;
    const ParallelLayout layout = expert_parallel_layout(tp, ep_);
    const ExpertAllToAll a =
        expert_alltoall(model_, engine_, layout, ep_.alltoall, static_cast<double>(tokens));
    const ExpertAllToAllTime t = expert_alltoall_time(fabric_, a, tp, moe_layer_count_);
    MoeLayers m;
    // DeepEP's phases already carry the busiest rank's share; the experts'
    // GEMMs wait for it under either backend.
    const MoeSpec* moe = first_moe(model_.layers);
    m.imbalance =
        a.backend == AllToAllBackend::deepep_low_latency
            ? a.imbalance
            : ep_.alltoall.routing_imbalance.value_or(uniform_routing_imbalance(
                  moe->routed_experts, moe->experts_per_token, layout.ep, a.tokens_per_rank));
    m.alltoall = t.per_forward;
    m.dispatch_sent = a.dispatch_sent;
    m.combine_sent = a.combine_sent;
    m.tp_allgather_sent = a.tp_allgather_sent;
    m.dispatch = t.dispatch;
    m.combine = t.combine;
    m.tp_allgather = t.tp_allgather;
    const bool gathers = a.tp_allgather_sent.count() > 0.0;
    m.sent = (a.dispatch_sent + a.combine_sent + a.tp_allgather_sent) *
             static_cast<double>(moe_layer_count_);
    m.collectives = moe_layer_count_ * (gathers ? 3 : 2);
    return m;
  });
}

StepCommunication StepPricer::ep_communication(const ScheduledStep& step, const MoeLayers& moe,
                                               bool keep_each) {
  StepCommunication c;
  const int tp = engine_.tensor_parallel_size;
  const TokenCount tokens = step.tokens();
  if (tp >= 2 && tp_allreduces_ > 0) {
    const auto [sent, time] = ep_cached(allreduce_, tokens, [&] {
      const Bytes block = activation_block(model_, engine_, tokens);
      const FabricAllReduce one = fabric_allreduce(fabric_, block, tp, engine_.algorithm);
      return std::pair(block * allreduce_sent_factor(tp, engine_.algorithm), one.time);
    });
    c.time = time * static_cast<double>(tp_allreduces_);
    c.sent_per_node = sent * static_cast<double>(tp_allreduces_);
    c.collectives = tp_allreduces_;
    if (keep_each) c.each.assign(static_cast<std::size_t>(tp_allreduces_), {sent, time});
  }
  c.time = c.time + moe.alltoall;
  c.sent_per_node = c.sent_per_node + moe.sent;
  c.collectives += moe.collectives;
  if (keep_each) {
    for (int layer = 0; layer < moe_layer_count_; ++layer) {
      c.each.emplace_back(moe.dispatch_sent, moe.dispatch);
      c.each.emplace_back(moe.combine_sent, moe.combine);
      if (moe.tp_allgather_sent.count() > 0.0)
        c.each.emplace_back(moe.tp_allgather_sent, moe.tp_allgather);
    }
  }
  const TokenCount sampled = step.sampled_tokens();
  if (tp >= 2 && sampled > 0) {
    const auto [logits, gather] = ep_cached(gather_, sampled, [&] {
      const Bytes bytes = logits_gather_bytes(model_, engine_, tp, sampled);
      return std::pair(bytes, fabric_allgather(fabric_, bytes, tp));
    });
    c.time = c.time + gather;
    c.sent_per_node = c.sent_per_node + logits;
    ++c.collectives;
    if (keep_each) c.each.emplace_back(logits, gather);
  }
  return c;
}

PricedForward StepPricer::operator()(const ScheduledStep& step, bool keep_each) {
  PricedForward out;
  out.features = features_(step);
  if (!ep_.enabled()) {
    out.communication = tp_communication_(step, keep_each);
  } else {
    const MoeLayers& moe = moe_layers(step.tokens());
    // The busiest rank's expert copies bind the lockstep.
    const double extra = out.features.expert_gemm_flops * (moe.imbalance - 1.0);
    out.features.expert_gemm_flops += extra;
    out.features.gemm_flops += extra;
    out.communication = ep_communication(step, moe, keep_each);
    out.alltoall = moe.alltoall;
  }
  out.cost = price_step(cost_, out.features, out.communication);
  return out;
}

}  // namespace tpnet
