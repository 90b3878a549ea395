#pragma once
// Private: the pieces family rules build a layer plan from, read under the
// key names transformers' configs share (docs/models.md, "Hugging Face
// config.json"). Each reads its keys and marks them read; a rule composes
// them and adds what its family does otherwise.

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hf_reader.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet::hf {

/// num_hidden_layers.
[[nodiscard]] int layer_count(const HfConfig& c);

/// Softmax attention under the common keys: num_attention_heads,
/// num_key_value_heads (default: the heads), head_dim (or
/// attention_head_dim; default hidden_size / heads), v equal to k.
/// InputError for heads 0 wide.
[[nodiscard]] AttentionSpec standard_attention(const HfConfig& c, long long hidden);

/// Multi-head latent attention from kv_lora_rank, q_lora_rank (null = 0),
/// qk_rope_head_dim, qk_nope_head_dim, v_head_dim, made into `attention`'s
/// shapes; false (and nothing read) without kv_lora_rank.
bool read_latent_attention(const HfObject& c, AttentionSpec& attention);

/// DeepSeek Sparse Attention's indexer: index_topk, index_n_heads, index_head_dim.
[[nodiscard]] SparseIndexer read_indexer(const HfObject& c);

/// Gated DeltaNet heads: linear_num_key_heads, linear_num_value_heads,
/// linear_key_head_dim, linear_value_head_dim, linear_conv_kernel_dim.
[[nodiscard]] LinearAttentionSpec read_gated_deltanet(const HfObject& c);

/// Mamba-2: mamba_num_heads, mamba_head_dim, ssm_state_size, n_groups,
/// conv_kernel; the state in FP32 when mamba_ssm_cache_dtype says float32.
[[nodiscard]] MambaSpec read_mamba(const HfObject& c);

/// A mixture of experts under the common keys: the experts (n_routed_experts,
/// num_experts, num_local_experts, moe_num_experts), experts per token
/// (num_experts_per_tok, num_experts_per_token, top_k_experts, moe_topk,
/// moe_k), the expert width (moe_intermediate_size; with num_local_experts
/// and no such key, intermediate_size: `expert_is_intermediate`), shared
/// experts (n_shared_experts, num_shared_experts, moe_num_shared_experts;
/// shared_expert_intermediate_size or moe_shared_expert_intermediate_size
/// make one of that width) and the latent width (moe_latent_size).
/// nullopt when no experts key is there or it says 0.
struct MoeRead {
  MoeSpec spec;
  bool expert_is_intermediate = false;  ///< Mixtral: intermediate_size is the expert's width
};
[[nodiscard]] std::optional<MoeRead> read_moe(const HfObject& c);

/// Which layers have experts when a MoE config does not list them: every
/// layer from first_k_dense_replace on where moe_layer_freq (a number: i %
/// freq == 0; or a list of one 0/1 per layer) says so (DeepSeek, GLM,
/// MiniMax-M3); Qwen's mlp_only_layers and decoder_sparse_step; ERNIE's
/// moe_layer_start_index, _end_index and _interval. All MoE when none of
/// these keys is there.
[[nodiscard]] std::vector<bool> moe_layers(const HfObject& c, int layers);

/// Each layer's kind of attention from `layer_types` (full_attention,
/// attention, sliding_attention, chunked_attention, linear_attention;
/// `extra` adds a family's names), else full_attention_interval (Qwen3-Next:
/// every n-th full, the rest linear), else sliding_window_pattern (a number:
/// every n-th global; or a string of L and G repeated), else
/// `default_pattern` (every n-th global, the rest sliding; 0: all full).
/// `listed` tells whether the config said it.
struct LayerKinds {
  std::vector<Mixer> mixers;
  bool listed = false;
  bool from_default = false;  ///< the family's default pattern placed the sliding layers
};
[[nodiscard]] LayerKinds layer_kinds(
    const HfObject& c, int layers, int default_pattern,
    const std::vector<std::pair<std::string_view, Mixer>>& extra = {});

/// A dense FFN of `width` (gated unless said otherwise).
[[nodiscard]] FfnSpec dense_ffn(long long width, bool gated = true);
/// An MoE FFN of `moe`.
[[nodiscard]] FfnSpec moe_ffn(const MoeSpec& moe, bool gated = true);

/// The plan of `layers` layers, layer i from `layer_at(i)`.
[[nodiscard]] LayerPlan plan_of(int layers, const std::function<LayerSpec(int)>& layer_at);

/// Multi-token-prediction layers under each family's key: DeepSeek's and
/// GLM's num_nextn_predict_layers, Qwen3.5's mtp_num_hidden_layers,
/// MiniMax's num_mtp_modules of mtp_transformer_layers each (when use_mtp
/// is not false).
[[nodiscard]] int read_mtp_layers(const HfObject& c);

/// The sliding window in tokens; required (naming `why`) when `needed`.
[[nodiscard]] int sliding_window(const HfObject& c, bool needed, std::string_view why);

}  // namespace tpnet::hf

namespace tpnet::hf {

/// How a family's decoder differs from the common one.
struct DecoderOptions {
  /// The config class's sliding-window pattern when config.json states none
  /// (every n-th layer global, the rest sliding); 0: none.
  int default_sliding_pattern = 0;
  /// Whether a sliding_window with no pattern slides every softmax layer
  /// (Mistral's MistralConfig) rather than none.
  bool window_without_pattern_slides = true;
};

/// The common decoder-only transformer: each layer the same attention
/// (standard_attention, latent when kv_lora_rank is there, the DSA indexer)
/// over every token or a sliding window (layer_kinds, sliding_window), and a
/// dense FFN of intermediate_size or a MoE (read_moe, moe_layers); Gated
/// DeltaNet for layer_types' linear_attention layers. Sets model.layers and
/// the assumptions its defaults make.
void read_decoder(HfConfig& c, ModelArch& m, const DecoderOptions& options = {});

/// The family rules' shared wording for an assumption a class default makes.
[[nodiscard]] std::string class_default(const HfConfig& c, std::string_view what);

}  // namespace tpnet::hf
