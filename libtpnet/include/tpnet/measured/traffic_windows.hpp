#pragma once
/// Measured traffic in averaging windows (DOMAIN.md s.6, docs/formulas.md
/// s.17): each sample interval's bytes are spread over the fixed windows it
/// covers in proportion to the overlap, so bytes are conserved at every
/// window size and a peak rate always comes with its window.

#include <vector>

#include "tpnet/io/counters_csv.hpp"
#include "tpnet/units.hpp"

namespace tpnet {

/// Bytes one device moved between two consecutive reads.
struct TrafficInterval {
  double start_s = 0.0;
  double end_s = 0.0;
  double xmit_bytes = 0.0;
  double rcv_bytes = 0.0;
};

/// Every device's sample intervals, sorted by start. Summing the devices is
/// the spreading's job: it is linear, so spreading each device's intervals and
/// adding equals adding first.
std::vector<TrafficInterval> traffic_intervals(const CounterSeries& series);

/// One direction at one window size.
struct DirectionRates {
  double bytes = 0.0;         ///< sum over the windows (== the total moved)
  double peak_bps = 0.0;      ///< the highest window's rate, bits per second
  double peak_start_s = 0.0;  ///< where that window starts
  double mean_bps = 0.0;      ///< all bytes over the whole span
  double peak_to_mean = 0.0;  ///< 0 when nothing moved
};

/// The rate series at one window size. Windows start at the span's start;
/// the last one may be cut short by the span's end and is divided by its
/// covered length, not the full window.
struct WindowRates {
  Seconds window;
  std::vector<double> xmit_bps;  ///< one per window, bits per second
  std::vector<double> rcv_bps;
  DirectionRates xmit;
  DirectionRates rcv;
};

struct TrafficWindows {
  double start_s = 0.0;  ///< earliest read of any device
  double end_s = 0.0;    ///< latest read of any device
  double xmit_bytes = 0.0;
  double rcv_bytes = 0.0;
  std::vector<WindowRates> windows;  ///< in the order asked
};

/// Throws InputError when there is no interval, a window is not positive, or
/// a window would cut the span into more than 100 million pieces.
TrafficWindows traffic_windows(const std::vector<TrafficInterval>& intervals,
                               const std::vector<Seconds>& windows);

/// The same intervals with their bytes split by phase: in each interval the
/// time overlapping requests' prefill (start to first token) and decode (first
/// token to end) is summed over requests, and the bytes go to prefill and
/// decode in that proportion; an interval touching no request goes to `other`.
struct PhaseSplit {
  std::vector<TrafficInterval> prefill;
  std::vector<TrafficInterval> decode;
  std::vector<TrafficInterval> other;
};

PhaseSplit split_by_phase(const std::vector<TrafficInterval>& intervals,
                          const std::vector<RequestTiming>& requests);

}  // namespace tpnet
