#pragma once
/// One layer of a model with its own shapes: what mixes its tokens (a kind of
/// attention, a linear or recurrent mixer, or none) and what follows it (a
/// dense FFN, a mixture of experts, or none). A model is a list of these
/// (tpnet/model/layer_plan.hpp); every count tpnet derives from a model's
/// layers reads them (docs/models.md, "The layer plan").

#include <string_view>

namespace tpnet {

/// What mixes tokens in one layer.
enum class Mixer {
  attention,          ///< softmax attention over every earlier token: MHA, GQA, MLA, sparse top-k
  sliding_window,     ///< attention over the last `window` tokens
  chunked_attention,  ///< attention within the `window`-token chunk a token falls in (Llama 4)
  linear_attention,  ///< Gated DeltaNet, Kimi Delta Attention or lightning attention: a fixed state
  mamba,             ///< Mamba-2: a fixed state per sequence
  /// attention over an encoder's tokens (Llama-3.2-Vision's image tokens):
  /// its K and V are kept per image, none per text token
  cross_attention,
  none,  ///< no mixer: an FFN-only layer
};

/// What follows the mixer in one layer.
enum class FfnKind { dense, moe, none };

/// Every mixer and every FFN kind, in the order above.
inline constexpr Mixer kMixers[] = {Mixer::attention,
                                    Mixer::sliding_window,
                                    Mixer::chunked_attention,
                                    Mixer::linear_attention,
                                    Mixer::mamba,
                                    Mixer::cross_attention,
                                    Mixer::none};
inline constexpr FfnKind kFfnKinds[] = {FfnKind::dense, FfnKind::moe, FfnKind::none};

/// "attention", "sliding_window", "chunked_attention", "linear_attention",
/// "mamba", "cross_attention", "none"
[[nodiscard]] std::string_view to_string(Mixer mixer);
/// "dense", "moe", "none"
[[nodiscard]] std::string_view to_string(FfnKind ffn);

/// Whether the mixer is softmax attention of some span (full, windowed,
/// chunked, or over an encoder's tokens): it has AttentionSpec shapes.
[[nodiscard]] constexpr bool is_attention(Mixer mixer) {
  return mixer == Mixer::attention || mixer == Mixer::sliding_window ||
         mixer == Mixer::chunked_attention || mixer == Mixer::cross_attention;
}

/// Multi-head latent attention (DeepSeek-V2/V3, Kimi-K2, GLM-5): queries and
/// keys/values pass through low-rank projections. kv_lora_rank 0 = the
/// model says its attention is latent but states no shapes.
struct MlaSpec {
  int kv_lora_rank = 0;
  int q_lora_rank = 0;  ///< 0 = queries are not compressed
  int qk_rope_head_dim = 0;
  int qk_nope_head_dim = 0;
  int v_head_dim = 0;
  [[nodiscard]] bool stated() const { return kv_lora_rank > 0; }
  friend bool operator==(const MlaSpec&, const MlaSpec&) = default;
};

/// DeepSeek Sparse Attention's lightning indexer: each query scores every
/// earlier key with `heads` heads of `head_dim` and attends to the top_k.
/// top_k without heads: the selection is known, the indexer's shapes not.
struct SparseIndexer {
  int top_k = 0;  ///< 0 = no sparse selection
  int heads = 0;
  int head_dim = 0;
  [[nodiscard]] bool scores() const { return top_k > 0 && heads > 0 && head_dim > 0; }
  friend bool operator==(const SparseIndexer&, const SparseIndexer&) = default;
};

/// DeepSeek-V4's attention in one layer (docs/formulas.md s.8.1): one shared
/// key/value head of head_dim (K = V) from a low-rank query, an output
/// projection in o_groups groups through o_lora_rank, and the layer's
/// compress ratio: 0 or 1 keeps only the window; r > 1 keeps the window and
/// one compressed entry per r tokens (r = 4 choosing its top-k entries with
/// the indexer).
struct CompressedAttentionSpec {
  int head_dim = 0;          ///< the one KV head and every query head
  int q_lora_rank = 0;       ///< the query's low rank (wq_a, wq_b)
  int qk_rope_head_dim = 0;  ///< of head_dim, the rotary part (cached in BF16)
  int o_lora_rank = 0;       ///< each output group's rank (wo_a)
  int o_groups = 0;          ///< output groups (wo_a is grouped, wo_b takes groups x rank)
  int ratio = 0;             ///< this layer's compress ratio
  friend bool operator==(const CompressedAttentionSpec&, const CompressedAttentionSpec&) = default;
};

/// The compress ratio whose layers choose their compressed entries with the
/// indexer (vLLM: "Only C4A uses sparse attention and hence has indexer") and
/// whose compressor overlaps its windows (DeepseekCompressor.overlap).
inline constexpr int kIndexedCompressRatio = 4;

/// One layer's softmax attention, with its own head counts and sizes.
struct AttentionSpec {
  int q_heads = 0;
  int kv_heads = 0;          ///< K and V heads (GQA); MLA: q_heads
  int head_dim = 0;          ///< query and key head size (MLA: nope + rope)
  int v_head_dim = 0;        ///< value head size
  int window = 0;            ///< sliding_window / chunked_attention: tokens seen; 0 otherwise
  bool output_gate = false;  ///< q_proj also gives a per-channel sigmoid gate (attn_output_gate)
  /// The key projection serves as the value (Gemma 4's attention_k_eq_v):
  /// no v_proj; vLLM still caches K and V apart.
  bool shared_kv = false;
  /// K and V come from an earlier layer's cache (Gemma 4's
  /// num_kv_shared_layers): no k or v projection, no cache of its own.
  bool borrowed_kv = false;
  /// vLLM pads V to the key's head size in the cache (MiMo-V2's v_head_dim
  /// below head_dim): the cache keeps 2 x head_dim per KV head.
  bool cache_pads_v = false;
  bool latent = false;  ///< multi-head latent attention; its shapes in `mla`
  MlaSpec mla;
  SparseIndexer indexer;
  bool compressed = false;  ///< DeepSeek-V4; its shapes in `compression`
  CompressedAttentionSpec compression;
  friend bool operator==(const AttentionSpec&, const AttentionSpec&) = default;
};

/// The linear mixers' kinds, by how their state and projections are built.
enum class LinearKind {
  gated_deltanet,  ///< Qwen3-Next / Qwen3.5: qkvz and ba projections, full-rank output gate
  kimi_delta,      ///< Kimi Delta Attention: a low-rank decay gate, an output gate
  lightning,       ///< MiniMax's lightning attention: q, k, v, an output gate, a d x d state
};

/// "gated_deltanet", "kimi_delta", "lightning"
[[nodiscard]] std::string_view to_string(LinearKind kind);

/// Head shapes of one linear-attention layer, as Qwen3-Next names them
/// (linear_num_key_heads, ...).
struct LinearAttentionSpec {
  LinearKind kind = LinearKind::gated_deltanet;
  int key_heads = 0;
  int value_heads = 0;
  int key_head_dim = 0;
  int value_head_dim = 0;
  int conv_kernel = 0;  ///< short causal convolution width (linear_conv_kernel_dim); 0 = none
  int gate_rank = 0;    ///< kimi_delta's low-rank gates (f, and g unless full rank): h -> rank -> v
  /// kimi_delta's output gate g is one h -> heads x dim projection (Kimi K3's
  /// use_full_rank_gate); the decay gate f stays low rank.
  bool full_rank_output_gate = false;
  [[nodiscard]] bool stated() const { return key_heads > 0 && value_heads > 0; }
  friend bool operator==(const LinearAttentionSpec&, const LinearAttentionSpec&) = default;
};

/// Mamba-2 (SSM) mixer shapes, as Nemotron-H names them: d_inner = heads x
/// head_dim; B and C projections of groups x state_size each.
struct MambaSpec {
  int heads = 0;        ///< mamba_num_heads
  int head_dim = 0;     ///< mamba_head_dim
  int state_size = 0;   ///< ssm_state_size
  int groups = 0;       ///< n_groups
  int conv_kernel = 0;  ///< conv_kernel
  /// bytes per SSM state element (mamba_ssm_cache_dtype; 2 = the model's BF16)
  int state_bytes = 2;
  [[nodiscard]] bool stated() const { return heads > 0 && head_dim > 0; }
  friend bool operator==(const MambaSpec&, const MambaSpec&) = default;
};

/// A layer's mixer: its kind and the shapes that kind has.
struct MixerSpec {
  Mixer kind = Mixer::attention;
  AttentionSpec attention;     ///< attention kinds (is_attention)
  LinearAttentionSpec linear;  ///< linear_attention
  MambaSpec mamba;             ///< mamba
  friend bool operator==(const MixerSpec&, const MixerSpec&) = default;
};

/// Mixture-of-experts shapes of one layer.
struct MoeSpec {
  int routed_experts = 0;
  int experts_per_token = 0;
  int shared_experts = 0;
  /// Width of one routed expert's FFN (moe_intermediate_size); 0 = not given.
  long long expert_intermediate_size = 0;
  /// Width of one shared expert when a family states it apart
  /// (Qwen's shared_expert_intermediate_size); 0 = expert_intermediate_size.
  long long shared_expert_intermediate_size = 0;
  /// Routed experts work in this width instead of the hidden size, behind one
  /// down and one up projection per layer (moe_latent_size); 0 = none.
  long long latent_size = 0;
  /// The latent projections stay 16-bit in a quantized checkpoint (vLLM's
  /// Kimi K3 builds them with quant_config=None).
  bool latent_unquantized = false;
  /// One shared expert's width: its own, else the routed experts'.
  [[nodiscard]] long long shared_width() const {
    return shared_expert_intermediate_size > 0 ? shared_expert_intermediate_size
                                               : expert_intermediate_size;
  }
  friend bool operator==(const MoeSpec&, const MoeSpec&) = default;
};

/// A layer's FFN.
struct FfnSpec {
  FfnKind kind = FfnKind::dense;
  long long width = 0;  ///< a dense FFN's width (intermediate_size); 0 = not given
  /// Gated FFN (SwiGLU): gate, up and down, three matrices; false for
  /// two-matrix FFNs (Nemotron-H's squared ReLU). Experts follow it too.
  bool gated = true;
  MoeSpec moe;  ///< FfnKind::moe
  friend bool operator==(const FfnSpec&, const FfnSpec&) = default;
};

/// One layer: its mixer and its FFN, each a tensor-parallel block whose
/// output is all-reduced when present.
struct LayerSpec {
  MixerSpec mixer;
  FfnSpec ffn;
  friend bool operator==(const LayerSpec&, const LayerSpec&) = default;
};

}  // namespace tpnet
