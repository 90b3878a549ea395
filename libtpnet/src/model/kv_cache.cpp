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

/// K and V (or the MLA latent) of one attention layer for one token, per
/// rank. vLLM gives each rank max(1, kv_heads / tp) heads: below one head per
/// rank the heads are replicated. The latent is not split.
double attention_entry_bytes(const AttentionSpec& a, int tp, int dtype_bytes) {
  if (a.borrowed_kv) return 0.0;
  if (a.latent) return to_real(a.mla.kv_lora_rank + a.mla.qk_rope_head_dim) * dtype_bytes;
  const long long heads = std::max<long long>(1, ceil_div(a.kv_heads, tp));
  const int v = a.cache_pads_v ? std::max(a.head_dim, a.v_head_dim) : a.v_head_dim;
  return to_real(heads) * (a.head_dim + v) * dtype_bytes;
}

/// The DSA indexer's key for one token in one layer, on every rank.
double index_entry_bytes(const AttentionSpec& a) {
  if (!a.indexer.scores() || a.borrowed_kv) return 0.0;
  const long long dim = a.indexer.head_dim;
  return to_real(dim + kIndexScaleBytes * ceil_div(dim, kIndexQuantBlock));
}

/// Gated DeltaNet or Kimi Delta Attention state of one layer for one
/// sequence, per rank: the recurrent state (value heads x key dim x value
/// dim) and the short convolution's last conv_kernel - 1 inputs, heads split
/// over TP. Lightning attention keeps a head_dim x head_dim state per head
/// and no convolution.
double linear_state_per_layer(const LinearAttentionSpec& s, int tp) {
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
double mamba_state_per_layer(const MambaSpec& s, int tp) {
  const double heads = to_real(ceil_div(s.heads, tp));
  const double groups = to_real(std::max<long long>(1, ceil_div(s.groups, tp)));
  const double ssm = heads * s.head_dim * s.state_size * s.state_bytes;
  const double conv = std::max(0, s.conv_kernel - 1) *
                      (heads * s.head_dim + 2.0 * groups * s.state_size) * kLinearStateBytes;
  return ssm + conv;
}

/// What one layer keeps for one sequence of `tokens` tokens, per rank, added
/// to `s` `count` times. DeepSeek-V4's compressed layers (their one KV head
/// is not split) keep the last `window` keys, one compressed key per `ratio`
/// tokens (ratio > 1), at ratio 4 the indexer's key, and the compressor's
/// fixed state.
void add_layer_state(SequenceState& s, const MixerSpec& mixer, int tp, int dtype_bytes,
                     TokenCount tokens, double count) {
  const AttentionSpec& a = mixer.attention;
  const double all = to_real(tokens);
  const double windowed = to_real(std::min<TokenCount>(tokens, std::max(0, a.window)));
  if (is_attention(mixer.kind) && a.compressed) {
    const double entry = compressed_kv_entry_bytes(a.compression);
    s.sliding_window += Bytes(count * entry * windowed);
    const int ratio = a.compression.ratio;
    if (ratio > 1) {
      const double entries = to_real(tokens / ratio);
      s.attention += Bytes(count * entry * entries);
      if (has_compressed_indexer(a)) {
        s.sparse_index += Bytes(count * compressed_index_entry_bytes(a.indexer) * entries);
      }
      s.linear_state += Bytes(count * compressor_state_bytes(a));
    }
    return;
  }
  switch (mixer.kind) {
    case Mixer::attention:
      s.attention += Bytes(count * attention_entry_bytes(a, tp, dtype_bytes) * all);
      s.sparse_index += Bytes(count * index_entry_bytes(a) * all);
      break;
    case Mixer::sliding_window:
    case Mixer::chunked_attention:
      // vLLM keeps a windowed layer's last window of keys, a chunked one's
      // current chunk: at most `window` tokens either way.
      s.sliding_window += Bytes(count * attention_entry_bytes(a, tp, dtype_bytes) * windowed);
      break;
    case Mixer::linear_attention:
      s.linear_state += Bytes(count * linear_state_per_layer(mixer.linear, tp));
      break;
    case Mixer::mamba:
      s.linear_state += Bytes(count * mamba_state_per_layer(mixer.mamba, tp));
      break;
    case Mixer::cross_attention:
    case Mixer::none:
      break;
  }
}

/// Bytes one more token of context adds once a sequence is past every
/// window: full attention's K and V and indexer key, and DeepSeek-V4's
/// compressed keys' share (1/ratio of one).
double per_token_past_windows(const MixerSpec& mixer, int tp, int dtype_bytes) {
  if (mixer.kind != Mixer::attention) return 0.0;
  const AttentionSpec& a = mixer.attention;
  if (a.compressed) {
    const int ratio = a.compression.ratio;
    if (ratio <= 1) return 0.0;
    double bytes = compressed_kv_entry_bytes(a.compression) / ratio;
    if (has_compressed_indexer(a)) bytes += compressed_index_entry_bytes(a.indexer) / ratio;
    return bytes;
  }
  return attention_entry_bytes(a, tp, dtype_bytes) + index_entry_bytes(a);
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
  for (const auto& key : missing_shapes(m.layers)) {
    if (key == "mla" || key == "linear_attention" || key == "mamba") missing.push_back(key);
  }
  return missing;
}

Bytes kv_bytes_per_token(const ModelArch& m, int tp, int kv_dtype_bytes) {
  check_tp(tp);
  check_kv_dtype(kv_dtype_bytes);
  require_kv_shapes(m);
  double bytes = 0.0;
  for (const LayerRun& run : m.layers.runs()) {
    bytes += run.count * per_token_past_windows(run.layer.mixer, tp, kv_dtype_bytes);
  }
  return Bytes(bytes);
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
  for (const LayerRun& run : m.layers.runs()) {
    add_layer_state(s, run.layer.mixer, tp, kv_dtype_bytes, tokens, run.count);
  }
  return s;
}

DecodeCacheReads::DecodeCacheReads(const ModelArch& m, int tp, int kv_dtype_bytes) {
  check_tp(tp);
  check_kv_dtype(kv_dtype_bytes);
  require_kv_shapes(m);
  for (const LayerRun& layer_run : m.layers.runs()) {
    const MixerSpec& mixer = layer_run.layer.mixer;
    const AttentionSpec& a = mixer.attention;
    Run r;
    r.layers = layer_run.count;
    if (is_attention(mixer.kind) && a.compressed) {
      // The window of whole keys, then the compressed entries: all of them at
      // ratio 128, the indexer's top-k of them at ratio 4 (it scores them all).
      const double entry = compressed_kv_entry_bytes(a.compression);
      r.entry = entry;
      r.cap = std::max(0, a.window);
      r.ratio = a.compression.ratio > 1 ? a.compression.ratio : 0;
      if (r.ratio > 0 && has_compressed_indexer(a)) {
        r.index_entry = compressed_index_entry_bytes(a.indexer) / r.ratio;
        r.fixed = entry * to_real(a.indexer.top_k);  // the selected entries, past the ramp
      }
      runs_.push_back(r);
      continue;
    }
    switch (mixer.kind) {
      case Mixer::attention:
        r.entry = attention_entry_bytes(a, tp, kv_dtype_bytes);
        r.cap = std::max(0, a.indexer.top_k);
        r.index_entry = index_entry_bytes(a);
        break;
      case Mixer::sliding_window:
      case Mixer::chunked_attention:
        r.entry = attention_entry_bytes(a, tp, kv_dtype_bytes);
        r.cap = std::max(1, a.window);
        break;
      case Mixer::linear_attention:
        r.fixed = linear_state_per_layer(mixer.linear, tp);
        break;
      case Mixer::mamba:
        r.fixed = mamba_state_per_layer(mixer.mamba, tp);
        break;
      case Mixer::cross_attention:
      case Mixer::none:
        break;
    }
    runs_.push_back(r);
  }
}

Bytes DecodeCacheReads::at(TokenCount context) const {
  const double all = to_real(context);
  double bytes = 0.0;
  for (const Run& r : runs_) {
    double layer = r.index_entry * all;
    const double keys = r.cap > 0 ? to_real(std::min(context, r.cap)) : all;
    if (r.ratio > 0) {
      // DeepSeek-V4: the window's keys, and its compressed entries (all, or
      // the indexer's top-k held in `fixed` once there are that many).
      const double entries = to_real(context / r.ratio);
      layer += r.entry * keys;
      layer += r.fixed > 0.0 ? std::min(r.fixed, r.entry * entries) : r.entry * entries;
    } else {
      layer += r.entry * keys + r.fixed;
    }
    bytes += r.layers * layer;
  }
  return Bytes(bytes);
}

}  // namespace tpnet
