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
    case WeightPart::latent_projections:
      return latent_projections;
  }
  return 0.0;
}
namespace {

/// One FFN: gate and up h -> width, down width -> h when gated (SwiGLU);
/// up and down only when not (Nemotron-H's squared ReLU).
double ffn_matrices(bool gated, long long hidden, long long width) {
  return (gated ? 3.0 : 2.0) * to_real(hidden) * to_real(width);
}

/// Softmax attention of any span: GQA/MHA (with an output gate, K = V),
/// MLA, the DSA indexer; DeepSeek-V4's compressed attention.
double attention_params(long long hidden, const AttentionSpec& a) {
  const double h = to_real(hidden);
  const double heads = a.q_heads;
  if (a.compressed) return compressed_attention_params(hidden, a).total();
  double params = 0.0;
  if (a.latent) {
    if (!a.mla.stated()) return 0.0;
    // q: h -> q_lora -> heads x (nope + rope), or h -> heads x (nope + rope) directly;
    // kv: h -> kv_lora + rope (the shared rope key), kv_lora -> heads x (nope + v);
    // o: heads x v -> h.
    const MlaSpec& m = a.mla;
    const double qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim;
    params += m.q_lora_rank > 0 ? h * m.q_lora_rank + double(m.q_lora_rank) * heads * qk_head
                                : h * heads * qk_head;
    params += h * (m.kv_lora_rank + m.qk_rope_head_dim) +
              double(m.kv_lora_rank) * heads * (m.qk_nope_head_dim + m.v_head_dim);
    params += heads * m.v_head_dim * h;
    // An output gate (Kimi K3's mla_use_output_gate): g_proj, h -> heads x v.
    if (a.output_gate) params += h * heads * m.v_head_dim;
  } else {
    // q (twice as wide with an output gate), k, v (none when K is V), o.
    const double q = heads * a.head_dim * (a.output_gate ? 2.0 : 1.0);
    const double kv =
        a.borrowed_kv ? 0.0 : double(a.kv_heads) * (a.head_dim + (a.shared_kv ? 0 : a.v_head_dim));
    params += h * (q + kv) + heads * a.v_head_dim * h;
  }
  if (a.indexer.scores()) {
    // DSA lightning indexer: queries from the q latent (or h), one shared key, per-head weights.
    const double q_in = a.latent && a.mla.q_lora_rank > 0 ? a.mla.q_lora_rank : h;
    const double index_heads = a.indexer.heads;
    const double index_dim = a.indexer.head_dim;
    params += q_in * index_heads * index_dim + h * index_dim + h * index_heads;
  }
  return params;
}

double linear_attention_params(long long hidden, const LinearAttentionSpec& s) {
  if (!s.stated()) return 0.0;
  const double h = to_real(hidden);
  const double key_dim = double(s.key_heads) * s.key_head_dim;
  const double value_dim = double(s.value_heads) * s.value_head_dim;
  switch (s.kind) {
    case LinearKind::kimi_delta: {
      // q, k and v projections; the per-head beta; the decay gate f,
      // h -> rank -> value_dim; the output gate g, the same or one
      // h -> value_dim projection when full rank; the short convolution over
      // q, k and v; o_proj back to h.
      const double low_rank_gate = h * s.gate_rank + double(s.gate_rank) * value_dim;
      const double output_gate = s.full_rank_output_gate ? h * value_dim : low_rank_gate;
      return h * (2.0 * key_dim + value_dim) + h * s.value_heads + low_rank_gate + output_gate +
             (2.0 * key_dim + value_dim) * s.conv_kernel + value_dim * h;
    }
    case LinearKind::lightning:
      // MiniMax's lightning attention: qkv h -> 3 heads x dim, the output
      // gate h -> heads x dim, out_proj back to h.
      return h * (2.0 * key_dim + value_dim) + h * value_dim + value_dim * h;
    case LinearKind::gated_deltanet:
      break;
  }
  // in_proj q, k, v and the output gate z; in_proj for the per-head beta and
  // alpha; the short convolution over q, k and v; out_proj back to h.
  return h * (2.0 * key_dim + 2.0 * value_dim) + h * 2.0 * s.value_heads +
         (2.0 * key_dim + value_dim) * s.conv_kernel + value_dim * h;
}

}  // namespace

double mamba_params(long long hidden, const MambaSpec& s) {
  if (!s.stated()) return 0.0;
  const double h = to_real(hidden);
  const double inner = double(s.heads) * s.head_dim;
  const double bc = 2.0 * s.groups * s.state_size;
  // in_proj h -> (z, x, B, C, dt); the causal convolution over x, B and C
  // (with its bias); A, D and the dt bias per head; the gated norm over
  // d_inner; out_proj d_inner -> h.
  return h * (2.0 * inner + bc + s.heads) + (inner + bc) * (s.conv_kernel + 1) + 3.0 * s.heads +
         inner + inner * h;
}

