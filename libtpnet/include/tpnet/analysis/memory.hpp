#pragma once
/// Memory on each node of a tensor-parallel instance (DOMAIN.md s.8): the
/// weights, NCCL's buffers, CUDA graphs and the activation peak, and what is
/// left of vLLM's --gpu-memory-utilization budget for the KV cache, in bytes
/// and in tokens. Derivations: docs/formulas.md s.12.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/error.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/units.hpp"

namespace tpnet {

/// Bytes per KV cache element for vLLM's --kv-cache-dtype: `auto`, `bf16`,
/// `bfloat16`, `fp16`, `float16`, `half` = 2 (auto = the BF16 activations);
/// `fp8`, `fp8_e4m3`, `fp8_e5m2` = 1. Throws InputError naming `where` otherwise.
[[nodiscard]] int parse_kv_cache_dtype(std::string_view name, const InputLocation& where);

/// NCCL's per-rank buffer footprint, fitted to DOMAIN.md s.8's two GB10 points
/// at TP8 (docs/formulas.md s.12.2):
///   64 channels x 4 MiB (NCCL's defaults)           ~37 GB per rank
///   NCCL_MAX_NCHANNELS=8, NCCL_BUFFSIZE=1048576     ~11 GB per rank
/// Model: fixed + channels x connections(N) x buffers_per_connection x buffsize,
/// with connections(N) = 2(N-1), a send and a receive connection to each peer.
namespace nccl_fit {
inline constexpr int kRanks = 8;
inline constexpr int kDefaultChannels = 64;
inline constexpr double kDefaultBuffsize = 4.0 * 1048576.0;
inline constexpr double kDefaultBytes = 37e9;
inline constexpr int kTunedChannels = 8;
inline constexpr double kTunedBuffsize = 1048576.0;
inline constexpr double kTunedBytes = 11e9;

/// Connections one rank holds per channel: a send and a receive to each of N-1 peers.
constexpr double connections(int ranks) { return 2.0 * (ranks - 1); }

/// Buffers of `buffsize` bytes per connection (fitted): 7.1416.
inline constexpr double kBuffersPerConnection =
    (kDefaultBytes - kTunedBytes) /
    (connections(kRanks) * (kDefaultChannels * kDefaultBuffsize - kTunedChannels * kTunedBuffsize));

/// What does not change with channels or buffer size (fitted): 10.16 GB.
inline constexpr double kFixedBytes =
    kTunedBytes - kTunedChannels * connections(kRanks) * kBuffersPerConnection * kTunedBuffsize;
}  // namespace nccl_fit

/// NCCL buffers per rank for `channels` (NCCL_MAX_NCHANNELS, 1-64) of
/// `buffsize` (NCCL_BUFFSIZE) over `ranks` ranks; 0 for one rank (no
/// communicator). Throws InputError naming --nccl-channels, --nccl-buffsize or --tp.
[[nodiscard]] Bytes nccl_buffer_bytes(int channels, Bytes buffsize, int ranks);

/// Bytes of KV cache one token of context adds on each rank while a sequence
/// is shorter than any sliding window: full-attention K and V (GQA/MHA heads
/// split over TP, one head per rank when TP exceeds the KV heads), or the MLA
/// latent (kv_lora_rank + qk_rope_head_dim, on every rank), plus the DSA
/// indexer's FP8 keys, over every attention layer (linear-attention layers
/// keep no per-token cache). Throws InputError naming the model key when the
/// shapes are missing (kv_cache_shapes_missing) or --tp / --kv-cache-dtype when out of range.
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
  Bytes linear_state;    ///< linear-attention (Gated DeltaNet) layers: fixed per sequence

  [[nodiscard]] Bytes total() const {
    return attention + sparse_index + sliding_window + linear_state;
  }
};

/// The cache one sequence of `tokens` tokens holds on each rank. Linear
/// attention state is BF16 whatever the KV cache dtype (vLLM's mamba state
/// dtype follows the model). Throws as kv_bytes_per_token does.
[[nodiscard]] SequenceState sequence_state(const ModelArch& model, int tp, int kv_dtype_bytes,
                                           TokenCount tokens);

/// What a node offers and how the engine is set; defaults are a DGX Spark
/// under vLLM's defaults and NCCL's own (DOMAIN.md s.8).
struct MemoryInputs {
  int tp = 8;                                               ///< --tensor-parallel-size
  Bytes node_memory = Bytes::gigabytes(121.0);              ///< --node-memory: usable of 128 GB
  double gpu_memory_utilization = 0.9;                      ///< vLLM's default
  int nccl_channels = nccl_fit::kDefaultChannels;           ///< NCCL_MAX_NCHANNELS
  Bytes nccl_buffsize = Bytes(nccl_fit::kDefaultBuffsize);  ///< NCCL_BUFFSIZE
  Bytes cuda_graphs = Bytes::gigabytes(1.0);  ///< --cuda-graph-memory; 0 = --enforce-eager
  TokenCount max_num_batched_tokens = 4096;   ///< the prefill chunk
  int activation_bytes = 2;                   ///< BF16 activations
  double activation_factor = 12.0;            ///< hidden-sized tensors alive at the peak
  int kv_cache_dtype_bytes = 2;               ///< --kv-cache-dtype: bf16 2, fp8 1
  TokenCount max_model_len = 8192;            ///< --max-model-len
  int max_num_seqs = 256;                     ///< --max-num-seqs
  /// Replaces the architecture's KV bytes per token (--kv-bytes-per-token),
  /// e.g. for a model whose attention shapes are not known.
  std::optional<Bytes> kv_bytes_per_token;
};

