#include "tpnet/model/params.hpp"

#include <algorithm>

#include "tpnet/base/count_math.hpp"
#include "tpnet/model/compressed_attention.hpp"
#include "tpnet/model/layer_plan.hpp"

namespace tpnet {

double ParamParts::of(WeightPart part) const {
  switch (part) {
    case WeightPart::embedding:
      return embedding;
    case WeightPart::lm_head:
      return lm_head;
    case WeightPart::attention:
      return attention;
    case WeightPart::dense_ffn:
      return dense_ffn;
    case WeightPart::routed_experts:
      return routed_experts;
    case WeightPart::shared_experts:
      return shared_experts;
    case WeightPart::router:
      return router;
  }
  return 0.0;
}
namespace {

/// One FFN: gate and up h -> width, down width -> h when gated (SwiGLU);
/// up and down only when not (Nemotron-H's squared ReLU).
double ffn(const ModelArch& m, long long hidden, long long width) {
  return (m.gated_ffn ? 3.0 : 2.0) * to_real(hidden) * to_real(width);
}

}  // namespace

double full_attention_params(const ModelArch& m) {
  const double h = to_real(m.hidden_size);
  const double heads = m.num_attention_heads;
  double params = 0.0;
  if (m.mla) {
    // q: h -> q_lora -> heads x (nope + rope), or h -> heads x (nope + rope) directly;
    // kv: h -> kv_lora + rope (the shared rope key), kv_lora -> heads x (nope + v); o: heads x v ->
    // h.
    const MlaSpec& a = *m.mla;
    const double qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
    params += a.q_lora_rank > 0 ? h * a.q_lora_rank + double(a.q_lora_rank) * heads * qk_head
                                : h * heads * qk_head;
    params += h * (a.kv_lora_rank + a.qk_rope_head_dim) +
              double(a.kv_lora_rank) * heads * (a.qk_nope_head_dim + a.v_head_dim);
    params += heads * a.v_head_dim * h;
  } else if (m.attention != AttentionKind::mla) {
    // q and o: h x heads x head_dim each; k and v: h x kv_heads x head_dim each.
    const double head_dim = to_real(effective_head_dim(m));
    const double kv_heads = m.num_kv_heads > 0 ? m.num_kv_heads : heads;
    params += h * head_dim * (2.0 * heads + 2.0 * kv_heads);
  }
  if (m.sparse_attention_index_heads > 0) {
    // DSA lightning indexer: queries from the q latent (or h), one shared key, per-head weights.
    const double q_in = m.mla && m.mla->q_lora_rank > 0 ? m.mla->q_lora_rank : h;
    const double index_heads = m.sparse_attention_index_heads;
    const double index_dim = m.sparse_attention_index_head_dim;
    params += q_in * index_heads * index_dim + h * index_dim + h * index_heads;
  }
  return params;
}

double linear_attention_params(const ModelArch& m) {
  if (!m.linear_attention) return 0.0;
  const LinearAttentionSpec& s = *m.linear_attention;
  const double h = to_real(m.hidden_size);
  const double key_dim = double(s.key_heads) * s.key_head_dim;
  const double value_dim = double(s.value_heads) * s.value_head_dim;
  if (s.gate_rank > 0) {
    // Kimi Delta Attention: q, k and v projections; the per-head beta; the
    // decay gate f and the output gate g, each h -> rank -> value_dim; the
    // short convolution over q, k and v; o_proj back to h.
    const double rank = s.gate_rank;
    return h * (2.0 * key_dim + value_dim) + h * s.value_heads +
           2.0 * (h * rank + rank * value_dim) + (2.0 * key_dim + value_dim) * s.conv_kernel +
           value_dim * h;
  }
  // in_proj q, k, v and the output gate z; in_proj for the per-head beta and
  // alpha; the short convolution over q, k and v; out_proj back to h.
  return h * (2.0 * key_dim + 2.0 * value_dim) + h * 2.0 * s.value_heads +
         (2.0 * key_dim + value_dim) * s.conv_kernel + value_dim * h;
}

double mamba_params(const ModelArch& m) {
  if (!m.mamba) return 0.0;
  const MambaSpec& s = *m.mamba;
  const double h = to_real(m.hidden_size);
  const double inner = double(s.heads) * s.head_dim;
  const double bc = 2.0 * s.groups * s.state_size;
  // in_proj h -> (z, x, B, C, dt); the causal convolution over x, B and C
  // (with its bias); A, D and the dt bias per head; the gated norm over
  // d_inner; out_proj d_inner -> h.
  return h * (2.0 * inner + bc + s.heads) + (inner + bc) * (s.conv_kernel + 1) + 3.0 * s.heads +
         inner + inner * h;
}

ParamEstimate estimate_params(const ModelArch& m) {
  ParamEstimate e;
  const double h = to_real(m.hidden_size);
  const LayerTally layers = tally_layers(m);
  const int linear_layers = layers.linear;
  // A cross-attention layer has self-attention's projections; its K and V
  // read the image tokens.
  const int full_layers = layers.attention + layers.sliding + layers.cross;
  const int dense_layers = layers.dense;
  const int moe_layers = m.moe ? layers.moe : 0;

  if (!m.mla && m.attention == AttentionKind::mla) e.missing.emplace_back("mla");
  if (linear_layers > 0 && !m.linear_attention) e.missing.emplace_back("linear_attention");
  if (layers.mamba > 0 && !m.mamba) e.missing.emplace_back("mamba");
  const auto widths = dense_widths(m);
  if (dense_layers > 0 &&
      std::any_of(widths.begin(), widths.end(), [](const auto& w) { return w.first <= 0; })) {
    e.missing.emplace_back("intermediate_size");
  }
  if (moe_layers > 0 && m.moe->expert_intermediate_size <= 0) {
    e.missing.emplace_back("moe.expert_intermediate_size");
  }

  const double vocab_table = to_real(m.vocab_size) * h;
  e.total.embedding = vocab_table;
  e.total.lm_head = m.tie_word_embeddings ? 0.0 : vocab_table;
  e.active.lm_head = vocab_table;  // every token's logits read the whole head, tied or not

  double attention_layer = full_attention_params(m);
  e.total.attention = full_layers * attention_layer + linear_layers * linear_attention_params(m) +
                      layers.mamba * mamba_params(m);
  if (m.compressed_attention) {
    // DeepSeek-V4: each layer's attention by its compress ratio, and the
    // hyper-connections (counted with the mixers: every token reads them).
    e.total.attention = hyper_connection_params(m);
    for (const int ratio : m.compressed_attention->compress_ratios) {
      e.total.attention += compressed_attention_params(m, ratio).total();
    }
    // vLLM's MTP layer attends without compression (compress_ratio 1, no indexer).
    attention_layer = compressed_attention_params(m, 1).total();
  }
  e.active.attention = e.total.attention;

  const double dense_ffn = ffn(m, m.hidden_size, m.intermediate_size);
  for (const auto& [width, count] : dense_widths(m)) {
    e.total.dense_ffn += count * ffn(m, m.hidden_size, width);
  }
  e.active.dense_ffn = e.total.dense_ffn;

  double routed_layer = 0.0;
  double routed_active_layer = 0.0;
  double shared_layer = 0.0;
  double router_layer = 0.0;
  if (m.moe) {
    const MoeSpec& moe = *m.moe;
    // Latent MoE: the routed experts work in latent_size, behind one down and
    // one up projection (counted with them: every token passes through both).
    const long long expert_in = moe.latent_size > 0 ? moe.latent_size : m.hidden_size;
    const double latent_projections =
        moe.latent_size > 0 ? 2.0 * h * to_real(moe.latent_size) : 0.0;
    const double expert = ffn(m, expert_in, moe.expert_intermediate_size);
    const long long shared_width = moe.shared_expert_intermediate_size > 0
                                       ? moe.shared_expert_intermediate_size
                                       : moe.expert_intermediate_size;
    routed_layer = moe.routed_experts * expert + latent_projections;
    routed_active_layer = moe.experts_per_token * expert + latent_projections;
    shared_layer = moe.shared_experts * ffn(m, m.hidden_size, shared_width);
    router_layer = h * moe.routed_experts;
  }
  e.total.routed_experts = moe_layers * routed_layer;
  e.active.routed_experts = moe_layers * routed_active_layer;
  e.total.shared_experts = e.active.shared_experts = moe_layers * shared_layer;
  e.total.router = e.active.router = moe_layers * router_layer;

  // An MTP layer: a full-attention decoder layer (MoE when the model is) and
  // eh_proj, 2h -> h, joining the hidden state with the next token's embedding.
  const double eh_proj = 2.0 * h * h;
  const double mtp_ffn = m.moe ? routed_layer + shared_layer + router_layer : dense_ffn;
  const double mtp_ffn_active =
      m.moe ? routed_active_layer + shared_layer + router_layer : dense_ffn;
  const int mtp_layers = std::max(0, m.mtp_layers);
  e.mtp = mtp_layers * (attention_layer + mtp_ffn + eh_proj);
  e.mtp_active = mtp_layers * (attention_layer + mtp_ffn_active + eh_proj);
  return e;
}

}  // namespace tpnet
