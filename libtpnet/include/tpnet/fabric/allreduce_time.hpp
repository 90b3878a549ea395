#pragma once
/// An all-reduce over a link: its latency (the settings' alpha-beta override
/// or NCCL's model), its whole alpha-beta time, and whether latency or bytes
/// dominate. Derivations: docs/formulas.md s.5 (time) and s.20 (NCCL).

#include <optional>
#include <string_view>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/collective_settings.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/nccl_model.hpp"
#include "tpnet/traffic/collective.hpp"

namespace tpnet {

/// alpha of a plain alpha-beta model: base + steps x per_step (0 for N = 1).
[[nodiscard]] Seconds allreduce_latency(const AllReduceTraffic& traffic,
                                        const StepLatency& latency);

/// The NCCL setup an all-reduce of `traffic` over `link` is priced with: the
/// settings' NCCL setup with ranks = N, nodes = N (one GPU a node), the link's
/// rate, and, unless the settings say otherwise, only the all-reduce's
/// algorithm.
[[nodiscard]] NcclSetup nccl_setup(const AllReduceTraffic& traffic, const Link& link,
                                   const CollectiveSettings& settings);

/// One all-reduce's fixed latency and how it was priced.
struct AllReduceLatency {
  Seconds alpha;
  /// NCCL's pick (and its runners-up) when NCCL's model priced alpha: the
  /// chosen pair's latency, size-dependent factors included. nullopt under a
  /// user's alpha-beta override.
  std::optional<NcclChoice> nccl;
};

/// alpha by the settings' latency model (docs/formulas.md s.5 and s.20).
[[nodiscard]] AllReduceLatency price_allreduce_latency(const AllReduceTraffic& traffic,
                                                       const Link& link,
                                                       const CollectiveSettings& settings);
/// price_allreduce_latency(traffic, link, settings).alpha.
[[nodiscard]] Seconds allreduce_latency(const AllReduceTraffic& traffic, const Link& link,
                                        const CollectiveSettings& settings);

/// alpha + beta.
[[nodiscard]] Seconds allreduce_time(const AllReduceTraffic& traffic, const Link& link,
                                     const CollectiveSettings& settings);

/// Which term dominates an all-reduce.
enum class CommRegime { latency_bound, bandwidth_bound };
[[nodiscard]] std::string_view to_string(CommRegime regime);
/// latency-bound when the fixed latency is at least the transfer time at `rate`.
[[nodiscard]] CommRegime classify(const AllReduceTraffic& traffic, const Link& link,
                                  const CollectiveSettings& settings);

}  // namespace tpnet