/// Throws InputError naming the flag of the first out-of-range input.
void validate(const MemoryInputs& inputs);

/// A part of the weights every rank holds whole (or, for KV heads, in part)
/// instead of 1/TP of it.
struct ReplicatedPart {
  std::string name;          ///< "router", "mla_down_projections", "sparse_indexer", "kv_heads"
  double params = 0.0;       ///< the part's parameters in the whole model
  double node_params = 0.0;  ///< what each rank holds of them
  Bytes node_bytes;          ///< node_params at the model's bits per weight (set by weight_memory)
};

struct WeightMemory {
  double total_params = 0.0;  ///< the model's stated total
  std::vector<ReplicatedPart> replicated;
  Bytes split;             ///< per rank: (total - replicated parts) x bits / 8 / TP
  Bytes replicated_bytes;  ///< per rank: the replicated parts' node_params x bits / 8

  [[nodiscard]] Bytes per_node() const { return split + replicated_bytes; }
};

/// What one node holds at one TP size (docs/formulas.md s.12). Fields are
/// grouped by type (8-byte values, optionals, containers, then ints and flags)
/// to keep the struct free of padding.
struct MemoryReport {
  Bytes node_memory;
  double gpu_memory_utilization = 0.0;
  Bytes budget;  ///< node_memory x gpu_memory_utilization

  Bytes weights_bytes;  ///< weights.per_node()
  Bytes nccl_buffsize;
  Bytes nccl_bytes;
  Bytes cuda_graph_bytes;
  TokenCount chunk_tokens = 0;
  double activation_factor = 0.0;
  Bytes activation_peak_bytes;
  Bytes fixed_bytes;      ///< weights + NCCL + CUDA graphs + activation peak
  Bytes kv_cache_bytes;   ///< budget - fixed_bytes, 0 when it does not fit
  Bytes shortfall_bytes;  ///< fixed_bytes - budget when it does not fit, else 0
  TokenCount max_model_len = 0;

  /// Absent when the model lacks the shapes and none was given.
  std::optional<Bytes> kv_bytes_per_token;
  std::optional<long long> kv_tokens;  ///< floor(kv_cache_bytes / kv_bytes_per_token)
  /// One max-model-len sequence; with a given per-token size, that x max_model_len.
  std::optional<Bytes> sequence_bytes;
  std::optional<long long> max_sequences;             ///< how many fit at once
  std::optional<TokenCount> longest_sequence_tokens;  ///< the longest one sequence can be
  std::optional<Bytes> max_num_seqs_bytes;            ///< max_num_seqs x sequence_bytes

  std::vector<std::string> warnings;
  WeightMemory weights;
  /// One max-model-len sequence by layer kind, when the KV shapes are known.
  std::optional<SequenceState> sequence;

  int tp = 0;
  int nccl_channels = 0;
  int kv_cache_dtype_bytes = 0;
  int max_num_seqs = 0;
  bool fixed_fits = false;          ///< fixed_bytes < budget
  bool kv_per_token_given = false;  ///< from MemoryInputs::kv_bytes_per_token
  /// The fixed parts fit and, when the KV size is known, one max-model-len sequence too.
  bool fits = false;
  std::optional<bool> max_model_len_fits;  ///< one such sequence fits in kv_cache_bytes
};

/// The memory of one node at inputs.tp. Throws InputError for bad inputs.
[[nodiscard]] MemoryReport analyze_memory(const ModelArch& model, const MemoryInputs& inputs);

/// The TP sizes min_tp tries: 1, 2, 4, ... up to kMaxMinTp.
inline constexpr int kMaxMinTp = 1024;

struct MinTpReport {
  int tp = 0;                       ///< the smallest TP that fits; 0 when none up to kMaxMinTp
  std::vector<MemoryReport> tried;  ///< every size tried, the answer last
  /// Index in `tried` of the report that comes nearest to fitting: the
  /// answer when there is one, else the largest budget - fixed - one sequence.
  std::size_t closest = 0;
};

/// Tries TP 1, 2, 4, ... (inputs.tp is ignored) and stops at the first whose
/// report fits: weights + NCCL + graphs + activations within the budget with
/// room for one max-model-len sequence. It also stops once NCCL, graphs and
/// activations alone exceed the budget: NCCL grows with TP, so no larger TP fits.
[[nodiscard]] MinTpReport find_min_tp(const ModelArch& model, const MemoryInputs& inputs);

/// find_min_tp(...).tp: the smallest power-of-two TP that fits; 0 when none does.
[[nodiscard]] int min_tp(const ModelArch& model, const MemoryInputs& inputs);

}  // namespace tpnet
