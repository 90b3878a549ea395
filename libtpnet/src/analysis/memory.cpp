#include "tpnet/analysis/memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "tpnet/model/params.hpp"

namespace tpnet {
namespace {

constexpr int kMaxTp = kMaxMinTp;
constexpr int kMaxNcclChannels = 64;  // NCCL's MAXCHANNELS
constexpr double kMaxNcclBuffsize = 1073741824.0;
/// The DSA indexer caches its keys in FP8 with one FP32 scale per 128 values,
/// whatever the KV cache dtype (vLLM's DeepseekV32IndexerCache).
constexpr int kIndexQuantBlock = 128;
constexpr int kIndexScaleBytes = 4;
/// Linear-attention state is kept in the model's BF16.
constexpr int kLinearStateBytes = 2;

double d(long long value) { return static_cast<double>(value); }

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

[[noreturn]] void fail(const std::string& flag, const std::string& message) {
  throw InputError(message, InputLocation::for_key(flag));
}

void check_tp(int tp) {
  if (tp < 1 || tp > kMaxTp)
    fail("--tp", fmt::format("{} is not allowed; use 1 to {}", tp, kMaxTp));
}

void check_kv_dtype(int bytes) {
  if (bytes != 1 && bytes != 2 && bytes != 4) {
    fail("--kv-cache-dtype",
         fmt::format("{} bytes per element is not a KV cache dtype; use 1 (fp8), 2 (bf16) or 4",
                     bytes));
  }
}

/// How the model's layers divide by kind of attention.
struct LayerCounts {
  int linear = 0;   ///< linear attention: fixed state per sequence
  int sliding = 0;  ///< sliding-window attention: capped at the window
  int full = 0;     ///< full attention: every token
  [[nodiscard]] int attention() const { return sliding + full; }
};

LayerCounts layer_counts(const ModelArch& m) {
  LayerCounts c;
  const int layers = std::max(0, m.num_layers);
  c.linear = std::clamp(m.linear_attention_layers, 0, layers);
  c.sliding = m.sliding_window > 0 ? std::clamp(m.sliding_window_layers, 0, layers - c.linear) : 0;
  c.full = layers - c.linear - c.sliding;
  return c;
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
                               "the model file, or pass --kv-bytes-per-token)",
                               m.name, keys),
                   InputLocation::for_key(missing.front()));
}

/// Parts of the weights vLLM does not split over TP (docs/formulas.md s.12.1).
std::vector<ReplicatedPart> replicated_parts(const ModelArch& m, int tp) {
  std::vector<ReplicatedPart> parts;
  const double h = d(m.hidden_size);
  const double attention_layers = layer_counts(m).attention();
  const ParamEstimate estimate = estimate_params(m);
  if (estimate.total.router > 0.0) {
    // ReplicatedLinear gates: every rank scores every expert.
    parts.push_back({"router", estimate.total.router, estimate.total.router, Bytes(0.0)});
  }
  if (m.mla) {
    // q_a_proj and kv_a_proj_with_mqa are ReplicatedLinear in vLLM's MLA.
    const MlaSpec& a = *m.mla;
    const double params =
        attention_layers * h * (a.q_lora_rank + a.kv_lora_rank + a.qk_rope_head_dim);
    if (params > 0.0) parts.push_back({"mla_down_projections", params, params, Bytes(0.0)});
  }
  if (m.sparse_attention_index_heads > 0 && m.sparse_attention_index_head_dim > 0) {
    // The DSA indexer (wq_b, wk, weights_proj) is replicated whole.
    const double q_in = m.mla && m.mla->q_lora_rank > 0 ? m.mla->q_lora_rank : h;
    const double heads = m.sparse_attention_index_heads;
    const double dim = m.sparse_attention_index_head_dim;
    const double params = attention_layers * (q_in * heads * dim + h * dim + h * heads);
    parts.push_back({"sparse_indexer", params, params, Bytes(0.0)});
  }
  const int kv = kv_heads(m);
  if (!m.mla && kv > 0 && tp > kv) {
    // Fewer KV heads than ranks: each rank holds whole K and V heads.
    const double per_head = attention_layers * 2.0 * h * d(effective_head_dim(m));
    const double params = per_head * kv;
    const double node = per_head * d(ceil_div(kv, tp));
    if (params > 0.0) parts.push_back({"kv_heads", params, node, Bytes(0.0)});
  }
  return parts;
}

