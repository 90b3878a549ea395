#include "tpnet/analysis/kv_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "tpnet/limits.hpp"

namespace tpnet {
namespace {

/// The DSA indexer caches its keys in FP8 with one FP32 scale per 128 values,
/// whatever the KV cache dtype (vLLM's DeepseekV32IndexerCache).
constexpr int kIndexQuantBlock = 128;
constexpr int kIndexScaleBytes = 4;
/// Linear-attention state is kept in the model's BF16.
constexpr int kLinearStateBytes = 2;

double d(long long value) { return static_cast<double>(value); }

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

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
  if (m.mla) return d(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim) * dtype_bytes;
  // vLLM gives each rank max(1, kv_heads / tp) heads: below one head per rank
  // the heads are replicated.
  const long long heads = std::max<long long>(1, ceil_div(kv_heads(m), tp));
  return 2.0 * d(heads) * d(effective_head_dim(m)) * dtype_bytes;
}

/// The DSA indexer's key for one token in one layer, on every rank.
double index_bytes_per_layer(const ModelArch& m) {
  if (m.sparse_attention_index_heads <= 0 || m.sparse_attention_index_head_dim <= 0) return 0.0;
  const long long dim = m.sparse_attention_index_head_dim;
  return d(dim + kIndexScaleBytes * ceil_div(dim, kIndexQuantBlock));
}

/// Gated DeltaNet state of one layer for one sequence, per rank: the
/// recurrent state (value heads x key dim x value dim) and the short
/// convolution's last conv_kernel - 1 inputs, heads split over TP.
double linear_state_per_layer(const ModelArch& m, int tp) {
  if (!m.linear_attention) return 0.0;
  const LinearAttentionSpec& s = *m.linear_attention;
  const double key_heads = d(ceil_div(s.key_heads, tp));
  const double value_heads = d(ceil_div(s.value_heads, tp));
  const double recurrent = value_heads * s.key_head_dim * s.value_head_dim;
  const double conv = std::max(0, s.conv_kernel - 1) *
                      (2.0 * key_heads * s.key_head_dim + value_heads * s.value_head_dim);
  return (recurrent + conv) * kLinearStateBytes;
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
  LayerCounts c;
  const int layers = std::max(0, m.num_layers);
  c.linear = std::clamp(m.linear_attention_layers, 0, layers);
  c.sliding = m.sliding_window > 0 ? std::clamp(m.sliding_window_layers, 0, layers - c.linear) : 0;
  c.full = layers - c.linear - c.sliding;
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
  if (layer_counts(m).linear > 0 && !m.linear_attention) missing.emplace_back("linear_attention");
  return missing;
}

Bytes kv_bytes_per_token(const ModelArch& m, int tp, int kv_dtype_bytes) {
  check_tp(tp);
  check_kv_dtype(kv_dtype_bytes);
  require_kv_shapes(m);
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
  const LayerCounts c = layer_counts(m);
  const double per_layer = attention_bytes_per_layer(m, tp, kv_dtype_bytes);
  SequenceState s;
  s.tokens = tokens;
  s.attention = Bytes(c.full * per_layer * d(tokens));
  s.sparse_index = Bytes(c.full * index_bytes_per_layer(m) * d(tokens));
  s.sliding_window =
      Bytes(c.sliding * per_layer * d(std::min<TokenCount>(tokens, m.sliding_window)));
  s.linear_state = Bytes(c.linear * linear_state_per_layer(m, tp));
  return s;
}

}  // namespace tpnet
