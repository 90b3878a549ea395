#pragma once
/// How NCCL is set up on the cluster: what prices the fixed cost of one
/// collective (the alpha of the alpha-beta model), NCCL's tuning model by
/// default or a user's alpha-beta override. Software settings, the same for
/// every link of a cluster, so a request carries them once beside its links
/// (docs/formulas.md s.5 and s.20).

#include <optional>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/nccl_model.hpp"

namespace tpnet {

/// A plain alpha-beta latency: `base` once per collective plus `per_step` for
/// each sequential step (2(N-1) for a ring). Only used when the user overrides
/// NCCL's model (--base-latency/--step-latency, or a calibration fit); a half
/// left unset keeps NCCL's ring LL constants, 6.6 us and 2.7 us
/// (docs/formulas.md s.5).
struct StepLatency {
  Seconds base = Seconds::microseconds(6.6);
  Seconds per_step = Seconds::microseconds(2.7);
};

struct CollectiveSettings {
  /// Set: this alpha-beta model replaces NCCL's ("latency: user override").
  std::optional<StepLatency> latency_override;
  /// NCCL's view of the cluster. `ranks`, `nodes` and `link_rate` are filled
  /// in from each all-reduce and its link; the rest applies as set.
  NcclSetup nccl;
  /// true (default): the tuner may only pick the engine's algorithm, whose
  /// bytes the study's formulas count. false: `nccl.algorithms` applies.
  bool nccl_algorithm_from_engine = true;
};

}  // namespace tpnet
