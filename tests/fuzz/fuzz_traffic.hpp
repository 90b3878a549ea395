#pragma once
// What the counter readers hand on (cumulative, never decreasing series)
// and the traffic windows computed from them, all finite and non-negative.

#include <algorithm>
#include <vector>

#include "fuzz_check.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/measured/traffic_windows.hpp"

namespace tpnet::fuzz {

inline void check_series(const CounterSeries& series) {
  if (series.devices.empty()) violated("no devices and no error");
  for (const auto& d : series.devices) {
    for (std::size_t k = 0; k < d.samples.size(); ++k) {
      const CounterSample& s = d.samples[k];
      finite(s.time_s, "time_s");
      non_negative(s.xmit_bytes, "xmit_bytes");
      non_negative(s.rcv_bytes, "rcv_bytes");
      if (k > 0) {
        const CounterSample& p = d.samples[k - 1];
        if (!(s.time_s > p.time_s)) violated("time not increasing");
        if (s.xmit_bytes < p.xmit_bytes || s.rcv_bytes < p.rcv_bytes) {
          violated("cumulative counter decreased");
        }
      }
    }
  }
}

inline void check_intervals(const std::vector<TrafficInterval>& intervals) {
  for (const auto& i : intervals) {
    finite(i.start_s, "interval start");
    finite(i.end_s, "interval end");
    if (!(i.end_s > i.start_s)) violated("empty interval");
    non_negative(i.xmit_bytes, "interval xmit_bytes");
    non_negative(i.rcv_bytes, "interval rcv_bytes");
  }
}

inline void check_direction(const DirectionRates& d) {
  non_negative(d.bytes, "bytes");
  non_negative(d.peak_bps, "peak_bps");
  finite(d.peak_start_s, "peak_start_s");
  non_negative(d.mean_bps, "mean_bps");
  non_negative(d.peak_to_mean, "peak_to_mean");
}

/// Windows of 1/64 and 1/3 of the span (and 1 s when that is not too fine).
inline void analyze_windows(const std::vector<TrafficInterval>& intervals) {
  if (intervals.empty()) return;
  double start = intervals.front().start_s;
  double end = intervals.front().end_s;
  for (const auto& i : intervals) {
    start = std::min(start, i.start_s);
    end = std::max(end, i.end_s);
  }
  const double span = end - start;
  std::vector<Seconds> windows{Seconds(span / 64.0), Seconds(span / 3.0)};
  if (span < 1e5) windows.emplace_back(1.0);
  contract(Origin::any, [&] {
    const TrafficWindows t = traffic_windows(intervals, windows);
    finite(t.start_s, "start_s");
    finite(t.end_s, "end_s");
    non_negative(t.xmit_bytes, "total xmit_bytes");
    non_negative(t.rcv_bytes, "total rcv_bytes");
    for (const auto& w : t.windows) {
      positive(w.window, "window");
      for (const double v : w.xmit_bps) non_negative(v, "xmit_bps");
      for (const double v : w.rcv_bps) non_negative(v, "rcv_bps");
      check_direction(w.xmit);
      check_direction(w.rcv);
    }
  });
}

}  // namespace tpnet::fuzz
