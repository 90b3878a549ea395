#pragma once
/// What one MoE layer's dispatch and combine send under expert parallelism
/// with data-parallel attention, by vLLM's all-to-all backend: bytes and
/// messages per node, the busiest rank's share under top-k routing, and the
/// buffers the backend keeps (docs/formulas.md s.31). Priced on a fabric in
/// tpnet/sim/expert_alltoall_time.hpp.

#include <optional>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// How dispatch carries a token's hidden state under DeepEP low latency.
enum class DispatchPrecision { fp8, bf16 };

/// The all-to-all's settings besides the engine's backend.
struct ExpertAllToAllSettings {
  DispatchPrecision dispatch = DispatchPrecision::fp8;
  /// The busiest rank's expert copies over the mean (>= 1). Unset: what
  /// uniform random top-k routing gives, a floor real routers exceed.
  std::optional<double> routing_imbalance;
  /// DeepEP low latency's buffers hold this many tokens per rank (vLLM's
  /// VLLM_MOE_DP_CHUNK_SIZE, 256 by default).
  TokenCount max_tokens_per_rank = 256;
  /// vLLM's VLLM_DEEPEP_BUFFER_SIZE_MB: the NVLink buffer DeepEP allocates
  /// even with one GPU per node (1,024 MiB by default).
  Bytes nvlink_buffer = Bytes::mebibytes(1024.0);
};

/// One MoE layer's dispatch and combine for one forward of `tokens` tokens
/// on each data-parallel rank, seen from one node.
struct ExpertAllToAll {
  AllToAllBackend backend = AllToAllBackend::allgather_reducescatter;
  int ranks = 1;  ///< ranks the two phases span: ep, or 1 when dp = 1 (no all-to-all)
  double tokens_per_rank = 0.0;          ///< tokens each rank dispatches
  long long dispatch_width = 0;          ///< hidden or latent width carried
  Bytes dispatch_message;                ///< one message (DeepEP) or one gathered row (AgRs)
  Bytes combine_message;                 ///< one message or one reduced row
  Bytes dispatch_sent;                   ///< per node, mean
  Bytes combine_sent;                    ///< per node, mean
  double messages_per_phase = 0.0;       ///< per node: ring steps (AgRs) or RDMA writes (DeepEP)
  double remote_copies_per_token = 0.0;  ///< expert copies a token sends off its node
  double imbalance = 1.0;                ///< busiest rank's copies over the mean (DeepEP)
  bool imbalance_given = false;          ///< from the settings, not the uniform floor
  /// TP > 1 and DP > 1 (vLLM's sequence-parallel MoE, either backend): each
  /// TP rank dispatches 1/tp of the tokens and the combined outputs are
  /// all-gathered in the TP group; this is what one node sends of that.
  Bytes tp_allgather_sent;
  /// DP = 1 (EP inside the TP group): no all-to-all; the MoE layer keeps its
  /// TP all-reduce.
  bool keeps_tp_allreduce = false;
};

/// Throws InputError naming `layout.ep` for a layout without EP or a dense
/// model, and `engine.all2all_backend` for deepep_high_throughput.
[[nodiscard]] ExpertAllToAll expert_alltoall(const ModelArch& model, const EngineConfig& engine,
                                             const ParallelLayout& layout,
                                             const ExpertAllToAllSettings& settings,
                                             double tokens_per_dp_rank);

/// The expected largest of `samples` independent standard normal draws
/// (numerically integrated): how far above the mean the busiest of that many
/// ranks lands, in standard deviations.
[[nodiscard]] double expected_max_standard_normal(int samples);

/// Uniform random top-k routing of `tokens` tokens on each of `ranks` ranks,
/// `experts` experts spread evenly: the busiest rank's expected expert copies
/// over the mean (normal approximation of the hypergeometric counts).
[[nodiscard]] double uniform_routing_imbalance(int experts, int experts_per_token, int ranks,
                                               double tokens_per_rank);

/// Expected other ranks a token's top-k experts reach when `experts` are
/// spread evenly over `ranks` ranks: (ranks - 1)(1 - C(E - E/ranks, k)/C(E, k)).
[[nodiscard]] double expected_remote_ranks(int experts, int experts_per_token, int ranks);

/// The memory DeepEP's low-latency mode keeps on each rank: its RDMA buffer
/// (DeepEP's get_low_latency_rdma_size_hint) plus vLLM's NVLink buffer.
[[nodiscard]] Bytes deepep_low_latency_buffer(const ModelArch& model,
                                              const ExpertAllToAllSettings& settings, int ranks);

}  // namespace tpnet
