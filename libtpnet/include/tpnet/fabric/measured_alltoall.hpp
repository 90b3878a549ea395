#pragma once
/// A measured all-to-all (a calibration's `alltoall` section, docs/formulas.md
/// s.31.1) as a fabric profile carries it, and one round of it: what prices
/// expert parallelism's dispatch and combine when the user measured the
/// exchange itself. In fabric so that a profile can hold it;
/// measured/calibration.hpp makes it from a calibration.

#include <string>

#include "tpnet/base/units.hpp"

namespace tpnet {

/// The fit of an `alltoall_perf` sweep: t(S) = alpha + S (N - 1)/N / rate,
/// S nccl-tests' size (the bytes one rank sends in all, its block to itself
/// included) on N = `ranks` ranks.
struct MeasuredAllToAll {
  std::string origin;  ///< the calibration file it came from
  std::string source;  ///< the sweep it fitted
  std::string link;    ///< the link it ran on, as the calibration names it
  int ranks = 0;
  Seconds alpha;   ///< one round's fixed time
  BitRate rate;    ///< of the bytes a rank sends to the others, at the profile's link
  Bytes min_size;  ///< nccl-tests' sizes fitted
  Bytes max_size;
};

/// One all-to-all round in which the busiest rank sends `sent` bytes to the
/// other ranks of `ranks`.
struct MeasuredAllToAllRound {
  Seconds time;               ///< alpha + sent / rate
  Bytes size;                 ///< nccl-tests' size of that round: sent x ranks / (ranks - 1)
  bool extrapolated = false;  ///< size outside the sizes measured
};

/// The round as the fit prices it, at the fit's alpha and rate whatever
/// `ranks` (the bytes a rank sends, not the ranks, set the time in the
/// fit's model). Throws InputError for ranks < 2 or negative bytes.
[[nodiscard]] MeasuredAllToAllRound measured_alltoall_round(const MeasuredAllToAll& measured,
                                                            Bytes sent, int ranks);

/// "measured at 4 ranks from cal.yaml (25 us a round, 160 Gb/s)": how notes
/// name it.
[[nodiscard]] std::string describe(const MeasuredAllToAll& measured);

}  // namespace tpnet
