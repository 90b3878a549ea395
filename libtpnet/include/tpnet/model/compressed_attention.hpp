#pragma once
/// DeepSeek-V4's compressed attention layer by layer: its weights, what vLLM
/// keeps of it on every rank, and its cache entries (docs/formulas.md s.8.1,
/// read from vLLM's deepseek_v4.py, deepseek_v4_attention.py and
/// deepseek_compressor.py).

#include "tpnet/model/layer.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// One layer's attention weights at its compress ratio.
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

/// The weights of one compressed attention layer (`attention.compressed`) in
/// a model of width `hidden`; zeros for any other attention. Ratios 0 and 1
/// are window-only layers without a compressor (vLLM reads 0 as 1).
[[nodiscard]] CompressedAttentionParams compressed_attention_params(long long hidden,
                                                                    const AttentionSpec& attention);

/// The hyper-connection weights of every layer (two mixings, around the
/// mixer and the FFN) and of the head: (2 + m) x m x (m x h) + (2 + m) x m
/// + 3 per mixing, m x (m x h) + m + 1 for the head, m = hyper_connections; 0 without.
[[nodiscard]] double hyper_connection_params(const ModelArch& model);

/// Bytes of one cached key (K = V) in vLLM's layout, whatever the KV cache
/// dtype: the non-rotary part in FP8, the rotary part in BF16, one scale byte
/// per 64 FP8 values and one pad byte (584 at head_dim 512, rope 64).
[[nodiscard]] double compressed_kv_entry_bytes(const CompressedAttentionSpec& spec);

/// Bytes of one indexer key: FP8 with a 4-byte scale per 128 values; 0
/// without the indexer's shapes.
[[nodiscard]] double compressed_index_entry_bytes(const SparseIndexer& indexer);

/// Whether a compressed layer chooses its entries with the indexer: ratio 4
/// with the indexer's shapes stated.
[[nodiscard]] bool has_compressed_indexer(const AttentionSpec& attention);

/// One sequence's compressor state in one compressed layer (FP32, kept
/// whatever the sequence's length): the last overlap x ratio tokens' key and
/// score rows of 2 x overlap x head_dim each, the indexer's too at ratio 4;
/// 0 at ratios 0 and 1.
[[nodiscard]] double compressor_state_bytes(const AttentionSpec& attention);

}  // namespace tpnet
