#pragma once
// The least squares every sweep fit shares (fit_allreduce, fit_alltoall):
// time(S) = alpha + sent_factor x S / rate over the sizes in range, weighted
// by relative error, alpha >= 0. docs/formulas.md s.16 and s.31.1.

#include <string>
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

}  // namespace tpnet