WeightMemory weight_memory(const ModelArch& m, int tp) {
  WeightMemory w;
  w.total_params = m.total_params;
  w.replicated = replicated_parts(m, tp);
  const double bytes_per_param = m.bits_per_weight / 8.0;
  double replicated = 0.0;
  double node = 0.0;
  for (auto& part : w.replicated) {
    part.node_bytes = Bytes(part.node_params * bytes_per_param);
    replicated += part.params;
    node += part.node_params;
  }
  const double split = std::max(0.0, m.total_params - replicated);
  w.split = Bytes(split * bytes_per_param / tp);
  w.replicated_bytes = Bytes(node * bytes_per_param);
  return w;
}

std::string gb(Bytes b) { return fmt::format("{:.2f} GB", b.count() / 1e9); }

/// The longest sequence whose state fits in `space` (state grows with length).
TokenCount longest_sequence(const ModelArch& m, int tp, int dtype_bytes, Bytes space) {
  if (sequence_state(m, tp, dtype_bytes, 1).total() > space) return 0;
  TokenCount lo = 1;
  TokenCount hi = model_limits::kMaxTokens;
  if (sequence_state(m, tp, dtype_bytes, hi).total() <= space) return hi;
  while (hi - lo > 1) {
    const TokenCount mid = lo + (hi - lo) / 2;
    (sequence_state(m, tp, dtype_bytes, mid).total() <= space ? lo : hi) = mid;
  }
  return lo;
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

Bytes nccl_buffer_bytes(int channels, Bytes buffsize, int ranks) {
  if (channels < 1 || channels > kMaxNcclChannels) {
    fail("--nccl-channels", fmt::format("{} is not allowed; use 1 to {} (NCCL_MAX_NCHANNELS)",
                                        channels, kMaxNcclChannels));
  }
  if (!(buffsize.count() > 0.0) || buffsize.count() > kMaxNcclBuffsize) {
    fail("--nccl-buffsize",
         fmt::format("{} bytes is not allowed; use more than 0 up to 1GiB", buffsize.count()));
  }
  check_tp(ranks);
  if (ranks == 1) return Bytes(0.0);
  return Bytes(nccl_fit::kFixedBytes + channels * nccl_fit::connections(ranks) *
                                           nccl_fit::kBuffersPerConnection * buffsize.count());
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
  if (tokens < 0) fail("--max-model-len", fmt::format("{} tokens is not allowed", tokens));
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

void validate(const MemoryInputs& in) {
  check_tp(in.tp);
  if (!(in.node_memory.count() > 0.0)) fail("--node-memory", "must be a positive byte size");
  if (!(in.gpu_memory_utilization > 0.0 && in.gpu_memory_utilization <= 1.0)) {
    fail("--gpu-memory-utilization",
         fmt::format("{} is outside (0, 1]; it is the share of the node's memory vLLM may use, "
                     "e.g. 0.9",
                     in.gpu_memory_utilization));
  }
  (void)nccl_buffer_bytes(in.nccl_channels, in.nccl_buffsize, 1);
  if (!(in.cuda_graphs.count() >= 0.0)) fail("--cuda-graph-memory", "must not be negative");
  if (in.max_num_batched_tokens < 1 || in.max_num_batched_tokens > model_limits::kMaxTokens) {
    fail("--chunk", fmt::format("{} tokens is not allowed; use 1 to {}", in.max_num_batched_tokens,
                                model_limits::kMaxTokens));
  }
  if (in.activation_bytes < 1 || in.activation_bytes > 8) {
    fail("--activation-bytes", fmt::format("{} is not allowed; use 1 to 8", in.activation_bytes));
  }
  if (!(in.activation_factor > 0.0 && in.activation_factor <= 1000.0)) {
    fail("--activation-factor",
         fmt::format("{} is not allowed; use more than 0 up to 1000", in.activation_factor));
  }
  check_kv_dtype(in.kv_cache_dtype_bytes);
  if (in.max_model_len < 1 || in.max_model_len > model_limits::kMaxTokens) {
    fail("--max-model-len", fmt::format("{} tokens is not allowed; use 1 to {}", in.max_model_len,
                                        model_limits::kMaxTokens));
  }
  if (in.max_num_seqs < 1) {
    fail("--max-num-seqs", fmt::format("{} is not allowed; use 1 or more", in.max_num_seqs));
  }
  if (in.kv_bytes_per_token && !(in.kv_bytes_per_token->count() > 0.0)) {
    fail("--kv-bytes-per-token", "must be a positive byte size");
  }
}

MemoryReport analyze_memory(const ModelArch& m, const MemoryInputs& in) {
  validate(in);
  MemoryReport r;
  r.tp = in.tp;
  r.node_memory = in.node_memory;
  r.gpu_memory_utilization = in.gpu_memory_utilization;
  r.budget = in.node_memory * in.gpu_memory_utilization;

  r.weights = weight_memory(m, in.tp);
  r.weights_bytes = r.weights.per_node();
  r.nccl_channels = in.nccl_channels;
  r.nccl_buffsize = in.nccl_buffsize;
  r.nccl_bytes = nccl_buffer_bytes(in.nccl_channels, in.nccl_buffsize, in.tp);
  r.cuda_graph_bytes = in.cuda_graphs;
  r.chunk_tokens = in.max_num_batched_tokens;
  r.activation_factor = in.activation_factor;
  r.activation_peak_bytes = Bytes(d(in.max_num_batched_tokens) * d(m.hidden_size) *
                                  in.activation_bytes * in.activation_factor);
  r.fixed_bytes = r.weights_bytes + r.nccl_bytes + r.cuda_graph_bytes + r.activation_peak_bytes;
  r.fixed_fits = r.fixed_bytes < r.budget;
  r.kv_cache_bytes = r.fixed_fits ? r.budget - r.fixed_bytes : Bytes(0.0);
  r.shortfall_bytes = r.fixed_fits ? Bytes(0.0) : r.fixed_bytes - r.budget;

  r.kv_cache_dtype_bytes = in.kv_cache_dtype_bytes;
  r.max_model_len = in.max_model_len;
  r.max_num_seqs = in.max_num_seqs;
  const auto missing = kv_cache_shapes_missing(m);
  if (in.kv_bytes_per_token) {
    r.kv_per_token_given = true;
    r.kv_bytes_per_token = *in.kv_bytes_per_token;
    r.sequence_bytes = *in.kv_bytes_per_token * d(in.max_model_len);
    r.longest_sequence_tokens =
        static_cast<TokenCount>(std::floor(r.kv_cache_bytes / *in.kv_bytes_per_token));
  } else if (missing.empty()) {
    r.kv_bytes_per_token = kv_bytes_per_token(m, in.tp, in.kv_cache_dtype_bytes);
    r.sequence = sequence_state(m, in.tp, in.kv_cache_dtype_bytes, in.max_model_len);
    r.sequence_bytes = r.sequence->total();
    r.longest_sequence_tokens =
        longest_sequence(m, in.tp, in.kv_cache_dtype_bytes, r.kv_cache_bytes);
  } else {
    std::string keys;
    for (const auto& key : missing) keys += (keys.empty() ? "" : ", ") + key;
    r.warnings.push_back(fmt::format(
        "{} states no {} shapes, so the KV cache is given in bytes only; pass "
        "--kv-bytes-per-token (or add the shapes to the model file) for tokens and sequences",
        m.name, keys));
  }
  if (m.attention == AttentionKind::hybrid_linear && layer_counts(m).linear == 0 &&
      r.kv_bytes_per_token && !r.kv_per_token_given) {
    r.warnings.push_back(fmt::format(
        "{} is a hybrid linear-attention model but states no linear_attention_layers: every "
        "layer is counted as full attention, which overstates its KV cache",
        m.name));
  }

  if (r.kv_bytes_per_token && r.kv_bytes_per_token->count() > 0.0) {
    r.kv_tokens = static_cast<long long>(std::floor(r.kv_cache_bytes / *r.kv_bytes_per_token));
  }
  if (r.sequence_bytes) {
    const Bytes seq = *r.sequence_bytes;
    r.max_model_len_fits = r.fixed_fits && seq <= r.kv_cache_bytes;
    if (seq.count() > 0.0) {
      r.max_sequences = static_cast<long long>(std::floor(r.kv_cache_bytes / seq));
    }
    r.max_num_seqs_bytes = seq * in.max_num_seqs;
  }
  r.fits = r.fixed_fits && r.max_model_len_fits.value_or(true);

  if (!r.fixed_fits) {
    r.warnings.push_back(fmt::format(
        "at TP{} the weights ({}), NCCL buffers ({}), CUDA graphs and activations need {} per "
        "node, {} more than the {} budget ({} x {})",
        in.tp, gb(r.weights_bytes), gb(r.nccl_bytes), gb(r.fixed_bytes), gb(r.shortfall_bytes),
        gb(r.budget), in.gpu_memory_utilization, gb(in.node_memory)));
  } else if (r.max_model_len_fits == false) {
    r.warnings.push_back(fmt::format(
        "one sequence of --max-model-len {} tokens needs {} of KV cache but {} is left: vLLM "
        "would refuse to start; the longest that fits is {} tokens",
        in.max_model_len, gb(*r.sequence_bytes), gb(r.kv_cache_bytes),
        r.longest_sequence_tokens.value_or(0)));
  } else if (r.max_num_seqs_bytes && *r.max_num_seqs_bytes > r.kv_cache_bytes) {
    r.warnings.push_back(fmt::format(
        "--max-num-seqs {} sequences of {} tokens need {} of KV cache; the {} left holds {} of "
        "them at once, so vLLM queues or preempts the rest",
        in.max_num_seqs, in.max_model_len, gb(*r.max_num_seqs_bytes), gb(r.kv_cache_bytes),
        r.max_sequences.value_or(0)));
  }
  if (!r.fits && in.tp > 1) {
    const Bytes tuned =
        nccl_buffer_bytes(nccl_fit::kTunedChannels, Bytes(nccl_fit::kTunedBuffsize), in.tp);
    if (tuned < r.nccl_bytes) {
      r.warnings.push_back(
          fmt::format("NCCL_MAX_NCHANNELS=8 and NCCL_BUFFSIZE=1048576 would free {} per node "
                      "(--nccl-channels 8 --nccl-buffsize 1MiB)",
                      gb(r.nccl_bytes - tuned)));
    }
  }
  return r;
}

MinTpReport find_min_tp(const ModelArch& m, const MemoryInputs& inputs) {
  MinTpReport out;
  MemoryInputs in = inputs;
  auto margin = [](const MemoryReport& r) {
    return (r.budget - r.fixed_bytes - r.sequence_bytes.value_or(Bytes(0.0))).count();
  };
  for (int tp = 1; tp <= kMaxMinTp; tp *= 2) {
    in.tp = tp;
    out.tried.push_back(analyze_memory(m, in));
    const MemoryReport& r = out.tried.back();
    if (margin(r) > margin(out.tried[out.closest])) out.closest = out.tried.size() - 1;
    if (r.fits) {
      out.tp = tp;
      out.closest = out.tried.size() - 1;
      break;
    }
    // NCCL only grows with TP (s.12.2): once it, the graphs and the
    // activations fill the budget, no larger TP can fit.
    if (r.nccl_bytes + r.cuda_graph_bytes + r.activation_peak_bytes >= r.budget) break;
  }
  return out;
}

int min_tp(const ModelArch& m, const MemoryInputs& inputs) { return find_min_tp(m, inputs).tp; }

}  // namespace tpnet
