#pragma once
// What the counter readers hand on (cumulative, never decreasing series)
// and the traffic windows computed from them, all finite and non-negative.

#include <algorithm>
#include <vector>

#include "fuzz_check.hpp"
#include "tpnet/measured/counters.hpp"
#include "tpnet/measured/traffic_windows.hpp"

namespace tpnet::fuzz {

inline void check_series(const CounterSeries& series) {
  if (series.devices.empty()) violated("no devices and no error");
  for (const auto& d : series.devices) {
    for (std::size_t k = 0; k < d.samples.size(); ++k) {
      const CounterSample& s = d.samples[k];
      finite(s.time.value(), "time");
      non_negative(s.xmit, "xmit");
      non_negative(s.rcv, "rcv");
      if (k > 0) {
        const CounterSample& p = d.samples[k - 1];
        if (!(s.time > p.time)) violated("time not increasing");
        if (s.xmit < p.xmit || s.rcv < p.rcv) {
          violated("cumulative counter decreased");
        }
      }
    }
  }
}

inline void check_intervals(const std::vector<TrafficInterval>& intervals) {
  for (const auto& i : intervals) {
    finite(i.start.value(), "interval start");
    finite(i.end.value(), "interval end");
    if (!(i.end > i.start)) violated("empty interval");
    non_negative(i.xmit, "interval xmit");
    non_negative(i.rcv, "interval rcv");
  }
}

inline void check_direction(const DirectionRates& d) {
  non_negative(d.bytes, "bytes");
  non_negative(d.peak, "peak");
  finite(d.peak_start.value(), "peak_start");
  non_negative(d.mean, "mean");
  non_negative(d.peak_to_mean, "peak_to_mean");
}

/// Windows of 1/64 and 1/3 of the span (and 1 s when that is not too fine).
inline void analyze_windows(const std::vector<TrafficInterval>& intervals) {
  if (intervals.empty()) return;
  Seconds start = intervals.front().start;
  Seconds end = intervals.front().end;
  for (const auto& i : intervals) {
    start = std::min(start, i.start);
    end = std::max(end, i.end);
  }
  const double span = (end - start).value();
  std::vector<Seconds> windows{Seconds(span / 64.0), Seconds(span / 3.0)};
  if (span < 1e5) windows.emplace_back(1.0);
  contract(Origin::any, [&] {
    const TrafficWindows t = traffic_windows(intervals, windows);
    finite(t.start.value(), "start");
    finite(t.end.value(), "end");
    non_negative(t.xmit, "total xmit");
    non_negative(t.rcv, "total rcv");
    for (const auto& w : t.windows) {
      positive(w.window, "window");
      for (const BitRate v : w.xmit_series) non_negative(v, "xmit_series");
      for (const BitRate v : w.rcv_series) non_negative(v, "rcv_series");
      check_direction(w.xmit);
      check_direction(w.rcv);
    }
  });
}

}  // namespace tpnet::fuzz
