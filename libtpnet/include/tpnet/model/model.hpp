#pragma once
/// A model's architecture: what decides the bytes a tensor-parallel forward
/// pass sends (hidden size, layers, vocabulary), the weights each node reads
/// (parameters, bits per weight), and the shapes a parameter estimate needs
/// (tpnet/model/params.hpp). Every shape field beyond the first group is optional:
/// zero (or an empty optional) means "not given".

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/limits.hpp"
#include "tpnet/base/units.hpp"

namespace tpnet {

/// How attention is built; it decides KV cache shapes and whether every
/// layer is a full-attention layer. Traffic per layer does not depend on it.
enum class AttentionKind {
  mha,             ///< multi-head attention, one KV head per query head
  gqa,             ///< grouped-query attention
  mla,             ///< multi-head latent attention (DeepSeek)
  sparse,          ///< sparse attention over a selected top-k of earlier tokens (DSA)
  hybrid_linear,   ///< linear-attention (e.g. Gated DeltaNet) layers mixed with full attention
  sliding_window,  ///< sliding-window layers mixed with full attention
  compressed,      ///< DeepSeek-V4: a sliding window plus KV compressed per layer (compress_ratios)
};

[[nodiscard]] std::string_view to_string(AttentionKind kind);

/// Mixture-of-experts fields; absent for dense models.
struct MoeSpec {
  int routed_experts = 0;
  int experts_per_token = 0;
  int shared_experts = 0;
  /// Width of one routed expert's gated FFN (moe_intermediate_size); 0 = not given.
  long long expert_intermediate_size = 0;
  /// Width of one shared expert when a family states it apart
  /// (Qwen's shared_expert_intermediate_size); 0 = expert_intermediate_size.
  long long shared_expert_intermediate_size = 0;
  /// Layers with a dense FFN instead of experts (DeepSeek's first_k_dense_replace).
  int first_dense_layers = 0;
  /// Routed experts work in this width instead of the hidden size, behind one
  /// down and one up projection per layer (Nemotron-3 Super's moe_latent_size); 0 = none.
  long long latent_size = 0;
};

/// Multi-head latent attention (DeepSeek-V2/V3, Kimi-K2): queries and keys/values
/// pass through low-rank projections.
struct MlaSpec {
  int kv_lora_rank = 0;
  int q_lora_rank = 0;  ///< 0 = queries are not compressed
  int qk_rope_head_dim = 0;
  int qk_nope_head_dim = 0;
  int v_head_dim = 0;
};

/// Head shapes of linear-attention (Gated DeltaNet) layers, as Qwen3-Next names
/// them (linear_num_key_heads, ...).
struct LinearAttentionSpec {
  int key_heads = 0;
  int value_heads = 0;
  int key_head_dim = 0;
  int value_head_dim = 0;
  int conv_kernel = 0;  ///< short causal convolution width (linear_conv_kernel_dim)
  /// Kimi Delta Attention's low-rank gates (f and g: hidden -> rank -> value
  /// heads x dim); 0 = Gated DeltaNet's full-rank output gate.
  int gate_rank = 0;
};

/// DeepSeek-V4's attention (docs/formulas.md s.8.1): one shared key/value
/// head of head_dim (K = V) from a low-rank query, an output projection in
/// o_groups groups through o_lora_rank, and per layer a compress ratio: 0
/// keeps only the last `sliding_window` tokens; r > 0 keeps that window and
/// one compressed entry per r tokens (r = 4 choosing its top-k entries with
/// the indexer, sparse_attention_index_*). Hyper-connections widen the
/// residual stream to hc_mult copies mixed around every attention and FFN.
struct CompressedAttentionSpec {
  int head_dim = 0;                  ///< the one KV head and every query head
  int q_lora_rank = 0;               ///< the query's low rank (wq_a, wq_b)
  int qk_rope_head_dim = 0;          ///< of head_dim, the rotary part (cached in BF16)
  int o_lora_rank = 0;               ///< each output group's rank (wo_a)
  int o_groups = 0;                  ///< output groups (wo_a is grouped, wo_b takes groups x rank)
  int hc_mult = 0;                   ///< hyper-connection streams; 0 = none
  std::vector<int> compress_ratios;  ///< one per layer; 0 = sliding window only
};

/// Mamba-2 (SSM) mixer shapes, as Nemotron-H names them: d_inner = heads x
/// head_dim; B and C projections of groups x state_size each.
struct MambaSpec {
  int heads = 0;        ///< mamba_num_heads
  int head_dim = 0;     ///< mamba_head_dim
  int state_size = 0;   ///< ssm_state_size
  int groups = 0;       ///< n_groups
  int conv_kernel = 0;  ///< conv_kernel
  int state_bytes =
      2;  ///< bytes per SSM state element (mamba_ssm_cache_dtype; 2 = the model's BF16)
};

/// What mixes tokens in one layer.
enum class Mixer {
  attention,         ///< attention over every earlier token: MHA, GQA, MLA or sparse top-k
  sliding_window,    ///< attention over the last `sliding_window` tokens
  linear_attention,  ///< Gated DeltaNet: a fixed state per sequence
  mamba,             ///< Mamba-2: a fixed state per sequence
  none,              ///< no mixer: an FFN-only layer
  /// attention over an encoder's tokens (Llama-3.2-Vision's image tokens):
  /// its K and V are kept per image, none per text token
  cross_attention,
};
/// What follows the mixer in one layer.
enum class FfnKind { dense, moe, none };

/// One layer of the model: its mixer and its FFN, each a tensor-parallel
/// block whose output is all-reduced when present.
struct LayerSpec {
  Mixer mixer = Mixer::attention;
  FfnKind ffn = FfnKind::dense;
  /// A dense FFN's width when it differs from intermediate_size (DeciLM's
  /// per-layer ffn_mult); 0 = intermediate_size.
  long long ffn_width = 0;
  friend bool operator==(const LayerSpec&, const LayerSpec&) = default;
};

/// Every mixer and every FFN kind, in the order above.
inline constexpr Mixer kMixers[] = {
    Mixer::attention, Mixer::sliding_window, Mixer::linear_attention,
    Mixer::mamba,     Mixer::none,           Mixer::cross_attention};
inline constexpr FfnKind kFfnKinds[] = {FfnKind::dense, FfnKind::moe, FfnKind::none};

/// "attention", "sliding_window", "linear_attention", "mamba", "none", "cross_attention"
[[nodiscard]] std::string_view to_string(Mixer mixer);
/// "dense", "moe", "none"
[[nodiscard]] std::string_view to_string(FfnKind ffn);

/// The parts of a model's weights a checkpoint may store at different
/// precisions (a quantization that leaves some modules in BF16).
enum class WeightPart {
  embedding,  ///< the input embedding table
  lm_head,    ///< the output head
  attention,  ///< the mixers: attention, linear-attention and Mamba-2 projections, the DSA indexer
  dense_ffn,  ///< dense FFNs
  routed_experts,  ///< routed experts
  shared_experts,  ///< shared experts
  router,          ///< expert gates
};

/// Every part, in the order above.
inline constexpr WeightPart kWeightParts[] = {
    WeightPart::embedding, WeightPart::lm_head,        WeightPart::attention,
    WeightPart::dense_ffn, WeightPart::routed_experts, WeightPart::shared_experts,
    WeightPart::router};

/// "embedding", "lm_head", "attention", "dense_ffn", "routed_experts", "shared_experts", "router"
[[nodiscard]] std::string_view to_string(WeightPart part);

/// Where a model's lookup tables live while it serves.
enum class TablePlacement {
  gpu,   ///< in GPU memory, with the weights
  host,  ///< in pinned host memory (on a unified-memory node, the same memory)
  disk,  ///< on local NVMe, the rows a forward needs staged before it
};
/// "gpu", "host", "disk"
[[nodiscard]] std::string_view to_string(TablePlacement placement);

/// Lookup tables outside the transformer's matrices (DeepSeek's Engram):
/// read by row, never multiplied, so they need not live in GPU memory. Each
/// rank holds its 1/(tp x pp) of the rows (docs/formulas.md s.12.11).
struct EngramSpec {
  Bytes table_bytes;  ///< the whole model's tables
  /// Of each rank's tables, the share a host placement pins in host memory;
  /// the rest stays in GPU memory.
  double host_share = 1.0;
  TablePlacement placement = TablePlacement::host;  ///< as deployed: the default
};

struct ModelArch {
  std::string name;         ///< catalog name, e.g. "glm-5.3"
  std::string description;  ///< one line for listings
  std::string source;       ///< where the numbers come from

