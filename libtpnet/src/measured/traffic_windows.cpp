#include "tpnet/measured/traffic_windows.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace tpnet {

std::vector<TrafficInterval> traffic_intervals(const CounterSeries& series) {
  std::vector<TrafficInterval> out;
  for (const auto& device : series.devices) {
    for (std::size_t i = 1; i < device.samples.size(); ++i) {
      const CounterSample& a = device.samples[i - 1];
      const CounterSample& b = device.samples[i];
      out.push_back(TrafficInterval{a.time_s, b.time_s, b.xmit_bytes - a.xmit_bytes,
                                    b.rcv_bytes - a.rcv_bytes});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const TrafficInterval& x, const TrafficInterval& y) {
    return x.start_s < y.start_s;
  });
  return out;
}

namespace {

constexpr double kMaxWindows = 1e8;

DirectionRates summarize(const std::vector<double>& bytes, const std::vector<double>& bps,
                         double start_s, double window_s, double span_s) {
  DirectionRates r;
  for (double b : bytes) r.bytes += b;
  for (std::size_t i = 0; i < bps.size(); ++i) {
    if (bps[i] > r.peak_bps) {
      r.peak_bps = bps[i];
      r.peak_start_s = start_s + static_cast<double>(i) * window_s;
    }
  }
  r.mean_bps = r.bytes * 8.0 / span_s;
  r.peak_to_mean = r.mean_bps > 0.0 ? r.peak_bps / r.mean_bps : 0.0;
  return r;
}

}  // namespace

TrafficWindows traffic_windows(const std::vector<TrafficInterval>& intervals,
                               const std::vector<Seconds>& windows) {
  if (intervals.empty()) throw InputError("no sample intervals: need two reads of one device");
  TrafficWindows out;
  out.start_s = intervals.front().start_s;
  out.end_s = intervals.front().end_s;
  for (const auto& iv : intervals) {
    out.start_s = std::min(out.start_s, iv.start_s);
    out.end_s = std::max(out.end_s, iv.end_s);
    out.xmit_bytes += iv.xmit_bytes;
    out.rcv_bytes += iv.rcv_bytes;
  }
  const double span = out.end_s - out.start_s;
  for (const Seconds window : windows) {
    const double w = window.value();
    if (!(w > 0.0) || !std::isfinite(w)) {
      throw InputError("a window must be a positive duration", InputLocation::for_key("windows"));
    }
    const double pieces = std::ceil(span / w);
    if (pieces > kMaxWindows) {
      throw InputError("a " + std::to_string(w) + " s window cuts the " + std::to_string(span) +
                           " s span into more than 100 million windows",
                       InputLocation::for_key("windows"));
    }
    const auto count = static_cast<std::size_t>(std::max(1.0, pieces));
    std::vector<double> xmit(count, 0.0);
    std::vector<double> rcv(count, 0.0);
    for (const auto& iv : intervals) {
      const double length = iv.end_s - iv.start_s;
      if (!(length > 0.0)) continue;
      auto k = static_cast<std::size_t>(std::floor((iv.start_s - out.start_s) / w));
      // One window early, in case rounding put the start just past a boundary.
      k = std::min(k, count - 1);
      if (k > 0) --k;
      for (; k < count; ++k) {
        const double ws = out.start_s + static_cast<double>(k) * w;
        if (ws >= iv.end_s) break;
        // The last window takes whatever lies past it (rounding at the span's end).
        const double we = k + 1 == count ? iv.end_s : ws + w;
        const double overlap = std::min(iv.end_s, we) - std::max(iv.start_s, ws);
        if (overlap <= 0.0) continue;
        xmit[k] += iv.xmit_bytes * overlap / length;
        rcv[k] += iv.rcv_bytes * overlap / length;
      }
    }
    WindowRates rates;
    rates.window = window;
    rates.xmit_bps.resize(count);
    rates.rcv_bps.resize(count);
    for (std::size_t k = 0; k < count; ++k) {
      const double ws = out.start_s + static_cast<double>(k) * w;
      const double covered = std::min(out.end_s, ws + w) - ws;
      const double seconds = covered > 0.0 ? covered : w;
      rates.xmit_bps[k] = xmit[k] * 8.0 / seconds;
      rates.rcv_bps[k] = rcv[k] * 8.0 / seconds;
    }
    rates.xmit = summarize(xmit, rates.xmit_bps, out.start_s, w, span);
    rates.rcv = summarize(rcv, rates.rcv_bps, out.start_s, w, span);
    out.windows.push_back(std::move(rates));
  }
  return out;
}

PhaseSplit split_by_phase(const std::vector<TrafficInterval>& intervals,
                          const std::vector<RequestTiming>& requests) {
  PhaseSplit out;
  auto overlap = [](double a, double b, double c, double d) {
    return std::max(0.0, std::min(b, d) - std::max(a, c));
  };
  for (const auto& iv : intervals) {
    double prefill = 0.0;
    double decode = 0.0;
    for (const auto& r : requests) {
      prefill += overlap(iv.start_s, iv.end_s, r.start_s, r.first_token_s);
      decode += overlap(iv.start_s, iv.end_s, r.first_token_s, r.end_s);
    }
    TrafficInterval p = iv;
    TrafficInterval d = iv;
    TrafficInterval o = iv;
    const double total = prefill + decode;
    const double p_share = total > 0.0 ? prefill / total : 0.0;
    const double d_share = total > 0.0 ? decode / total : 0.0;
    const double o_share = total > 0.0 ? 0.0 : 1.0;
    p.xmit_bytes *= p_share;
    p.rcv_bytes *= p_share;
    d.xmit_bytes *= d_share;
    d.rcv_bytes *= d_share;
    o.xmit_bytes *= o_share;
    o.rcv_bytes *= o_share;
    out.prefill.push_back(p);
    out.decode.push_back(d);
    out.other.push_back(o);
  }
  return out;
}

}  // namespace tpnet
