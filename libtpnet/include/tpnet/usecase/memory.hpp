#pragma once
/// Memory on each node of an instance: the weights, NCCL's buffers, CUDA
/// graphs and the activation peak, and what is left of vLLM's
/// --gpu-memory-utilization budget for the KV cache, in bytes and in tokens.
/// The one memory-fit model behind memory, compare, check and plan.
/// Derivations: docs/formulas.md s.12.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/nccl_memory.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/engram_tables.hpp"
#include "tpnet/model/kv_cache.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/model/weights.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet {

/// NCCL's buffers at or above this share of the budget are worth the node's
/// tuned settings even when the model fits: a fifth of the memory is KV cache
/// the engine could hold instead (MemoryReport::nccl_advice).
inline constexpr double kNcclAdviceShare = 0.2;

/// Which of the node's NCCL buffer settings the fit assumes.
enum class NcclProfile {
  node_default,  ///< what NCCL picks on the node left alone (DGX Spark: 64 x 4 MiB)
  tuned,         ///< the node's tuned pair (DGX Spark: NCCL_MAX_NCHANNELS=8, NCCL_BUFFSIZE=1 MiB)
};

/// The longest sequence the memory fit reserves KV cache for when nothing
/// says: the studies' 8K context.
inline constexpr TokenCount kDefaultMaxModelLen = 8192;

/// How a deployment sets what memory depends on, beyond the engine's
/// settings. Every default is stated here, once; the node supplies the rest.
/// Field paths (the plan file's `memory.*` keys) name them in errors.
struct MemorySettings {
  std::optional<Bytes> node_memory;     ///< memory.node_memory; default: the node's usable memory
  double gpu_memory_utilization = 0.9;  ///< memory.gpu_memory_utilization (vLLM's default)
  NcclProfile nccl_profile = NcclProfile::node_default;  ///< memory.nccl_tuned
  std::optional<int> nccl_channels;           ///< memory.nccl_channels: replaces the profile's
  std::optional<Bytes> nccl_buffsize;         ///< memory.nccl_buffsize: replaces the profile's
  Bytes cuda_graphs = Bytes::gigabytes(1.0);  ///< memory.cuda_graph_memory; 0 = --enforce-eager
  double activation_factor = 12.0;  ///< memory.activation_factor: hidden-sized tensors at the peak
  int kv_cache_dtype_bytes = 2;     ///< memory.kv_cache_dtype: bf16 2, fp8 1
  TokenCount max_model_len = kDefaultMaxModelLen;  ///< memory.max_model_len
  /// memory.kv_bytes_per_token: replaces the architecture's KV bytes per
  /// token, e.g. for a model whose attention shapes are not known.
  std::optional<Bytes> kv_bytes_per_token;
  /// memory.engram_tables: where the model's Engram tables live; default:
  /// where the model file says its deployment kept them.
  std::optional<TablePlacement> engram_tables;
  /// memory.autotune_spike: what GEMM autotuning takes during vLLM's
  /// profiling run, which sizes the KV cache (DeepGEMM/CUTLASS mxfp8: ~10 GB
  /// in the DeepSeek-V4.1-Flash report). VLLM_FLASHINFER_AUTOTUNE=0 does not
  /// turn that one off. 0 = off.
  Bytes autotune_spike;
};

/// One node of one layout on one node type.
struct MemoryRequest {
  ParallelLayout layout{8, 1, 1};
  /// The prefill chunk (activation peak), activation bytes and max_num_seqs;
  /// its tensor_parallel_size is layout.tp's.
  EngineConfig engine;
  NodeSpec node;  ///< memory, its OS reserve and NCCL's measured footprint
  MemorySettings settings;
};

/// Throws InputError naming the field of the first out-of-range input.
void validate(const MemoryRequest& request);

/// The NCCL buffer settings a request resolves to: the profile's, with the
/// request's channel and buffer-size overrides. Throws InputError naming
/// `node` when the node has no measured NCCL footprint.
[[nodiscard]] NcclBuffers nccl_buffers(const MemoryRequest& request);

