#pragma once
/// What an MoE layer's dispatch and combine (tpnet/traffic/expert_alltoall.hpp)
/// cost in time on a fabric profile, per layer and per forward
/// (docs/formulas.md s.31). Not validated on a Spark: no public measurement
/// of an EP all-to-all between Sparks exists that tpnet knows of.

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
};

/// allgather_reducescatter: each phase is a ring all-gather (reduce-scatter)
/// of the node's sent bytes over the phase's ranks. deepep_low_latency: each
/// phase is one round of concurrent writes: the fixed cost of one step plus
/// the busiest rank's bytes (imbalance x the mean). Throws InputError naming
/// `fabric` when the profile's topology cannot join every pair of the ranks:
/// a direct cable beyond 2 ranks, a ring of cables beyond 3.
[[nodiscard]] ExpertAllToAllTime expert_alltoall_time(const FabricProfile& profile,
                                                      const ExpertAllToAll& alltoall, int tp,
                                                      int moe_layers);

}  // namespace tpnet
