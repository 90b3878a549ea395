#include "tpnet/sim/step_cost.hpp"

#include <algorithm>

#include "tpnet/model/mixer_compute.hpp"
#include "tpnet/model/prefill_gemms.hpp"
#include "tpnet/sim/decode_floor.hpp"
#include "tpnet/sim/expert_parallel_step.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"

namespace tpnet {

Seconds DecodeComputeModel::weight_read(TokenCount tokens) const {
  const Bytes per_node =
      data_parallel > 1
          ? expert_parallel_weight_bytes(reads, tp, data_parallel, tokens, expert_concentration)
          : decode_weight_bytes(reads, tokens, expert_concentration) / static_cast<double>(tp);
  return Seconds(per_node.count() / memory_bandwidth.bytes_per_second());
}

double gemm_flops_per_token(const ModelArch& model, int tp) {
  // Every GEMM's FLOPs are linear in the tokens (routed experts by their
  // exact average rows), so one full chunk gives the rate per token.
  return total_flops(prefill_gemm_shapes(model, tp, kDefaultChunkTokens)) /
         static_cast<double>(kDefaultChunkTokens);
}

double expert_gemm_flops_per_token(const ModelArch& model, int tp) {
  return routed_expert_flops(prefill_gemm_shapes(model, tp, kDefaultChunkTokens)) /
         static_cast<double>(kDefaultChunkTokens);
}

StepFeatures StepFeaturesCache::operator()(const ScheduledStep& step) {
  StepFeatures f;
  f.tokens = step.tokens();
  f.gemm_flops = flops_per_token_ * static_cast<double>(f.tokens);
  f.expert_gemm_flops = expert_flops_per_token_ * static_cast<double>(f.tokens);
  f.has_prefill = std::any_of(step.work.begin(), step.work.end(),
                              [](const StepWork& w) { return w.prefill_tokens > 0; });
  // A step of decodes only costs its reads (compute_seconds): the weights
  // and each request's cache, its mixing FLOPs not priced.
  if (!f.has_prefill) {
    if (!kv_) kv_.emplace(model_, tp_, kv_dtype_bytes_);
    double read = 0.0;
    for (const StepWork& w : step.work) {
      if (w.decode_tokens > 0) read += kv_->at(w.context_tokens).count();
    }
    f.kv_read = Bytes(read);
    return f;
  }
  if (!mixer_) mixer_.emplace(model_, tp_);
  for (const StepWork& w : step.work) {
    if (w.prefill_tokens > 0) {
      f.mixer_flops += mixer_->prefill(w.context_tokens, w.prefill_tokens).total();
    } else if (w.decode_tokens > 0) {
      f.mixer_flops += mixer_->decode(w.context_tokens).total() * w.decode_tokens;
    }
  }
  return f;
}

StepFeatures step_features(const ModelArch& model, int tp, double flops_per_token,
                           const ScheduledStep& step) {
  return StepFeaturesCache(model, tp, flops_per_token)(step);
}

namespace {

/// Sizes a cache keeps at most: a run's steps repeat a few thousand; past
/// this (an unusual budget) the rest are priced each time.
constexpr std::size_t kMostCachedSizes = 1 << 16;

/// The cached value for `key`, or `price()` kept under it while there is room.
template <typename Price>
std::pair<Bytes, Seconds> cached(std::unordered_map<TokenCount, std::pair<Bytes, Seconds>>& cache,
                                 TokenCount key, const Price& price) {
  if (const auto found = cache.find(key); found != cache.end()) return found->second;
  const std::pair<Bytes, Seconds> value = price();
  if (cache.size() < kMostCachedSizes) cache.emplace(key, value);
  return value;
}

}  // namespace

StepCommunication StepCommunicationCache::operator()(const ScheduledStep& step, bool keep_each) {
  StepCommunication c;
  const int tp = engine_.tensor_parallel_size;
  if (tp < 2) return c;
  if (!allreduces_) allreduces_ = allreduces_per_forward(model_, engine_);
  const int allreduces = *allreduces_;
  const TokenCount tokens = step.tokens();
  const auto [sent, time] = cached(allreduce_, tokens, [&] {
    const Bytes block = activation_block(model_, engine_, tokens);
    const FabricAllReduce one = fabric_allreduce(fabric_, block, tp, engine_.algorithm);
    return std::pair(block * allreduce_sent_factor(tp, engine_.algorithm), one.time);
  });
  c.time = time * static_cast<double>(allreduces);
  c.sent_per_node = sent * static_cast<double>(allreduces);
  c.collectives = allreduces;
  if (keep_each) c.each.assign(static_cast<std::size_t>(allreduces), {sent, time});

  const TokenCount sampled = step.sampled_tokens();
  if (sampled > 0) {
    const auto [logits, gather] = cached(gather_, sampled, [&] {
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

StepCommunication step_communication(const ModelArch& model, const EngineConfig& engine,
                                     const FabricProfile& fabric, const ScheduledStep& step,
                                     bool keep_each) {
  return StepCommunicationCache(model, engine, fabric)(step, keep_each);
}

Seconds compute_seconds(const StepCostModel& cost, const StepFeatures& f) {
  if (!f.has_prefill) {
    const DecodeComputeModel& d = cost.decode;
    // A roofline: the reads at the achieved bandwidth, or the batch's GEMMs
    // at their achieved rate when a large batch makes them the longer.
    const Seconds reads = (d.weight_read(f.tokens) + f.kv_read / d.memory_bandwidth) / d.efficiency;
    return d.per_step + std::max(reads, Seconds(f.gemm_flops * d.seconds_per_flop));
  }
  const PrefillComputeModel& p = cost.prefill;
  const double expert_rate = p.seconds_per_expert_flop.value_or(p.seconds_per_gemm_flop);
  return p.per_step +
         Seconds((f.gemm_flops - f.expert_gemm_flops) * p.seconds_per_gemm_flop +
                 f.expert_gemm_flops * expert_rate + f.mixer_flops * p.seconds_per_mixer_flop);
}

StepCost price_step(const StepCostModel& cost, const StepFeatures& features,
                    const StepCommunication& comm) {
  StepCost s;
  s.compute = compute_seconds(cost, features);
  s.communication = comm.time * (1.0 - cost.overlap);
  s.total = s.compute + s.communication;
  return s;
}

}  // namespace tpnet