/// What pushes a layout over the budget, checked in this order.
enum class MemoryLimit {
  none,          ///< it fits
  weights,       ///< the weights alone exceed the budget
  nccl_buffers,  ///< weights + NCCL buffers exceed it
  runtime,       ///< ... + CUDA graphs and the activation peak exceed it
  kv_cache,      ///< the fixed parts fit, one max-model-len sequence does not
};
/// "none", "weights", "nccl_buffers", "runtime", "kv_cache"
[[nodiscard]] std::string_view to_string(MemoryLimit limit);

/// What one node holds (docs/formulas.md s.12). Fields are grouped by type
/// (8-byte values, optionals, containers, then ints and flags) to keep the
/// struct free of padding.
struct MemoryReport {
  Bytes node_memory;
  double gpu_memory_utilization = 0.0;
  Bytes budget;       ///< node_memory x gpu_memory_utilization
  Bytes os_reserved;  ///< the node's reserved_memory, what the OS keeps

  Bytes weights_bytes;      ///< weights.per_node()
  Bytes gpu_weights_bytes;  ///< weights + Engram tables in GPU memory: the model on the GPU
  Bytes autotune_spike_bytes;
  Bytes nccl_buffsize;
  Bytes nccl_bytes;
  Bytes cuda_graph_bytes;
  /// DeepEP's low-latency buffers on an EP layout that runs them (s.31); 0 otherwise.
  Bytes alltoall_buffer_bytes;
  TokenCount chunk_tokens = 0;
  double activation_factor = 0.0;
  Bytes activation_peak_bytes;
  /// weights + Engram tables counted + NCCL + CUDA graphs + all-to-all buffers + activation
  /// peak + autotune spike
  Bytes fixed_bytes;
  /// fixed_bytes + one max-model-len sequence when its size is known: what a
  /// fit needs, the one figure check's memory verdict and the fit sentence quote.
  Bytes required_bytes;
  Bytes kv_cache_bytes;   ///< budget - fixed_bytes, 0 when it does not fit
  Bytes shortfall_bytes;  ///< fixed_bytes - budget when it does not fit, else 0
  TokenCount max_model_len = 0;
  /// The stage's share of the layers whose KV cache this node keeps (1 without PP).
  double stage_layer_share = 1.0;

  /// Absent when the model lacks the shapes and none was given.
  std::optional<Bytes> kv_bytes_per_token;
  /// floor(kv_cache_bytes / kv_bytes_per_token); with sliding-window or
  /// linear layers, the tokens max-model-len sequences fill it with.
  std::optional<long long> kv_tokens;
  /// One max-model-len sequence; with a given per-token size, that x max_model_len.
  std::optional<Bytes> sequence_bytes;
  std::optional<long long> max_sequences;             ///< how many fit at once
  std::optional<TokenCount> longest_sequence_tokens;  ///< the longest one sequence can be
  std::optional<Bytes> max_num_seqs_bytes;            ///< max_num_seqs x sequence_bytes
  /// NCCL's buffers with the node's tuned settings, when they are smaller.
  std::optional<Bytes> nccl_tuned_bytes;
  /// KV-cache tokens the tuned settings' freed memory holds, when the size
  /// of a token's KV is known.
  std::optional<long long> nccl_tuned_extra_kv_tokens;

  std::string node;  ///< the node's catalog name
  /// One sentence on the fit: what the fixed parts add up to against the
  /// budget, and, when it does not fit, the part that pushes it over.
  std::string fit_summary;
  /// When the fixed parts fit, NCCL's buffers take kNcclAdviceShare of the
  /// budget or more and the node's tuned settings are smaller: the settings
  /// to use and what they free.
  std::string nccl_advice;
  std::vector<std::string> warnings;
  WeightMemory weights;
  EngramTables engram;  ///< all zero for a model without Engram tables
  /// One max-model-len sequence by layer kind, when the KV shapes are known.
  std::optional<SequenceState> sequence;