  long long hidden_size = 0;
  int num_layers = 0;
  long long vocab_size = 0;
  int num_attention_heads = 0;
  int num_kv_heads = 0;
  AttentionKind attention = AttentionKind::gqa;
  std::optional<int> sparse_attention_top_k;

  double total_params = 0.0;   ///< all weights
  double active_params = 0.0;  ///< weights read per token (= total for dense models)
  double bits_per_weight = 16.0;

  std::optional<MoeSpec> moe;

  /// Values not stated by the model's source, with why they were chosen.
  std::map<std::string, std::string> assumptions;
  /// What the model's files leave in doubt, for every command that uses it to
  /// warn about (a checkpoint named NVFP4 whose files state no quantization).
  std::vector<std::string> warnings;

  // Shapes for the parameter estimate (tpnet/model/params.hpp); all optional.
  int head_dim = 0;                 ///< per attention head; 0 = hidden_size / heads
  long long intermediate_size = 0;  ///< dense (gated) FFN width; 0 = not given
  std::optional<MlaSpec> mla;       ///< present for MLA models
  int mtp_layers = 0;               ///< multi-token-prediction layers (num_nextn_predict_layers)
  /// Bits per weight of the MTP layers when the checkpoint leaves them out of
  /// its quantization; 0 = the main layers' mean (weights.hpp).
  double mtp_bits_per_weight = 0.0;
  int linear_attention_layers = 0;  ///< layers of linear attention in a hybrid model
  std::optional<LinearAttentionSpec> linear_attention;  ///< their head shapes
  int sparse_attention_index_heads = 0;     ///< DSA indexer heads (index_n_heads); 0 = none
  int sparse_attention_index_head_dim = 0;  ///< DSA indexer head size (index_head_dim)
  int sliding_window = 0;                   ///< tokens a sliding-window layer sees; 0 = none
  int sliding_window_layers = 0;            ///< how many layers use that window
  bool tie_word_embeddings = false;         ///< LM head shares the input embedding
  /// FFNs (dense and experts) are gated, three matrices (SwiGLU); false for
  /// two-matrix FFNs (Nemotron-H's squared ReLU).
  bool gated_ffn = true;
  std::optional<MambaSpec> mamba;  ///< Mamba-2 shapes, when layers have Mamba mixers
  /// DeepSeek-V4's attention; its layers are the layer plan's attention
  /// (ratio > 0) and sliding-window (ratio 0) layers.
  std::optional<CompressedAttentionSpec> compressed_attention;
  /// The layers one by one, when they differ in ways the counts above cannot
  /// say (Nemotron-H: each layer one Mamba, attention, MLP or MoE block).
  /// Empty: the layers follow from the counts (layer_plan, tpnet/model/layer_plan.hpp).
  std::vector<LayerSpec> layers;
  std::string torch_dtype;   ///< checkpoint dtype, e.g. "bfloat16"; empty = unknown
  std::string quantization;  ///< checkpoint format, e.g. "fp8", "mxfp4"; empty = none
  /// Bits per weight of the parts stored otherwise than bits_per_weight: the
  /// modules a quantization leaves out, or a mixed-precision map's mean over
  /// the part's layers. A part not listed is at bits_per_weight.
  std::map<WeightPart, double> part_bits;
  /// Engram tables beside the weights; absent for a model without them.
  std::optional<EngramSpec> engram;
  /// KV cache one token adds on every rank, as a deployment measured it, for
  /// a model whose attention shapes are not stated (memory.kv_bytes_per_token
  /// replaces it; the architecture's shapes, when stated, come first).
  std::optional<Bytes> kv_bytes_per_token;

  /// part_bits' entry for `part`, else bits_per_weight.
  [[nodiscard]] double bits_of(WeightPart part) const;
};

/// The attention head size: head_dim when given; for MLA the query/key head
/// (qk_nope_head_dim + qk_rope_head_dim); else hidden_size / heads.
[[nodiscard]] long long effective_head_dim(const ModelArch& model);

}  // namespace tpnet
