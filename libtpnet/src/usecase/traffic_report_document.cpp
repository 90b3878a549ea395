// tpnet traffic's answer as a document: the capture, the rates by averaging
// window and, with request timings, by phase (docs/traffic.md, docs/json.md).
#include <fmt/format.h>

#include <cmath>

#include "tpnet/usecase/traffic_report.hpp"

namespace tpnet {
namespace {

/// Whole milliseconds without a fraction; 0.25ms as 0.250.
Field traffic_window_field(Seconds window) {
  const double ms = window.value() * 1e3;
  return number("window_s", "window", window.value(), kMilliseconds, ms == std::round(ms) ? 0 : 3);
}

Record traffic_direction_record(const DirectionRates& d) {
  return {
      number("bytes", "bytes", d.bytes.count(), kBytesMB, 1),
      number("peak_bps", "peak", d.peak.bits_per_second(), kGbps, 2),
      json_only(number("peak_start_s", "peak window starts", d.peak_start.value(), kSeconds, 6)),
      number("mean_bps", "mean", d.mean.bits_per_second(), kGbps, 2),
      number("peak_to_mean", "peak/mean", d.peak_to_mean, kTimes, 1)};
}

std::vector<Record> traffic_window_rows(const TrafficWindows& t) {
  std::vector<Record> rows;
  rows.reserve(t.windows.size() * 2);
  for (const auto& w : t.windows) {
    for (int direction = 0; direction < 2; ++direction) {
      Record row{
          traffic_window_field(w.window),
          text("direction", "direction", direction == 0 ? "transmit" : "receive"),
          json_only(integer("windows", "windows", static_cast<double>(w.xmit_series.size()))),
          json_only(flag("longer_than_capture", "longer than the capture", w.longer_than_span))};
      for (auto& f : traffic_direction_record(direction == 0 ? w.xmit : w.rcv)) {
        row.push_back(std::move(f));
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::vector<Record> traffic_series_rows(const TrafficWindows& t) {
  std::vector<Record> rows;
  for (const auto& w : t.windows) {
    for (std::size_t k = 0; k < w.xmit_series.size(); ++k) {
      rows.push_back({traffic_window_field(w.window),
                      number("start_s", "window starts",
                             (t.start + w.window * static_cast<double>(k)).value(), kSeconds, 6),
                      number("xmit_bps", "transmit", w.xmit_series[k].bits_per_second(), kGbps, 2),
                      number("rcv_bps", "receive", w.rcv_series[k].bits_per_second(), kGbps, 2)});
    }
  }
  return rows;
}

std::vector<Record> traffic_phase_rows(const TrafficReport& r) {
  std::vector<Record> rows;
  for (const auto& phase : r.phases) {
    for (const auto& w : phase.windows.windows) {
      for (int direction = 0; direction < 2; ++direction) {
        const DirectionRates& d = direction == 0 ? w.xmit : w.rcv;
        rows.push_back({text("phase", "phase", phase.phase), traffic_window_field(w.window),
                        text("direction", "direction", direction == 0 ? "transmit" : "receive"),
                        number("bytes", "bytes", d.bytes.count(), kBytesMB, 1),
                        number("peak_bps", "peak", d.peak.bits_per_second(), kGbps, 2)});
      }
    }
  }
  return rows;
}

}  // namespace

Document traffic_report_document(const TrafficRequest& request, const TrafficReport& report) {
  const TrafficWindows& t = report.all;
  Document doc;
  doc.title = fmt::format("tpnet traffic: {} ({} devices, {} reads; rates summed over devices)",
                          request.source, report.devices.size(), report.reads);
  doc.warnings = report.warnings;
  doc.fields = {
      texts("devices", "devices", report.devices),
      integer("reads", "reads", report.reads),
      number("start_s", "first read", t.start.value(), kSeconds, 6),
      number("span_s", "span", t.span().value(), kSeconds, 3),
      number("xmit_bytes", "transmitted", t.xmit.count(), kBytesMB, 1),
      number("rcv_bytes", "received", t.rcv.count(), kBytesMB, 1),
      records("windows", "rates by averaging window", traffic_window_rows(t)),
  };
  if (request.series) {
    doc.fields.push_back(json_only(records("series", "rate series", traffic_series_rows(t))));
  }
  if (request.requests) {
    doc.fields.push_back(integer("requests", "requests", report.requests));
    doc.fields.push_back(records("phases",
                                 "by phase (prefill: start to first token; decode: "
                                 "first token to end)",
                                 traffic_phase_rows(report)));
  }
  return doc;
}

}  // namespace tpnet