double mixer_params(long long hidden, const MixerSpec& mixer) {
  switch (mixer.kind) {
    case Mixer::attention:
    case Mixer::sliding_window:
    case Mixer::chunked_attention:
    case Mixer::cross_attention:
      // A cross-attention layer has self-attention's projections; its K and
      // V read the image tokens.
      return attention_params(hidden, mixer.attention);
    case Mixer::linear_attention:
      return linear_attention_params(hidden, mixer.linear);
    case Mixer::mamba:
      return mamba_params(hidden, mixer.mamba);
    case Mixer::none:
      return 0.0;
  }
  return 0.0;
}

FfnParams ffn_params(long long hidden, const FfnSpec& ffn) {
  FfnParams p;
  if (ffn.kind == FfnKind::dense) {
    p.dense = ffn_matrices(ffn.gated, hidden, ffn.width);
  } else if (ffn.kind == FfnKind::moe) {
    const MoeSpec& moe = ffn.moe;
    const double h = to_real(hidden);
    // Latent MoE: the routed experts work in latent_size, behind one down and
    // one up projection that every token passes through.
    const long long expert_in = moe.latent_size > 0 ? moe.latent_size : hidden;
    p.latent = moe.latent_size > 0 ? 2.0 * h * to_real(moe.latent_size) : 0.0;
    const double expert = ffn_matrices(ffn.gated, expert_in, moe.expert_intermediate_size);
    p.routed = moe.routed_experts * expert;
    p.routed_active = std::min(moe.experts_per_token, moe.routed_experts) * expert;
    p.shared = moe.shared_experts * ffn_matrices(ffn.gated, hidden, moe.shared_width());
    p.router = h * moe.routed_experts;
  }
  return p;
}

ParamEstimate estimate_params(const ModelArch& m) {
  ParamEstimate e;
  const double h = to_real(m.hidden_size);
  e.missing = missing_shapes(m.layers);

  const double vocab_table = to_real(m.vocab_size) * h;
  e.total.embedding = vocab_table;
  e.total.lm_head = m.tie_word_embeddings ? 0.0 : vocab_table;
  e.active.lm_head = vocab_table;  // every token's logits read the whole head, tied or not

  for (const LayerRun& run : m.layers.runs()) {
    const double n = run.count;
    e.total.attention += n * mixer_params(m.hidden_size, run.layer.mixer);
    const FfnParams f = ffn_params(m.hidden_size, run.layer.ffn);
    e.total.dense_ffn += n * f.dense;
    e.total.routed_experts += n * f.routed;
    e.active.routed_experts += n * f.routed_active;
    e.total.shared_experts += n * f.shared;
    e.total.router += n * f.router;
    e.total.latent_projections += n * f.latent;
  }
  if (m.per_layer_input_width > 0) {
    // Gemma 4's per-layer inputs: the table with the embedding (a token reads
    // one row of it), the model projection hidden -> layers x width and each
    // layer's gate and projection with the dense FFNs, whose residual they join.
    const double width = to_real(m.per_layer_input_width) * m.num_layers();
    e.total.embedding += to_real(m.per_layer_input_vocab) * width;
    e.total.dense_ffn += h * width + 2.0 * h * width;
  }
  // DeepSeek-V4's hyper-connections, counted with the mixers: every token reads them.
  e.total.attention += hyper_connection_params(m);
  e.active.attention = e.total.attention;
  e.active.dense_ffn = e.total.dense_ffn;
  e.active.shared_experts = e.total.shared_experts;
  e.active.router = e.total.router;
  e.active.latent_projections = e.total.latent_projections;

  // An MTP layer: a full-attention decoder layer with the model's last FFN,
  // and eh_proj, 2h -> h, joining the hidden state with the next token's embedding.
  if (m.mtp_layers > 0 && !m.layers.empty()) {
    const LayerSpec layer = mtp_layer(m.layers);
    const double attention = mixer_params(m.hidden_size, layer.mixer);
    const FfnParams f = ffn_params(m.hidden_size, layer.ffn);
    const double eh_proj = 2.0 * h * h;
    const double fixed = attention + f.dense + f.shared + f.router + f.latent + eh_proj;
    e.mtp = m.mtp_layers * (fixed + f.routed);
    e.mtp_active = m.mtp_layers * (fixed + f.routed_active);
  }
  return e;
}

}  // namespace tpnet
