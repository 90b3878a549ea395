#pragma once
// The least squares every sweep fit shares (fit_allreduce, fit_alltoall):
// time(S) = alpha + sent_factor x S / rate over the sizes in range, weighted
// by relative error, alpha >= 0. docs/formulas.md s.16 and s.31.1.

#include <string>
#include <utility>
#include <vector>

#include "tpnet/measured/allreduce_fit.hpp"
#include "tpnet/measured/allreduce_sweep.hpp"

namespace tpnet {

struct SentBytesFit {
  Seconds alpha;
  BitRate rate;  ///< of the bytes each rank sends
  Bytes min_size;
  Bytes max_size;
  int points_used = 0;
  double rms_relative_error = 0.0;
  double max_relative_error = 0.0;
  bool constrained = false;  ///< alpha held at 0 (a warning says why)
  std::vector<FitPoint> curve;
  std::vector<std::string> warnings;
};

/// Throws InputError naming the sweep's file when fewer than 2 distinct
/// sizes are in range or the fit gives no positive rate.
[[nodiscard]] SentBytesFit fit_sent_bytes(const AllReduceSweep& sweep, double sent_factor,
                                          const FitRange& range);

/// Moves what every sweep fit reports alike (the range fitted, the
/// residuals, the curve and the warnings) from `core` into `fit`.
template <typename Fit>
void take_fit_quality(SentBytesFit&& core, Fit& fit) {
  fit.min_size = core.min_size;
  fit.max_size = core.max_size;
  fit.points_used = core.points_used;
  fit.rms_relative_error = core.rms_relative_error;
  fit.max_relative_error = core.max_relative_error;
  fit.constrained = core.constrained;
  fit.curve = std::move(core.curve);
  fit.warnings = std::move(core.warnings);
}

}  // namespace tpnet
