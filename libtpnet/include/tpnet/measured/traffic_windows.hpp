#pragma once
/// Measured traffic in averaging windows (docs/formulas.md s.17): each sample
/// interval's bytes are spread over the fixed windows it covers in proportion
/// to the overlap, so bytes are conserved at every window size and a peak
/// rate always comes with its window. `tpnet traffic` is analyze_traffic
/// (tpnet/usecase/traffic_report.hpp).

#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/measured/counters.hpp"

namespace tpnet {

/// Bytes one device moved between two consecutive reads.
struct TrafficInterval {
  Seconds start;
  Seconds end;
  Bytes xmit;
  Bytes rcv;
};

/// Every device's sample intervals, sorted by start. Summing the devices is
/// the spreading's job: it is linear, so spreading each device's intervals and
/// adding equals adding first.
std::vector<TrafficInterval> traffic_intervals(const CounterSeries& series);

/// One direction at one window size.
struct DirectionRates {
  Bytes bytes;                ///< sum over the windows (== the total moved)
  BitRate peak;               ///< the highest window's rate
  Seconds peak_start;         ///< where that window starts
  BitRate mean;               ///< all bytes over the whole span
  double peak_to_mean = 0.0;  ///< 0 when nothing moved
};

/// The rate series at one window size. Windows start at the span's start;
/// the last one may be cut short by the span's end and is divided by its
/// covered length, not the full window.
struct WindowRates {
  Seconds window;
  std::vector<BitRate> xmit_series;  ///< one per window
  std::vector<BitRate> rcv_series;
  DirectionRates xmit;
  DirectionRates rcv;
  /// The window is longer than the capture: its one window averages over
  /// the span, not the window.
  bool longer_than_span = false;
};

struct TrafficWindows {
  Seconds start;  ///< earliest read of any device
  Seconds end;    ///< latest read of any device
  Bytes xmit;
  Bytes rcv;
  std::vector<WindowRates> windows;  ///< in the order asked

  [[nodiscard]] Seconds span() const { return end - start; }
};

/// Throws InputError naming `windows` when there is no interval, a window is
/// not positive, or a window would cut the span into more than 100 million
/// pieces.
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