  ParallelLayout layout;
  int tp = 0;
  int nccl_ranks = 0;  ///< ranks of the largest communicator a rank joins: max(tp, ep)
  int nccl_channels = 0;
  int kv_cache_dtype_bytes = 0;
  int max_num_seqs = 0;
  MemoryLimit limit = MemoryLimit::none;
  bool nccl_tuned = false;           ///< the node's tuned NCCL profile was asked for
  bool fixed_fits = false;           ///< fixed_bytes < budget
  bool kv_per_token_given = false;   ///< from MemorySettings::kv_bytes_per_token
  bool kv_per_token_stated = false;  ///< from the model file's kv_bytes_per_token
  bool has_engram = false;           ///< the model has Engram tables
  /// The fixed parts fit and, when the KV size is known, one max-model-len sequence too.
  bool fits = false;
  std::optional<bool> max_model_len_fits;  ///< one such sequence fits in kv_cache_bytes
};

/// The memory of one node of request.layout. Throws InputError for bad inputs.
[[nodiscard]] MemoryReport analyze_memory(const ModelArch& model, const MemoryRequest& request);

struct MinTpReport {
  int tp = 0;                       ///< the smallest TP that fits; 0 when none up to kMaxTp
  std::vector<MemoryReport> tried;  ///< every size tried, the answer last
  /// Index in `tried` of the report that comes nearest to fitting: the
  /// answer when there is one, else the largest budget - fixed - one sequence.
  std::size_t closest = 0;
  /// Why the search stopped without an answer; empty when it found one.
  std::string why_none;
};

/// Tries TP 1, 2, 4, ... (request.layout is ignored: pure TP) and stops at the
/// first whose report fits: weights + NCCL + graphs + activations within the
/// budget with room for one max-model-len sequence. It also stops once NCCL,
/// graphs and activations alone exceed the budget: NCCL grows with TP, so no
/// larger TP fits.
[[nodiscard]] MinTpReport find_min_tp(const ModelArch& model, const MemoryRequest& request);

/// find_min_tp(...).tp: the smallest power-of-two TP that fits; 0 when none does.
[[nodiscard]] int min_tp(const ModelArch& model, const MemoryRequest& request);

/// The memory fit of `request` at each TP size of `tps` (its layout and
/// engine moved to each): the numbers a chart of TP sizes draws. A size the
/// model refuses is left out, except the request's own, which throws.
[[nodiscard]] std::vector<MemoryReport> memory_by_tp(const ModelArch& model,
                                                     const MemoryRequest& request,
                                                     const std::vector<int>& tps);

/// What a memory document quotes from its caller: how it names the request
/// fields its labels mention (`tpnet memory`: the flag that sets each; unset:
/// the field itself, `memory.max_model_len`), and the KV-cache dtype as
/// given (MemorySettings keeps only its bytes).
struct MemoryDocumentNames {
  std::function<std::string(std::string_view field)> field;
  std::string kv_cache_dtype = "auto";
};

/// One node's memory part by part (weights, Engram tables, NCCL, CUDA
/// graphs, activations), the KV cache left and the fit: every key of
/// `tpnet memory`'s JSON for one layout (docs/json.md).
/// The answer first: whether the model fits the layout on the node, with the
/// budget, what is left for the KV cache and how many sequences that holds;
/// when it does not fit, why.
[[nodiscard]] std::vector<std::string> memory_answer(const ModelArch& model,
                                                     const MemoryReport& report);

[[nodiscard]] Document memory_document(const ModelArch& model, const MemoryReport& report,
                                       const MemoryDocumentNames& names = {});
/// The smallest TP that fits: its report's fields with min_tp after the
/// model, then every size tried; when none fits, why, the size that comes
/// nearest and its fit, with a warning saying so.
[[nodiscard]] Document memory_document(const ModelArch& model, const MinTpReport& found,
                                       const MemoryDocumentNames& names = {});

}  // namespace tpnet
