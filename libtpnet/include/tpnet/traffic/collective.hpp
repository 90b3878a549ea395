#pragma once
/// All-reduce cost for one block: bytes each node sends, the number of
/// sequential steps, and the alpha-beta time over a link.
/// Derivations: docs/formulas.md s.2 (ring, tree), s.5 (time) and s.20 (NCCL).

#include <optional>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/nccl_model.hpp"
#include "tpnet/model/engine.hpp"

namespace tpnet {

/// Bytes one node sends per byte of block.
/// ring: 2(N-1)/N. tree (NCCL's double binary tree): the busiest node sends
/// S/2 up and S/2 to each of two children in one tree and S/2 up as a leaf in
/// the other, 2 x S for N >= 3 (S for N = 2). 0 for N = 1.
[[nodiscard]] double allreduce_sent_factor(int ranks, CollectiveAlgorithm algorithm);

/// Sequential steps a message passes: ring 2(N-1); tree 2 x ceil(log2 N).
[[nodiscard]] int allreduce_steps(int ranks, CollectiveAlgorithm algorithm);

struct AllReducePlan {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  int ranks = 0;
  Bytes block;          ///< S: the tensor being reduced, same size on every node
  Bytes sent_per_node;  ///< factor x S
  int steps = 0;
  Bytes segment;  ///< ring: S/N sent per step; tree: S/2 per tree
};

/// Throws InputError when ranks < 1 or the block is negative.
[[nodiscard]] AllReducePlan plan_allreduce(Bytes block, int ranks, CollectiveAlgorithm algorithm);

/// alpha of a plain alpha-beta model: base + steps x per_step (0 for N = 1).
[[nodiscard]] Seconds allreduce_latency(const AllReducePlan& plan, const StepLatency& latency);

/// The NCCL setup an all-reduce of `plan` over `link` is priced with: the
/// link's NCCL settings with ranks = N, nodes = N (one GPU a node), the link's
/// rate, and, unless the link says otherwise, only the plan's algorithm.
[[nodiscard]] NcclSetup nccl_setup(const AllReducePlan& plan, const Link& link);

/// One all-reduce's fixed latency and how it was priced.
struct AllReduceLatency {
  Seconds alpha;
  /// NCCL's pick (and its runners-up) when NCCL's model priced alpha: the
  /// chosen pair's latency, size-dependent factors included. nullopt under a
  /// user's alpha-beta override.
  std::optional<NcclChoice> nccl;
};

/// alpha by the link's latency model (docs/formulas.md s.5 and s.20).
[[nodiscard]] AllReduceLatency price_allreduce_latency(const AllReducePlan& plan, const Link& link);
/// price_allreduce_latency(plan, link).alpha.
[[nodiscard]] Seconds allreduce_latency(const AllReducePlan& plan, const Link& link);
/// beta term: sent bytes x 8 / rate.
[[nodiscard]] Seconds allreduce_transfer_time(const AllReducePlan& plan, BitRate rate);
/// alpha + beta.
[[nodiscard]] Seconds allreduce_time(const AllReducePlan& plan, const Link& link);

/// Which term dominates an all-reduce.
enum class CommRegime { latency_bound, bandwidth_bound };
[[nodiscard]] std::string_view to_string(CommRegime regime);
/// latency-bound when the fixed latency is at least the transfer time at `rate`.
[[nodiscard]] CommRegime classify(const AllReducePlan& plan, const Link& link);

}  // namespace tpnet
