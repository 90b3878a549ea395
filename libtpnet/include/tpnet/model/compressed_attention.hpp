#pragma once
/// DeepSeek-V4's compressed attention layer by layer: its weights, what vLLM
/// keeps of it on every rank, and its cache entries (docs/formulas.md s.8.1,
/// read from vLLM's deepseek_v4.py, deepseek_v4_attention.py and
/// deepseek_compressor.py).

#include "tpnet/model/model.hpp"

namespace tpnet {

/// The compress ratio whose layers choose their compressed entries with the
/// indexer (vLLM: "Only C4A uses sparse attention and hence has indexer") and
/// whose compressor overlaps its windows (DeepseekCompressor.overlap).
inline constexpr int kIndexedCompressRatio = 4;

/// One layer's attention weights at compress ratio `ratio`.
struct CompressedAttentionParams {
  /// Split over TP: wq_b (q rank -> heads x head_dim), the grouped wo_a
  /// (heads x head_dim -> groups x o rank) and wo_b (groups x o rank -> h).
  double split = 0.0;
  /// Held whole by every rank: the fused wq_a + wkv (h -> q rank + head_dim),
  /// the compressor and, at ratio 4, the indexer (vLLM's ReplicatedLinear and
  /// disable_tp layers).
  double replicated = 0.0;
  [[nodiscard]] double total() const { return split + replicated; }
};

/// The layers that compress ratios make: a ratio above 1 an attention layer
/// over compressed entries, 0 or 1 a sliding-window layer; the first
/// model.moe->first_dense_layers FFNs dense, the rest MoE (all dense without
/// MoE). Also sets model.sliding_window_layers to the window layers' count.
/// The model's num_layers ratios must be given.
void set_compressed_attention_layers(ModelArch& model, const CompressedAttentionSpec& spec);

/// The weights of one layer's attention; zeros without compressed_attention.
/// Ratios 0 and 1 are window-only layers without a compressor (vLLM reads 0 as 1).
[[nodiscard]] CompressedAttentionParams compressed_attention_params(const ModelArch& model,
                                                                    int ratio);

/// The hyper-connection weights of every layer (two mixings, around the
/// attention and the FFN) and of the head: (2 + m) x m x (m x h) + (2 + m) x m
/// + 3 per mixing, m x (m x h) + m + 1 for the head, m = hc_mult; 0 without.
[[nodiscard]] double hyper_connection_params(const ModelArch& model);

/// Bytes of one cached key (K = V) in vLLM's layout, whatever the KV cache
/// dtype: the non-rotary part in FP8, the rotary part in BF16, one scale byte
/// per 64 FP8 values and one pad byte (584 at head_dim 512, rope 64).
[[nodiscard]] double compressed_kv_entry_bytes(const CompressedAttentionSpec& spec);

/// Bytes of one indexer key: FP8 with a 4-byte scale per 128 values.
[[nodiscard]] double compressed_index_entry_bytes(const ModelArch& model);

/// One sequence's compressor state in one layer at `ratio` (FP32, kept
/// whatever the sequence's length): the last overlap x ratio tokens' key and
/// score rows of 2 x overlap x head_dim each, the indexer's too at ratio 4.
[[nodiscard]] double compressor_state_bytes(const ModelArch& model, int ratio);

}  // namespace tpnet
