#pragma once
/// Fitting a measured all-to-all sweep (nccl-tests' `alltoall_perf`, or
/// `tpnet-calibrate alltoall`) to the model the expert-parallel dispatch and
/// combine are priced with (docs/formulas.md s.31 and s.31.1): one round's
/// fixed cost plus the bytes a rank sends to the other ranks at one rate.

#include <string>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/measured/allreduce_fit.hpp"
#include "tpnet/measured/allreduce_sweep.hpp"

namespace tpnet {

struct AlltoAllFit {
  int ranks = 0;
  /// Share of the size S each rank sends to the others: (N-1)/N, nccl-tests'
  /// alltoall bus factor (S counts the block a rank keeps for itself).
  double sent_factor = 0.0;
  Bytes min_size;  ///< smallest size fitted
  Bytes max_size;  ///< largest size fitted
  int points_used = 0;
  Seconds alpha;  ///< fixed time of one all-to-all round
  BitRate rate;   ///< rate of the bytes each rank sends (the busbw plateau)
  double rms_relative_error = 0.0;
  double max_relative_error = 0.0;  ///< largest |relative error| in range
  /// The unconstrained least squares gave alpha < 0; alpha was held at 0.
  bool constrained = false;
  /// rms_relative_error is above kPoorFitRms.
  bool poor = false;
  /// Every size, in file order: measured and fitted time, the residual.
  std::vector<FitPoint> curve;
  std::vector<std::string> warnings;
};

/// Least squares of time(S) = alpha + sent(S) / rate, sent(S) = S x (N-1)/N
/// per rank, over the sizes in `range`, weighted by relative error, alpha >= 0
/// (held at 0, and said, when the free fit goes negative); a fit above
/// kPoorFitRms is flagged `poor`. The sweep must be an all-to-all: a log
/// whose collective was told only by its columns (all_gather's read the
/// same) is taken as one. Throws InputError naming the sweep's file when it
/// measured another collective, ranks < 2, fewer than 2 distinct sizes are in
/// range, or the fit gives no positive rate.
[[nodiscard]] AlltoAllFit fit_alltoall(const AllReduceSweep& sweep, int ranks,
                                       const FitRange& range = {});

}  // namespace tpnet
