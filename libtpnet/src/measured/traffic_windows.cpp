#include "tpnet/measured/traffic_windows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "tpnet/base/error.hpp"
#include "tpnet/base/quantity.hpp"

namespace tpnet {

std::vector<TrafficInterval> traffic_intervals(const CounterSeries& series) {
  std::vector<TrafficInterval> out;
  for (const auto& device : series.devices) {
    for (std::size_t i = 1; i < device.samples.size(); ++i) {
      const CounterSample& a = device.samples[i - 1];
      const CounterSample& b = device.samples[i];
      out.push_back(TrafficInterval{a.time, b.time, b.xmit - a.xmit, b.rcv - a.rcv});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const TrafficInterval& x, const TrafficInterval& y) {
    return x.start < y.start;
  });
  return out;
}

namespace {

constexpr double kMaxWindows = 1e8;

DirectionRates summarize(const std::vector<double>& bytes, const std::vector<BitRate>& rates,
                         Seconds start, Seconds window, Seconds span) {
  DirectionRates r;
  double total = 0.0;
  for (double b : bytes) total += b;
  r.bytes = Bytes(total);
  for (std::size_t i = 0; i < rates.size(); ++i) {
    if (rates[i] > r.peak) {
      r.peak = rates[i];
      r.peak_start = start + window * static_cast<double>(i);
    }
  }
  r.mean = BitRate(total * 8.0 / span.value());
  r.peak_to_mean = r.mean.bits_per_second() > 0.0 ? r.peak / r.mean : 0.0;
  return r;
}

}  // namespace

TrafficWindows traffic_windows(const std::vector<TrafficInterval>& intervals,
                               const std::vector<Seconds>& windows) {
  if (intervals.empty()) {
    throw InputError("no sample intervals: need two reads of one device",
                     InputLocation::for_key("windows"));
  }
  TrafficWindows out;
  out.start = intervals.front().start;
  out.end = intervals.front().end;
  for (const auto& iv : intervals) {
    out.start = std::min(out.start, iv.start);
    out.end = std::max(out.end, iv.end);
    out.xmit += iv.xmit;
    out.rcv += iv.rcv;
  }
  // The arithmetic below runs on plain seconds and bytes: it is the hot loop
  // of a million-window series, and every value leaves it as a unit type.
  const double start = out.start.value();
  const double end = out.end.value();
  const double span = end - start;
  for (const Seconds window : windows) {
    const double w = window.value();
    if (!(w > 0.0) || !std::isfinite(w)) {
      throw InputError("a window must be a positive duration", InputLocation::for_key("windows"));
    }
    const double pieces = std::ceil(span / w);
    if (pieces > kMaxWindows) {
      throw InputError(fmt::format("a {} window cuts the {} span into more than 100 million "
                                   "windows",
                                   format_duration(window), format_duration(out.span())),
                       InputLocation::for_key("windows"));
    }
    const auto count = static_cast<std::size_t>(std::max(1.0, pieces));
    std::vector<double> xmit(count, 0.0);
    std::vector<double> rcv(count, 0.0);
    for (const auto& iv : intervals) {
      const double a = iv.start.value();
      const double b = iv.end.value();
      const double length = b - a;
      if (!(length > 0.0)) continue;
      auto k = static_cast<std::size_t>(std::floor((a - start) / w));
      // One window early, in case rounding put the start just past a boundary.
      k = std::min(k, count - 1);
      if (k > 0) --k;
      for (; k < count; ++k) {
        const double ws = start + static_cast<double>(k) * w;
        if (ws >= b) break;
        // The last window takes whatever lies past it (rounding at the span's end).
        const double we = k + 1 == count ? b : ws + w;
        const double overlap = std::min(b, we) - std::max(a, ws);
        if (overlap <= 0.0) continue;
        xmit[k] += iv.xmit.count() * overlap / length;
        rcv[k] += iv.rcv.count() * overlap / length;
      }
    }
    WindowRates rates;
    rates.window = window;
    rates.longer_than_span = w > span;
    rates.xmit_series.resize(count);
    rates.rcv_series.resize(count);
    for (std::size_t k = 0; k < count; ++k) {
      const double ws = start + static_cast<double>(k) * w;
      const double covered = std::min(end, ws + w) - ws;
      const double seconds = covered > 0.0 ? covered : w;
      rates.xmit_series[k] = BitRate(xmit[k] * 8.0 / seconds);
      rates.rcv_series[k] = BitRate(rcv[k] * 8.0 / seconds);
    }
    rates.xmit = summarize(xmit, rates.xmit_series, out.start, window, out.span());
    rates.rcv = summarize(rcv, rates.rcv_series, out.start, window, out.span());
    out.windows.push_back(std::move(rates));
  }
  return out;
}

PhaseSplit split_by_phase(const std::vector<TrafficInterval>& intervals,
                          const std::vector<RequestTiming>& requests) {
  PhaseSplit out;
  auto overlap = [](Seconds a, Seconds b, Seconds c, Seconds d) {
    return std::max(0.0, (std::min(b, d) - std::max(a, c)).value());
  };
  for (const auto& iv : intervals) {
    double prefill = 0.0;
    double decode = 0.0;
    for (const auto& r : requests) {
      prefill += overlap(iv.start, iv.end, r.start, r.first_token);
      decode += overlap(iv.start, iv.end, r.first_token, r.end);
    }
    const double total = prefill + decode;
    auto share = [&iv](double fraction) {
      return TrafficInterval{iv.start, iv.end, iv.xmit * fraction, iv.rcv * fraction};
    };
    out.prefill.push_back(share(total > 0.0 ? prefill / total : 0.0));
    out.decode.push_back(share(total > 0.0 ? decode / total : 0.0));
    out.other.push_back(share(total > 0.0 ? 0.0 : 1.0));
  }
  return out;
}

}  // namespace tpnet
