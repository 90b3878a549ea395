#include "tpnet/sim/expert_alltoall_time.hpp"

#include <fmt/format.h>

#include "tpnet/base/error.hpp"

namespace tpnet {
namespace {

// Three nodes on a ring are each other's neighbours; from four on, some
// pairs are two hops apart and nothing forwards between them.
constexpr int kLargestAllToAllRing = 3;

void require_every_pair_joined(const FabricProfile& profile, int ranks) {
  const bool cable_too_small = profile.topology == FabricTopology::direct && ranks > 2;
  const bool ring_too_large =
      profile.topology == FabricTopology::ring && ranks > kLargestAllToAllRing;
  const bool beyond_measured = profile.max_ranks > 0 && ranks > profile.max_ranks;
  if (cable_too_small || ring_too_large || beyond_measured) {
    throw InputError(
        fmt::format("an all-to-all over {} ranks sends between every pair of nodes; profile {} "
                    "joins them by a {}, which links each node to its neighbours only: give a "
                    "switch profile, auto or nominal",
                    ranks, profile.name, to_string(profile.topology)),
        InputLocation::for_key("fabric"));
  }
}

/// One round of concurrent writes moving `bytes` from the busiest node: one
/// step's fixed cost and the bytes at the profile's per-byte cost (a
/// two-rank all-gather is exactly one such step).
Seconds concurrent_round(const FabricProfile& profile, Bytes bytes) {
  return fabric_allgather(profile, bytes, 2);
}

}  // namespace

ExpertAllToAllTime expert_alltoall_time(const FabricProfile& profile,
                                        const ExpertAllToAll& alltoall, int tp, int moe_layers) {
  ExpertAllToAllTime out;
  out.moe_layers = moe_layers;
  if (alltoall.ranks > 1) {
    require_every_pair_joined(profile, alltoall.ranks);
    if (alltoall.backend == AllToAllBackend::allgather_reducescatter) {
      out.dispatch = fabric_allgather(profile, alltoall.dispatch_sent, alltoall.ranks);
      // A ring reduce-scatter sends what a ring all-gather of its result does.
      out.combine = fabric_allgather(profile, alltoall.combine_sent, alltoall.ranks);
    } else {
      out.dispatch = concurrent_round(profile, alltoall.dispatch_sent * alltoall.imbalance);
      out.combine = concurrent_round(profile, alltoall.combine_sent * alltoall.imbalance);
    }
  }
  if (tp > 1 && alltoall.tp_allgather_sent.count() > 0.0) {
    out.tp_allgather = fabric_allgather(profile, alltoall.tp_allgather_sent, tp);
  }
  out.per_layer = out.dispatch + out.combine + out.tp_allgather;
  out.per_forward = out.per_layer * static_cast<double>(moe_layers);
  return out;
}

}  // namespace tpnet
