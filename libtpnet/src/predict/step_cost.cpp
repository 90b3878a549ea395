#include "tpnet/predict/step_cost.hpp"

#include <algorithm>

#include "tpnet/analysis/bytes_per_token.hpp"
#include "tpnet/analysis/decode.hpp"
#include "tpnet/model/mixer_compute.hpp"
#include "tpnet/model/prefill_gemms.hpp"

namespace tpnet {

Seconds DecodeComputeModel::weight_read(TokenCount tokens) const {
  const Bytes per_node = decode_weight_bytes(reads, tokens) / static_cast<double>(tp);
  return Seconds(per_node.count() / memory_bandwidth.bytes_per_second());
}

double gemm_flops_per_token(const ModelArch& model, int tp) {
  // Every GEMM's FLOPs are linear in the tokens (routed experts by their
  // exact average rows), so one full chunk gives the rate per token.
  constexpr TokenCount kChunk = 4096;
  return total_flops(prefill_gemm_shapes(model, tp, kChunk)) / static_cast<double>(kChunk);
}

StepFeatures step_features(const ModelArch& model, int tp, double flops_per_token,
                           const ScheduledStep& step) {
  StepFeatures f;
  f.tokens = step.tokens();
  f.gemm_flops = flops_per_token * static_cast<double>(f.tokens);
  f.has_prefill = std::any_of(step.work.begin(), step.work.end(),
                              [](const StepWork& w) { return w.prefill_tokens > 0; });
  // A step of decodes only costs its weight reads (compute_seconds): its
  // mixing is not priced, so not counted.
  if (!f.has_prefill) return f;
  for (const StepWork& w : step.work) {
    if (w.prefill_tokens > 0) {
      f.mixer_flops += prefill_mixer_flops(model, tp, w.context_tokens, w.prefill_tokens).total();
    } else if (w.decode_tokens > 0) {
      f.mixer_flops += decode_mixer_flops(model, tp, w.context_tokens).total() * w.decode_tokens;
    }
  }
  return f;
}

StepCommunication step_communication(const ModelArch& model, const EngineConfig& engine,
                                     const FabricProfile& fabric, const ScheduledStep& step,
                                     bool keep_each) {
  StepCommunication c;
  const int tp = engine.tensor_parallel_size;
  if (tp < 2) return c;
  const int allreduces = allreduces_per_forward(model, engine);
  const Bytes block = activation_block(model, engine, step.tokens());
  const FabricAllReduce one = fabric_allreduce(fabric, block, tp, engine.algorithm);
  const Bytes sent = block * allreduce_sent_factor(tp, engine.algorithm);
  c.time = one.time * static_cast<double>(allreduces);
  c.sent_per_node = sent * static_cast<double>(allreduces);
  c.collectives = allreduces;
  if (keep_each) c.each.assign(static_cast<std::size_t>(allreduces), {sent, one.time});

  TokenCount sampled = 0;
  for (const StepWork& w : step.work) {
    sampled += w.decode_tokens + (w.completes_prompt ? 1 : 0);
  }
  if (sampled > 0) {
    const Bytes logits = logits_gather_bytes(model, engine, tp, sampled);
    const Seconds gather = fabric_allgather(fabric, logits, tp);
    c.time = c.time + gather;
    c.sent_per_node = c.sent_per_node + logits;
    ++c.collectives;
    if (keep_each) c.each.emplace_back(logits, gather);
  }
  return c;
}

Seconds compute_seconds(const StepCostModel& cost, const StepFeatures& f) {
  if (!f.has_prefill) return cost.decode.weight_read(f.tokens) / cost.decode.efficiency;
  return cost.prefill.per_step + Seconds(f.gemm_flops * cost.prefill.seconds_per_gemm_flop +
                                         f.mixer_flops * cost.prefill.seconds_per_mixer_flop);
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
