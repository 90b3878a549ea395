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

/// Bytes of KV cache one more token of context adds on each rank once a
/// sequence is past every window (docs/formulas.md s.12.4): over the
/// full-attention layers, K and V (GQA/MHA heads split over TP, one head per
/// rank when TP exceeds the KV heads; both where K serves as V in the
/// weights, as Gemma 4's V is normed apart) or the MLA
/// latent (kv_lora_rank + qk_rope_head_dim, on every rank), plus the DSA
/// indexer's FP8 keys; DeepSeek-V4's compressed keys' share (1/ratio of one,
/// with the indexer's, in vLLM's fixed FP8 layout whatever
/// `kv_dtype_bytes`). Sliding-window and chunked layers hold at most their
/// window, and linear-attention and Mamba-2 layers a fixed state: both are
/// per sequence (sequence_state), not per token. Throws InputError naming
/// the model key when the shapes are missing (kv_cache_shapes_missing),
/// `layout.tp` or `memory.kv_cache_dtype` when out of range.
[[nodiscard]] Bytes kv_bytes_per_token(const ModelArch& model, int tp, int kv_dtype_bytes);

/// The model keys the KV cache needs but the model lacks ("mla" for MLA
/// without shapes); empty when kv_bytes_per_token can answer.
[[nodiscard]] std::vector<std::string> kv_cache_shapes_missing(const ModelArch& model);

/// One sequence's cache on each rank, by kind of layer.
struct SequenceState {
  TokenCount tokens = 0;
  Bytes attention;       ///< full-attention layers: per token x tokens
  Bytes sparse_index;    ///< DSA indexer keys: per token x tokens
  Bytes sliding_window;  ///< sliding-window and chunked layers: per token x min(tokens, window)
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

/// The cache one sequence of `tokens` tokens holds on each rank, layer by
/// layer. DeepSeek-V4: attention holds floor(tokens / ratio) compressed keys
/// per layer, sparse_index the indexer's, sliding_window every layer's
/// window, and linear_state the compressors' fixed FP32 state. Linear
/// attention state is BF16 whatever the KV cache dtype (vLLM's mamba state
/// dtype follows the model). Throws as kv_bytes_per_token does.
[[nodiscard]] SequenceState sequence_state(const ModelArch& model, int tp, int kv_dtype_bytes,
                                           TokenCount tokens);

/// What one decode token of a request reads of its cache on each rank, by
/// its context (docs/formulas.md s.23): full attention reads every key (a
/// DSA layer only its top-k, beside every indexer key it scores), a
/// windowed or chunked layer at most its window, DeepSeek-V4 its window and
/// its compressed entries (a ratio-4 layer its indexer's top-k of them), a
/// linear-attention or Mamba-2 layer its fixed state. Built once per run:
/// `at` walks the plan's runs, not its layers.
class DecodeCacheReads {
 public:
  DecodeCacheReads(const ModelArch& model, int tp, int kv_dtype_bytes);
  [[nodiscard]] Bytes at(TokenCount context) const;

 private:
  struct Run {
    double layers = 0.0;
    double entry = 0.0;        ///< bytes a key read costs
    TokenCount cap = 0;        ///< keys read at most (0: every key)
    double index_entry = 0.0;  ///< bytes of each indexer key scored (every key)
    int ratio = 0;             ///< DeepSeek-V4: tokens per compressed entry (0: none)
    double fixed = 0.0;        ///< a state read whatever the context
  };
  std::vector<Run> runs_;
};

}  // namespace tpnet
