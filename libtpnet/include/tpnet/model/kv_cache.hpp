#pragma once
/// The KV cache one token and one sequence keep on each rank, by kind of
/// attention layer (docs/formulas.md s.12.4).

#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// Bytes per KV cache element for vLLM's --kv-cache-dtype: `auto`, `bf16`,
/// `bfloat16`, `fp16`, `float16`, `half` = 2 (auto = the BF16 activations);
/// `fp8`, `fp8_e4m3`, `fp8_e5m2` = 1. Throws InputError naming `where` otherwise.
[[nodiscard]] int parse_kv_cache_dtype(std::string_view name, const InputLocation& where);

/// Bytes of KV cache one token of context adds on each rank while a sequence
/// is shorter than any sliding window: full-attention K and V (GQA/MHA heads
/// split over TP, one head per rank when TP exceeds the KV heads), or the MLA
/// latent (kv_lora_rank + qk_rope_head_dim, on every rank), plus the DSA
/// indexer's FP8 keys, over every attention layer (linear-attention layers
/// keep no per-token cache). DeepSeek-V4 (compressed_attention): every
/// layer's window key plus its compressed keys' share (1/ratio of one) and
/// the indexer's, in vLLM's fixed FP8 layout whatever `kv_dtype_bytes`
/// (docs/formulas.md s.12.4). Throws InputError naming the model key when the
/// shapes are missing (kv_cache_shapes_missing), `layout.tp` or
/// `memory.kv_cache_dtype` when out of range.
[[nodiscard]] Bytes kv_bytes_per_token(const ModelArch& model, int tp, int kv_dtype_bytes);

/// The model keys the KV cache needs but the model lacks ("mla" for MLA
/// without shapes); empty when kv_bytes_per_token can answer.
[[nodiscard]] std::vector<std::string> kv_cache_shapes_missing(const ModelArch& model);

/// One sequence's cache on each rank, by kind of layer.
struct SequenceState {
  TokenCount tokens = 0;
  Bytes attention;       ///< full-attention layers: per token x tokens
  Bytes sparse_index;    ///< DSA indexer keys: per token x tokens
  Bytes sliding_window;  ///< sliding-window layers: per token x min(tokens, window)
  Bytes linear_state;  ///< linear-attention (Gated DeltaNet) and Mamba-2 layers: fixed per sequence

  [[nodiscard]] Bytes total() const {
    return attention + sparse_index + sliding_window + linear_state;
  }
  /// Every part times `share` (a pipeline stage's share of the layers).
  [[nodiscard]] SequenceState scaled(double share) const {
    return SequenceState{tokens, attention * share, sparse_index * share, sliding_window * share,
                         linear_state * share};
  }
};

/// The cache one sequence of `tokens` tokens holds on each rank. DeepSeek-V4:
/// attention holds floor(tokens / ratio) compressed keys per layer,
/// sparse_index the indexer's, sliding_window every layer's window, and
/// linear_state the compressors' fixed FP32 state. Linear
/// attention state is BF16 whatever the KV cache dtype (vLLM's mamba state
/// dtype follows the model). Throws as kv_bytes_per_token does.
[[nodiscard]] SequenceState sequence_state(const ModelArch& model, int tp, int kv_dtype_bytes,
                                           TokenCount tokens);

/// How the model's layers divide by kind of attention.
struct LayerCounts {
  int linear = 0;   ///< linear attention: fixed state per sequence
  int mamba = 0;    ///< Mamba-2: fixed state per sequence
  int sliding = 0;  ///< sliding-window attention: capped at the window
  int full = 0;     ///< full attention: every token
  [[nodiscard]] int attention() const { return sliding + full; }
};

[[nodiscard]] LayerCounts layer_counts(const ModelArch& model);

}  // namespace tpnet
