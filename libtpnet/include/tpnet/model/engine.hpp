#pragma once
/// Inference-engine settings, named as vLLM names them, plus the collective
/// counts a layout implies. Defaults follow the GLM-5.3 study (docs/formulas.md s.2-3).

#include <optional>
#include <string_view>

#include "tpnet/base/error.hpp"

#include "tpnet/base/units.hpp"

namespace tpnet {

/// The all-reduce algorithm whose byte count is assumed (docs/formulas.md s.2).
enum class CollectiveAlgorithm { ring, tree };

[[nodiscard]] std::string_view to_string(CollectiveAlgorithm algorithm);

/// vLLM's all-to-all backend for expert parallelism (its all2all_backend),
/// for layouts of one rank per node (docs/formulas.md s.31).
enum class AllToAllBackend {
  /// vLLM's default: dispatch all-gathers every data-parallel rank's tokens,
  /// combine reduce-scatters them back (AgRsAll2AllManager).
  allgather_reducescatter,
  /// DeepEP's low-latency kernels: one RDMA write per token and selected
  /// expert on another rank, FP8 out and BF16 back.
  deepep_low_latency,
  /// DeepEP's normal kernels. Refused: they forward RDMA traffic through
  /// NVLink peers and expect eight GPUs per node.
  deepep_high_throughput,
};

/// vLLM's names: "allgather_reducescatter", "deepep_low_latency",
/// "deepep_high_throughput".
[[nodiscard]] std::string_view to_string(AllToAllBackend backend);
/// Throws InputError at `where` naming the backends allowed.
[[nodiscard]] AllToAllBackend parse_all2all_backend(std::string_view text,
                                                    const InputLocation& where);

/// Prompt tokens one prefill forward takes when nothing says: vLLM's
/// max_num_batched_tokens default, the chunk the studies ran at.
inline constexpr TokenCount kDefaultChunkTokens = 4096;

struct EngineConfig {
  int tensor_parallel_size = 8;                             ///< --tensor-parallel-size / -tp
  TokenCount max_num_batched_tokens = kDefaultChunkTokens;  ///< chunk of a prefill forward pass
  TokenCount long_prefill_token_threshold = 0;              ///< 0 = not set
  int max_num_seqs = 256;
  int num_speculative_tokens = 0;  ///< draft tokens per request per decode forward
  int activation_bytes = 2;        ///< BF16 activations
  /// All-reduces per layer when set; unset: one per block of the layer plan
  /// whose output is reduced (2 for attention + FFN; 1 for Nemotron-H's layers).
  std::optional<int> allreduces_per_layer;
  int extra_allreduces_per_forward = 1;  ///< the vocab-parallel input embedding
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  /// How an MoE layer's tokens reach their experts under EP.
  AllToAllBackend all2all_backend = AllToAllBackend::allgather_reducescatter;
};

/// Throws InputError naming the field (`engine.max_num_seqs`, `layout.tp`) when a setting is
/// out of range.
void validate(const EngineConfig& engine);

}  // namespace tpnet
