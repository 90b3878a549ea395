#include "tpnet/analysis/weights.hpp"

#include <algorithm>

#include "tpnet/analysis/kv_cache.hpp"
#include "tpnet/model/params.hpp"

namespace tpnet {
namespace {

double d(long long value) { return static_cast<double>(value); }

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/// Parts of the weights vLLM does not split over TP (docs/formulas.md s.12.1),
/// whole-model parameters and what one rank of TP `tp` holds of them.
std::vector<ReplicatedPart> replicated_parts(const ModelArch& m, const ParamEstimate& estimate,
                                             int tp) {
  std::vector<ReplicatedPart> parts;
  const double h = d(m.hidden_size);
  const double attention_layers = layer_counts(m).attention();
  if (estimate.total.router > 0.0) {
    // ReplicatedLinear gates: every rank scores every expert.
    parts.push_back({"router", estimate.total.router, estimate.total.router, Bytes(0.0)});
  }
  if (m.mla) {
    // q_a_proj and kv_a_proj_with_mqa are ReplicatedLinear in vLLM's MLA.
    const MlaSpec& a = *m.mla;
    const double params =
        attention_layers * h * (a.q_lora_rank + a.kv_lora_rank + a.qk_rope_head_dim);
    if (params > 0.0) parts.push_back({"mla_down_projections", params, params, Bytes(0.0)});
  }
  if (m.sparse_attention_index_heads > 0 && m.sparse_attention_index_head_dim > 0) {
    // The DSA indexer (wq_b, wk, weights_proj) is replicated whole.
    const double q_in = m.mla && m.mla->q_lora_rank > 0 ? m.mla->q_lora_rank : h;
    const double heads = m.sparse_attention_index_heads;
    const double dim = m.sparse_attention_index_head_dim;
    const double params = attention_layers * (q_in * heads * dim + h * dim + h * heads);
    parts.push_back({"sparse_indexer", params, params, Bytes(0.0)});
  }
  const int kv = m.num_kv_heads > 0 ? m.num_kv_heads : m.num_attention_heads;
  if (!m.mla && kv > 0 && tp > kv) {
    // Fewer KV heads than ranks: each rank holds whole K and V heads.
    const double per_head = attention_layers * 2.0 * h * d(effective_head_dim(m));
    const double params = per_head * kv;
    const double node = per_head * d(ceil_div(kv, tp));
    if (params > 0.0) parts.push_back({"kv_heads", params, node, Bytes(0.0)});
  }
  return parts;
}

}  // namespace

WeightMemory weight_memory(const ModelArch& m, const ParallelLayout& layout) {
  const ParamEstimate estimate = estimate_params(m);
  WeightMemory w;
  w.total_params = m.total_params;
  w.replicated = replicated_parts(m, estimate, layout.tp);
  const double bytes_per_param = m.bits_per_weight / 8.0;
  const double pp = std::max(1, layout.pp);
  double replicated = 0.0;
  double node = 0.0;
  for (auto& part : w.replicated) {
    // A stage holds its own layers' share of every per-layer part.
    part.node_params /= pp;
    part.node_bytes = Bytes(part.node_params * bytes_per_param);
    replicated += part.params;
    node += part.node_params;
  }
  const double split = std::max(0.0, m.total_params - replicated);
  const double dense_ranks = layout.tp * pp;
  double per_rank = split / dense_ranks;
  if (layout.ep > 1 && m.moe && estimate.complete() && estimate.total_params() > 0.0) {
    // Experts spread over ep x pp ranks while attention and the dense parts
    // split over each data-parallel group's tp x pp. The experts' share comes
    // from the architecture, applied to the stated total.
    w.routed_expert_share = estimate.total.routed_experts / estimate.total_params();
    const double experts = std::min(split, m.total_params * w.routed_expert_share);
    per_rank = (split - experts) / dense_ranks + experts / (layout.ep * pp);
  }
  w.split = Bytes(per_rank * bytes_per_param);
  w.replicated_bytes = Bytes(node * bytes_per_param);
  return w;
}

}  // namespace tpnet
