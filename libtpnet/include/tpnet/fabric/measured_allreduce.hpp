#pragma once
/// A measured ring all-reduce curve (a calibration's sweep) and what it says
/// about any block, rank count and link rate (docs/formulas.md s.19). The
/// fabric prices collectives with it; measured/calibration.hpp makes it
/// from a sweep and reads it from a calibration.yaml.

#include <string>
#include <vector>

#include "tpnet/base/units.hpp"

namespace tpnet {

/// One measured size of the sweep (out-of-place).
struct CalibrationPoint {
  Bytes size;
  Seconds time;
  BitRate algbw;
  BitRate busbw;
};

/// A ring all-reduce sweep on `ranks` ranks over a link of `link_rate`:
/// the alpha-beta fit and the measured curve itself.
struct AllReduceCalibration {
  std::string source;  ///< the sweep file it came from
  int ranks = 0;
  std::string link;  ///< what it was measured on, as given: "200G"
  BitRate link_rate;
  std::string dtype;     ///< element type of the sweep: "float", "bf16"
  bool complete = true;  ///< false for a partial (killed) sweep
  // The fit (docs/formulas.md s.16).
  Seconds alpha;         ///< fixed time of one all-reduce
  BitRate beta;          ///< rate of the bytes each rank sends
  Seconds step_latency;  ///< alpha / 2(N-1)
  double rms_relative_error = 0.0;
  double max_relative_error = 0.0;
  Bytes min_size;  ///< the size range fitted
  Bytes max_size;
  int points = 0;  ///< sizes fitted
  /// Every measured size, sizes strictly increasing.
  std::vector<CalibrationPoint> curve;
};

/// Measured time of one all-reduce of `block` bytes on the ranks and link of
/// the sweep: the curve interpolated linearly in log(size)-log(time) between
/// measured sizes, the fitted alpha + sent(S) x 8 / beta outside them (the
/// smallest measured time where that line is not positive).
[[nodiscard]] Seconds measured_allreduce_time(const AllReduceCalibration& c, Bytes block);

/// Point estimate of one ring all-reduce of `block` on `ranks` ranks over a
/// link of `rate` (docs/formulas.md s.19):
///   t = alpha' + max(0, t_meas(S') - alpha) x rate_meas / rate
/// with alpha = max(0, fitted alpha), alpha' = alpha x 2(N'-1) / 2(N-1) and
/// S' = S x f(N') / f(N), f(N) = 2(N-1)/N: other rank counts keep the bytes
/// each rank sends and the latency per step. Throws InputError for ranks < 2,
/// a negative block or a non-positive rate.
[[nodiscard]] Seconds calibrated_allreduce_time(const AllReduceCalibration& c, Bytes block,
                                                int ranks, BitRate rate);

/// The fitted beta moved to a link of `rate`: beta x rate / rate_meas, the
/// rate bytes outside all-reduces (all-to-all, stage sends) are priced at.
[[nodiscard]] BitRate calibrated_rate(const AllReduceCalibration& c, BitRate rate);

}  // namespace tpnet
