#pragma once
/// The collectives nccl-tests measures, and what its bus bandwidth means for
/// each (nccl-tests' doc/PERFORMANCE.md; docs/calibration.md).

#include <optional>
#include <string_view>

namespace tpnet {

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

/// busbw / algbw on `ranks` ranks: 2(n-1)/n for all_reduce; (n-1)/n for
/// all_gather, reduce_scatter and alltoall; 1 for broadcast, reduce and
/// sendrecv. This is also the share of the buffer each rank sends in a ring.
[[nodiscard]] double ring_sent_factor(Collective collective, int ranks);

/// True when nccl-tests' count column is one rank's share, so the size
/// column is count x element size x ranks (all_gather, reduce_scatter,
/// alltoall).
[[nodiscard]] bool count_is_per_rank(Collective collective);

/// Latency-bound steps of one call in a ring (or chain): 2(n-1) for
/// all_reduce, n-1 for the others, 1 for sendrecv.
[[nodiscard]] int ring_steps(Collective collective, int ranks);

}  // namespace tpnet
