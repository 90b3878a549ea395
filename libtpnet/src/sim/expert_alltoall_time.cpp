#include "tpnet/sim/expert_alltoall_time.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "tpnet/base/error.hpp"
#include "tpnet/base/quantity_text.hpp"

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

/// The bytes the busiest rank sends in one phase: DeepEP's carry the routing
/// imbalance; an all-gather or reduce-scatter sends every row to every rank,
/// whatever the routing.
Bytes busiest_rank_sent(const ExpertAllToAll& alltoall, Bytes mean_sent) {
  return alltoall.backend == AllToAllBackend::deepep_low_latency ? mean_sent * alltoall.imbalance
                                                                 : mean_sent;
}

void price_by_measured_alltoall(const MeasuredAllToAll& measured, const ExpertAllToAll& alltoall,
                                ExpertAllToAllTime& out) {
  const MeasuredAllToAllRound dispatch = measured_alltoall_round(
      measured, busiest_rank_sent(alltoall, alltoall.dispatch_sent), alltoall.ranks);
  const MeasuredAllToAllRound combine = measured_alltoall_round(
      measured, busiest_rank_sent(alltoall, alltoall.combine_sent), alltoall.ranks);
  out.measured = true;
  out.dispatch = dispatch.time;
  out.combine = combine.time;
  out.dispatch_size = dispatch.size;
  out.combine_size = combine.size;
  out.extrapolated = dispatch.extrapolated || combine.extrapolated;
}

}  // namespace

ExpertAllToAllTime expert_alltoall_time(const FabricProfile& profile,
                                        const ExpertAllToAll& alltoall, int tp, int moe_layers) {
  ExpertAllToAllTime out;
  out.moe_layers = moe_layers;
  if (alltoall.ranks > 1) {
    require_every_pair_joined(profile, alltoall.ranks);
    if (profile.alltoall) {
      price_by_measured_alltoall(*profile.alltoall, alltoall, out);
    } else if (alltoall.backend == AllToAllBackend::allgather_reducescatter) {
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

std::vector<std::string> expert_alltoall_pricing_notes(const FabricProfile& profile,
                                                       const ExpertAllToAll& fewest,
                                                       const ExpertAllToAll& most) {
  std::vector<std::string> notes;
  if (!profile.alltoall) {
    notes.push_back(fmt::format(
        "all-to-all priced on the all-reduce profile {}: no measured all-to-all (a calibration's "
        "alltoall section prices it instead, docs/formulas.md s.31.1)",
        describe(profile)));
    return notes;
  }
  const MeasuredAllToAll& measured = *profile.alltoall;
  notes.push_back(
      fmt::format("all-to-all {}: each dispatch and combine one round of the busiest rank's bytes "
                  "(docs/formulas.md s.31.1)",
                  describe(measured)));
  const int ranks = std::max(fewest.ranks, most.ranks);
  if (ranks != measured.ranks) {
    notes.push_back(fmt::format(
        "the all-to-all was measured at {} ranks, the EP group has {}: its fixed time and rate "
        "are taken as they are at {} ranks",
        measured.ranks, ranks, ranks));
  }
  if (ranks < 2) return notes;
  std::vector<double> sizes;
  for (const ExpertAllToAll* a : {&fewest, &most}) {
    for (const Bytes sent : {a->dispatch_sent, a->combine_sent}) {
      sizes.push_back(
          measured_alltoall_round(measured, busiest_rank_sent(*a, sent), ranks).size.count());
    }
  }
  const auto [smallest, largest] = std::minmax_element(sizes.begin(), sizes.end());
  if (*smallest < measured.min_size.count() || *largest > measured.max_size.count()) {
    notes.push_back(fmt::format(
        "extrapolated: the all-to-all rounds span {} to {} (nccl-tests' size), the sweep "
        "measured {} to {}",
        format_quantity(*smallest, "B"), format_quantity(*largest, "B"),
        format_quantity(measured.min_size.count(), "B"),
        format_quantity(measured.max_size.count(), "B")));
  }
  return notes;
}

}  // namespace tpnet
