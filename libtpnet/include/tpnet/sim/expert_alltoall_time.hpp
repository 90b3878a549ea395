#pragma once
/// What an MoE layer's dispatch and combine (tpnet/traffic/expert_alltoall.hpp)
/// cost in time on a fabric profile, per layer and per forward
/// (docs/formulas.md s.31). Not validated on a Spark: no public measurement
/// of an EP all-to-all between Sparks exists that tpnet knows of.

#include <string>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/traffic/expert_alltoall.hpp"

namespace tpnet {

struct ExpertAllToAllTime {
  Seconds dispatch;      ///< one layer's dispatch phase
  Seconds combine;       ///< one layer's combine phase
  Seconds tp_allgather;  ///< one layer's TP all-gather after combine (DeepEP, TP > 1)
  Seconds per_layer;     ///< the three together
  int moe_layers = 0;
  Seconds per_forward;  ///< moe_layers x per_layer
  /// Dispatch and combine priced by the profile's measured all-to-all
  /// (s.31.1), not its all-reduce model: nccl-tests' size of each round,
  /// and whether either lies outside the sizes measured.
  bool measured = false;
  Bytes dispatch_size;
  Bytes combine_size;
  bool extrapolated = false;
};

/// allgather_reducescatter: each phase is a ring all-gather (reduce-scatter)
/// of the node's sent bytes over the phase's ranks. deepep_low_latency: each
/// phase is one round of concurrent writes: the fixed cost of one step plus
/// the busiest rank's bytes (imbalance x the mean). A profile with a measured
/// all-to-all prices either backend's phase as one measured round of those
/// bytes (measured_alltoall_round); the TP all-gather stays on the
/// all-reduce model. Throws InputError naming
/// `fabric` when the profile's topology cannot join every pair of the ranks:
/// a direct cable beyond 2 ranks, a ring of cables beyond 3.
[[nodiscard]] ExpertAllToAllTime expert_alltoall_time(const FabricProfile& profile,
                                                      const ExpertAllToAll& alltoall, int tp,
                                                      int moe_layers);

/// What prices an EP layout's all-to-all on `profile`, for a run whose
/// phases lie between `fewest` and `most` (the all-to-alls of its smallest
/// and largest forward): the measured all-to-all, saying where the EP
/// group's ranks differ from those measured and where the phases' sizes
/// leave the sizes measured; or the all-reduce profile.
[[nodiscard]] std::vector<std::string> expert_alltoall_pricing_notes(const FabricProfile& profile,
                                                                     const ExpertAllToAll& fewest,
                                                                     const ExpertAllToAll& most);

}  // namespace tpnet
