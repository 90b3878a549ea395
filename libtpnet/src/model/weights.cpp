#include "tpnet/model/weights.hpp"

#include <cmath>

#include <algorithm>
#include <map>

#include "tpnet/base/count_math.hpp"
#include "tpnet/model/compressed_attention.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/model/params.hpp"

namespace tpnet {
namespace {

/// Parts of the weights vLLM does not split over TP (docs/formulas.md s.12.1),
/// whole-model parameters and what one rank of TP `tp` holds of them.
std::vector<ReplicatedPart> replicated_parts(const ModelArch& m, const ParamEstimate& estimate,
                                             int tp) {
  std::vector<ReplicatedPart> parts;
  const double h = to_real(m.hidden_size);
  if (estimate.total.router > 0.0) {
    // ReplicatedLinear gates: every rank scores every expert.
    parts.push_back(
        {"router", WeightPart::router, estimate.total.router, estimate.total.router, Bytes(0.0)});
  }
  double compressed = 0.0;
  double mla_down = 0.0;
  double indexer = 0.0;
  double kv_heads = 0.0;
  double kv_heads_node = 0.0;
  for (const LayerRun& run : m.layers.runs()) {
    if (!is_attention(run.layer.mixer.kind)) continue;
    const AttentionSpec& a = run.layer.mixer.attention;
    const double n = run.count;
    if (a.compressed) {
      // DeepSeek-V4: the fused wq_a + wkv, the compressors and the indexers.
      compressed += n * compressed_attention_params(m.hidden_size, a).replicated;
      continue;
    }
    if (a.latent) {
      // q_a_proj and kv_a_proj_with_mqa are ReplicatedLinear in vLLM's MLA.
      mla_down += n * h * (a.mla.q_lora_rank + a.mla.kv_lora_rank + a.mla.qk_rope_head_dim);
    } else if (a.kv_heads > 0 && tp > a.kv_heads && !a.borrowed_kv) {
      // Fewer KV heads than ranks: each rank holds whole K and V heads.
      const double per_head = n * h * (a.head_dim + (a.shared_kv ? 0 : a.v_head_dim));
      kv_heads += per_head * a.kv_heads;
      kv_heads_node += per_head * to_real(ceil_div(a.kv_heads, tp));
    }
    if (a.indexer.scores()) {
      // The DSA indexer (wq_b, wk, weights_proj) is replicated whole.
      const double q_in = a.latent && a.mla.q_lora_rank > 0 ? a.mla.q_lora_rank : h;
      const double heads = a.indexer.heads;
      const double dim = a.indexer.head_dim;
      indexer += n * (q_in * heads * dim + h * dim + h * heads);
    }
  }
  if (const double latent = estimate.total.latent_projections; latent > 0.0) {
    // Latent MoE (Nemotron 3 Super/Ultra, Kimi K3): the projections into and
    // out of the experts' width are ReplicatedLinear in vLLM.
    parts.push_back(
        {"latent_projections", WeightPart::latent_projections, latent, latent, Bytes(0.0)});
  }
  if (compressed > 0.0) {
    parts.push_back(
        {"compressed_attention_inputs", WeightPart::attention, compressed, compressed, Bytes(0.0)});
  }
  // The hyper-connections are plain FP32 parameters every rank holds.
  if (const double hc = hyper_connection_params(m); hc > 0.0) {
    parts.push_back({"hyper_connections", WeightPart::attention, hc, hc, Bytes(0.0)});
  }
  if (mla_down > 0.0) {
    parts.push_back(
        {"mla_down_projections", WeightPart::attention, mla_down, mla_down, Bytes(0.0)});
  }
  if (indexer > 0.0) {
    parts.push_back({"sparse_indexer", WeightPart::attention, indexer, indexer, Bytes(0.0)});
  }
  if (kv_heads > 0.0) {
    parts.push_back({"kv_heads", WeightPart::attention, kv_heads, kv_heads_node, Bytes(0.0)});
  }
  return parts;
}

/// A stated total within 0.5% of the estimate with its MTP layers counts them.
constexpr double kMtpStatedShare = 0.995;

/// The stated total spread over the parts as the estimate places them; empty
/// when the estimate cannot place them.
std::map<WeightPart, double> stated_parts(const ModelArch& m, const ParamEstimate& estimate) {
  std::map<WeightPart, double> parts;
  if (!estimate.complete() || !(estimate.total_params() > 0.0)) return parts;
  const double scale = m.total_params / estimate.total_params();
  for (const WeightPart part : kWeightParts) parts[part] = estimate.total.of(part) * scale;
  return parts;
}

/// The MTP layers' weights one rank holds when drafting loads them: their
/// estimated parameters split over TP like the layers they copy, at the bits
/// the checkpoint stores them in (its mean bits per weight unless it leaves
/// them unquantized). 0 when the model has none, or when its stated total
/// already holds them (at least the estimate with MTP: glm-5.3's 753B is
/// 743.6B + 10.0B of MTP).
Bytes mtp_weights_per_rank(const ModelArch& m, const ParamEstimate& estimate, int tp) {
  if (!(estimate.mtp > 0.0) || !estimate.complete()) return Bytes(0.0);
  if (m.total_params >= estimate.total_with_mtp() * kMtpStatedShare) return Bytes(0.0);
  const double bits =
      m.mtp_bits_per_weight > 0.0 ? m.mtp_bits_per_weight : effective_bits_per_weight(m);
  return Bytes(estimate.mtp * bits / 8.0 / std::max(1, tp));
}

}  // namespace

WeightMemory weight_memory(const ModelArch& m, const ParallelLayout& layout, bool with_mtp) {
  const ParamEstimate estimate = estimate_params(m);
  WeightMemory w;
  if (with_mtp) w.mtp = mtp_weights_per_rank(m, estimate, layout.tp);
  w.total_params = m.total_params;
  w.replicated = replicated_parts(m, estimate, layout.tp);
  const double pp = std::max(1, layout.pp);
  const double dense_ranks = layout.tp * pp;
  std::map<WeightPart, double> split_params = stated_parts(m, estimate);
  // Parts priced one by one only when their bits differ: the uniform sum is
  // exact, the per-part one rounds in the estimate's scaling.
  const bool by_part = !split_params.empty() && !m.part_bits.empty();
  double replicated_params = 0.0;
  double replicated_bytes = 0.0;
  for (auto& part : w.replicated) {
    // A stage holds its own layers' share of every per-layer part.
    part.node_params /= pp;
    part.node_bytes = Bytes(part.node_params * m.bits_of(part.part) / 8.0);
    replicated_params += part.params;
    replicated_bytes += part.node_bytes.count();
    if (!split_params.empty()) {
      split_params[part.part] = std::max(0.0, split_params[part.part] - part.params);
    }
  }
  w.replicated_bytes = Bytes(replicated_bytes);
  const bool expert_parallel = layout.ep > 1 && first_moe(m.layers) != nullptr &&
                               estimate.complete() && estimate.total_params() > 0.0;
  if (expert_parallel) {
    w.routed_expert_share = estimate.total.routed_experts / estimate.total_params();
  }
  if (!by_part) {
    // Every weight at bits_per_weight: experts over ep x pp, the rest over tp x pp.
    const double split = std::max(0.0, m.total_params - replicated_params);
    double per_rank = split / dense_ranks;
    if (expert_parallel) {
      const double experts = std::min(split, m.total_params * w.routed_expert_share);
      per_rank = (split - experts) / dense_ranks + experts / (layout.ep * pp);
    }
    w.split = Bytes(per_rank * m.bits_per_weight / 8.0);
    for (const auto& [part, params] : split_params) {
      const double ranks =
          expert_parallel && part == WeightPart::routed_experts ? layout.ep * pp : dense_ranks;
      const Bytes bytes(params * m.bits_per_weight / 8.0);
      w.model_bytes_by_part.emplace_back(part, bytes);
      w.node_bytes_by_part.emplace_back(part, bytes / ranks);
    }
  } else {
    double split_bytes = 0.0;
    for (const auto& [part, params] : split_params) {
      // Experts spread over ep x pp ranks while attention and the dense parts
      // split over each data-parallel group's tp x pp.
      const double ranks =
          expert_parallel && part == WeightPart::routed_experts ? layout.ep * pp : dense_ranks;
      const double bytes = params * m.bits_of(part) / 8.0;
      split_bytes += bytes / ranks;
      w.model_bytes_by_part.emplace_back(part, Bytes(bytes));
      w.node_bytes_by_part.emplace_back(part, Bytes(bytes / ranks));
    }
    w.split = Bytes(split_bytes);
  }
  for (const auto& r : w.replicated) {
    for (auto& [part, bytes] : w.model_bytes_by_part) {
      if (part == r.part) bytes += Bytes(r.params * m.bits_of(r.part) / 8.0);
    }
    for (auto& [part, bytes] : w.node_bytes_by_part) {
      if (part == r.part) bytes += r.node_bytes;
    }
  }
  return w;
}

double effective_bits_per_weight(const ModelArch& m) {
  if (m.part_bits.empty()) return m.bits_per_weight;
  const ParamEstimate estimate = estimate_params(m);
  if (!estimate.complete() || !(estimate.total_params() > 0.0)) return m.bits_per_weight;
  double bits = 0.0;
  for (const WeightPart part : kWeightParts) bits += estimate.total.of(part) * m.bits_of(part);
  return bits / estimate.total_params();
}

Bytes active_weight_bytes(const ModelArch& m) {
  if (m.part_bits.empty()) return Bytes(m.active_params * m.bits_per_weight / 8.0);
  const ParamEstimate estimate = estimate_params(m);
  if (!estimate.complete() || !(estimate.active_params() > 0.0)) {
    return Bytes(m.active_params * m.bits_per_weight / 8.0);
  }
  double bits = 0.0;
  for (const WeightPart part : kWeightParts) bits += estimate.active.of(part) * m.bits_of(part);
  return Bytes(m.active_params * bits / estimate.active_params() / 8.0);
}

DecodeWeightReads decode_weight_reads(const ModelArch& m) {
  DecodeWeightReads r;
  r.active = active_weight_bytes(m);
  const MoeSpec* moe = first_moe(m.layers);
  if (moe == nullptr || moe->routed_experts <= 0 || moe->experts_per_token <= 0) return r;
  const ParamEstimate estimate = estimate_params(m);
  if (!estimate.complete() || !(estimate.active_params() > 0.0)) return r;
  double bits = 0.0;
  for (const WeightPart part : kWeightParts) bits += estimate.active.of(part) * m.bits_of(part);
  if (!(bits > 0.0)) return r;
  const double routed_bits = estimate.active.routed_experts * m.bits_of(WeightPart::routed_experts);
  r.routed = r.active * (routed_bits / bits);
  r.experts = moe->routed_experts;
  r.experts_per_token = std::min(moe->experts_per_token, moe->routed_experts);
  return r;
}

Bytes decode_weight_bytes(const DecodeWeightReads& r, TokenCount tokens, double concentration) {
  if (r.experts <= 0 || tokens <= 1) return r.active;
  const double e = r.experts;
  const double k = r.experts_per_token;
  const double routed_as = std::pow(static_cast<double>(tokens), concentration);
  const double touched = e * (1.0 - std::pow(1.0 - k / e, routed_as));
  return r.active + r.routed * (touched / k - 1.0);
}

}  // namespace tpnet
