#include "tpnet/model/kv_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "tpnet/base/count_math.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/model/compressed_attention.hpp"
#include "tpnet/model/layer_plan.hpp"

namespace tpnet {
namespace {

/// The DSA indexer caches its keys in FP8 with one FP32 scale per 128 values,
/// whatever the KV cache dtype (vLLM's DeepseekV32IndexerCache).
constexpr int kIndexQuantBlock = 128;
constexpr int kIndexScaleBytes = 4;
/// Linear-attention state is kept in the model's BF16.
constexpr int kLinearStateBytes = 2;

void check_tp(int tp) {
  if (tp < 1 || tp > kMaxTp) {
    throw InputError(fmt::format("{} is not allowed; use 1 to {}", tp, kMaxTp),
                     InputLocation::for_key("layout.tp"));
  }
}

void check_kv_dtype(int bytes) {
  if (bytes != 1 && bytes != 2 && bytes != 4) {
    throw InputError(
        fmt::format("{} bytes per element is not a KV cache dtype; use 1 (fp8), 2 (bf16) or 4",
                    bytes),
        InputLocation::for_key("memory.kv_cache_dtype"));
  }
}

int kv_heads(const ModelArch& m) {
  return m.num_kv_heads > 0 ? m.num_kv_heads : m.num_attention_heads;
}

/// K and V (or the MLA latent) of one attention layer for one token, per rank.
double attention_bytes_per_layer(const ModelArch& m, int tp, int dtype_bytes) {
  if (m.mla) return to_real(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim) * dtype_bytes;
  // vLLM gives each rank max(1, kv_heads / tp) heads: below one head per rank
  // the heads are replicated.
  const long long heads = std::max<long long>(1, ceil_div(kv_heads(m), tp));
  return 2.0 * to_real(heads) * to_real(effective_head_dim(m)) * dtype_bytes;
}

/// The DSA indexer's key for one token in one layer, on every rank.
double index_bytes_per_layer(const ModelArch& m) {
  if (m.sparse_attention_index_heads <= 0 || m.sparse_attention_index_head_dim <= 0) return 0.0;
  const long long dim = m.sparse_attention_index_head_dim;
  return to_real(dim + kIndexScaleBytes * ceil_div(dim, kIndexQuantBlock));
}

/// Gated DeltaNet state of one layer for one sequence, per rank: the
/// recurrent state (value heads x key dim x value dim) and the short
/// convolution's last conv_kernel - 1 inputs, heads split over TP.
double linear_state_per_layer(const ModelArch& m, int tp) {
  if (!m.linear_attention) return 0.0;
  const LinearAttentionSpec& s = *m.linear_attention;
  const double key_heads = to_real(ceil_div(s.key_heads, tp));
  const double value_heads = to_real(ceil_div(s.value_heads, tp));
  const double recurrent = value_heads * s.key_head_dim * s.value_head_dim;
  const double conv = std::max(0, s.conv_kernel - 1) *
                      (2.0 * key_heads * s.key_head_dim + value_heads * s.value_head_dim);
  return (recurrent + conv) * kLinearStateBytes;
}

/// Mamba-2 state of one layer for one sequence, per rank: the SSM state
/// (heads x head_dim x state_size, in the model's SSM cache dtype) and the
/// convolution's last conv_kernel - 1 inputs over x, B and C (BF16), heads
/// and groups split over TP (a group below one per rank is replicated).
double mamba_state_per_layer(const ModelArch& m, int tp) {
  if (!m.mamba) return 0.0;
  const MambaSpec& s = *m.mamba;
  const double heads = to_real(ceil_div(s.heads, tp));
  const double groups = to_real(std::max<long long>(1, ceil_div(s.groups, tp)));
  const double ssm = heads * s.head_dim * s.state_size * s.state_bytes;
  const double conv = std::max(0, s.conv_kernel - 1) *
                      (heads * s.head_dim + 2.0 * groups * s.state_size) * kLinearStateBytes;
  return ssm + conv;
}

/// DeepSeek-V4's cache on every rank (its one KV head is not split): per
/// layer the last `sliding_window` keys, one compressed key per `ratio`
/// tokens (ratio > 1) with, at ratio 4, the indexer's key, and the
/// compressor's fixed state.
struct CompressedCache {
  double per_token = 0.0;     ///< compressed (and indexer) keys per token of context
  double index_share = 0.0;   ///< of per_token, the indexer's keys
  double window_entry = 0.0;  ///< one window key in every layer
  double state = 0.0;         ///< compressor states of one sequence
};

CompressedCache compressed_cache(const ModelArch& m) {
  CompressedCache c;
  const CompressedAttentionSpec& a = *m.compressed_attention;
  const double entry = compressed_kv_entry_bytes(a);
  const double index = compressed_index_entry_bytes(m);
  for (const int ratio : a.compress_ratios) {
    c.window_entry += entry;
    if (ratio <= 1) continue;
    c.per_token += entry / ratio;
    if (ratio == kIndexedCompressRatio && m.sparse_attention_index_heads > 0) {
      c.index_share += index / ratio;
    }
    c.state += compressor_state_bytes(m, ratio);
  }
  c.per_token += c.index_share;
  return c;
}

void require_kv_shapes(const ModelArch& m) {
  const auto missing = kv_cache_shapes_missing(m);
  if (missing.empty()) return;
  std::string keys;
  for (const auto& key : missing) keys += (keys.empty() ? "" : ", ") + key;
  throw InputError(fmt::format("{} states no {} shapes; the KV cache size needs them (give them in "
                               "the model file, or `memory.kv_bytes_per_token`)",
                               m.name, keys),
                   InputLocation::for_key(missing.front()));
}

}  // namespace

LayerCounts layer_counts(const ModelArch& m) {
  const LayerTally t = tally_layers(m);
  LayerCounts c;
  c.linear = t.linear;
  c.mamba = t.mamba;
  c.sliding = m.sliding_window > 0 ? t.sliding : 0;
  c.full = t.attention + (m.sliding_window > 0 ? 0 : t.sliding);
  return c;
}

int parse_kv_cache_dtype(std::string_view name, const InputLocation& where) {
  static constexpr std::array<std::pair<std::string_view, int>, 9> kDtypes{{
      {"auto", 2},
      {"bf16", 2},
      {"bfloat16", 2},
      {"fp16", 2},
      {"float16", 2},
      {"half", 2},
      {"fp8", 1},
      {"fp8_e4m3", 1},
      {"fp8_e5m2", 1},
  }};
  for (const auto& [dtype, bytes] : kDtypes) {
    if (name == dtype) return bytes;
  }
  throw InputError(fmt::format("'{}' is not a KV cache dtype; use auto (= bf16), bf16, fp16 or "
                               "fp8 (fp8_e4m3, fp8_e5m2)",
                               name),
                   where);
}

std::vector<std::string> kv_cache_shapes_missing(const ModelArch& m) {
  std::vector<std::string> missing;
  if (!m.mla && m.attention == AttentionKind::mla) missing.emplace_back("mla");
  const LayerCounts c = layer_counts(m);
  if (c.linear > 0 && !m.linear_attention) missing.emplace_back("linear_attention");
  if (c.mamba > 0 && !m.mamba) missing.emplace_back("mamba");
  return missing;
}

Bytes kv_bytes_per_token(const ModelArch& m, int tp, int kv_dtype_bytes) {
  check_tp(tp);
  check_kv_dtype(kv_dtype_bytes);
  require_kv_shapes(m);
  if (m.compressed_attention) {
    // While a sequence is within the window every layer keeps each token whole.
    const CompressedCache cache = compressed_cache(m);
    return Bytes(cache.window_entry + cache.per_token);
  }
  const LayerCounts c = layer_counts(m);
  return Bytes(c.attention() * attention_bytes_per_layer(m, tp, kv_dtype_bytes) +
               c.full * index_bytes_per_layer(m));
}

SequenceState sequence_state(const ModelArch& m, int tp, int kv_dtype_bytes, TokenCount tokens) {
  check_tp(tp);
  check_kv_dtype(kv_dtype_bytes);
  require_kv_shapes(m);
  if (tokens < 0) {
    throw InputError(fmt::format("{} tokens is not allowed", tokens),
                     InputLocation::for_key("memory.max_model_len"));
  }
  SequenceState s;
  s.tokens = tokens;
  if (m.compressed_attention) {
    // A compressed key for every full `ratio` tokens.
    const CompressedAttentionSpec& a = *m.compressed_attention;
    const double entry = compressed_kv_entry_bytes(a);
    const double index = compressed_index_entry_bytes(m);
    double attention = 0.0;
    double sparse_index = 0.0;
    for (const int ratio : a.compress_ratios) {
      if (ratio <= 1) continue;
      const double entries = to_real(tokens / ratio);
      attention += entry * entries;
      if (ratio == kIndexedCompressRatio && m.sparse_attention_index_heads > 0) {
        sparse_index += index * entries;
      }
    }
    s.attention = Bytes(attention);
    s.sparse_index = Bytes(sparse_index);
    s.sliding_window = Bytes(compressed_cache(m).window_entry *
                             to_real(std::min<TokenCount>(tokens, m.sliding_window)));
    s.linear_state = Bytes(compressed_cache(m).state);
    return s;
  }
  const LayerCounts c = layer_counts(m);
  const double per_layer = attention_bytes_per_layer(m, tp, kv_dtype_bytes);
  s.attention = Bytes(c.full * per_layer * to_real(tokens));
  s.sparse_index = Bytes(c.full * index_bytes_per_layer(m) * to_real(tokens));
  s.sliding_window =
      Bytes(c.sliding * per_layer * to_real(std::min<TokenCount>(tokens, m.sliding_window)));
  s.linear_state =
      Bytes(c.linear * linear_state_per_layer(m, tp) + c.mamba * mamba_state_per_layer(m, tp));
  return s;
}

}  // namespace tpnet
