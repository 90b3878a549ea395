#pragma once
/// All-reduce cost for one block: bytes each node sends, the number of
/// sequential steps and the time its bytes take at a rate; the latency and
/// time over a link are fabric/allreduce_time.hpp.
/// Derivations: docs/formulas.md s.2 (ring, tree), s.5 (time) and s.20 (NCCL).

#include <optional>
#include <string_view>

#include "tpnet/base/units.hpp"
#include "tpnet/model/engine.hpp"

namespace tpnet {

/// The collectives NCCL runs, as nccl-tests names its binaries.
enum class Collective {
  all_reduce,
  all_gather,
  reduce_scatter,
  alltoall,
  broadcast,
  reduce,
  sendrecv,
};

/// "all_reduce", "all_gather", ... as nccl-tests names its binaries (less "_perf").
[[nodiscard]] std::string_view to_string(Collective collective);

/// "all_gather", "all_gather_perf", "allgather" (any case); nullopt otherwise.
[[nodiscard]] std::optional<Collective> collective_from_name(std::string_view name);

/// Bytes each rank sends in a ring per byte of the buffer, which is also
/// nccl-tests' busbw / algbw: 2(n-1)/n for all_reduce; (n-1)/n for
/// all_gather, reduce_scatter and alltoall; 1 for broadcast, reduce and
/// sendrecv (docs/formulas.md s.2).
[[nodiscard]] double ring_sent_factor(Collective collective, int ranks);

/// True when nccl-tests' count column is one rank's share, so the size
/// column is count x element size x ranks (all_gather, reduce_scatter,
/// alltoall).
[[nodiscard]] bool count_is_per_rank(Collective collective);

/// Latency-bound steps of one call in a ring (or chain): 2(n-1) for
/// all_reduce, n-1 for the others, 1 for sendrecv.
[[nodiscard]] int ring_steps(Collective collective, int ranks);

/// Bytes one node sends per byte of block.
/// ring: 2(N-1)/N. tree (NCCL's double binary tree): the busiest node sends
/// S/2 up and S/2 to each of two children in one tree and S/2 up as a leaf in
/// the other, 2 x S for N >= 3 (S for N = 2). 0 for N = 1.
[[nodiscard]] double allreduce_sent_factor(int ranks, CollectiveAlgorithm algorithm);

/// Sequential steps a message passes: ring 2(N-1); tree 2 x ceil(log2 N).
[[nodiscard]] int allreduce_steps(int ranks, CollectiveAlgorithm algorithm);

struct AllReduceTraffic {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  int ranks = 0;
  Bytes block;          ///< S: the tensor being reduced, same size on every node
  Bytes sent_per_node;  ///< factor x S
  int steps = 0;
  Bytes segment;  ///< ring: S/N sent per step; tree: S/2 per tree
};

/// Throws InputError when ranks < 1 or the block is negative.
[[nodiscard]] AllReduceTraffic allreduce_traffic(Bytes block, int ranks,
                                                 CollectiveAlgorithm algorithm);

/// beta term: sent bytes x 8 / rate.
[[nodiscard]] Seconds allreduce_transfer_time(const AllReduceTraffic& traffic, BitRate rate);

}  // namespace tpnet
