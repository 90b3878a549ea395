// tpnet traffic: RDMA port counter samples as rates in averaging windows
// (docs/background.md s.6, docs/traffic.md), optionally split into prefill and decode,
// with an SVG chart of the finest and coarsest windows.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "charts.hpp"
#include "common.hpp"
#include "svg_output.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/io/output_file.hpp"
#include "tpnet/usecase/traffic_report.hpp"

namespace tpnet::cli {

namespace {

struct TrafficOptions {
  std::string samples;
  std::string windows = "1ms,5ms,100ms,1s";
  std::string requests;
  std::string svg;
  bool series = false;
  std::string format = "table";
};

std::vector<Seconds> parse_windows(const std::string& text) {
  std::vector<Seconds> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find(',', start);
    const std::string item =
        text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    out.push_back(parse_duration(item, InputLocation::for_key("--windows")));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

/// Whole milliseconds without a fraction; 0.25ms as 0.250.
Field window_field(Seconds window) {
  const double ms = window.value() * 1e3;
  return number("window_s", "window", window.value(), kMilliseconds, ms == std::round(ms) ? 0 : 3);
}

Record direction_record(const DirectionRates& d) {
  return {
      number("bytes", "bytes", d.bytes.count(), kBytesMB, 1),
      number("peak_bps", "peak", d.peak.bits_per_second(), kGbps, 2),
      json_only(number("peak_start_s", "peak window starts", d.peak_start.value(), kSeconds, 6)),
      number("mean_bps", "mean", d.mean.bits_per_second(), kGbps, 2),
      number("peak_to_mean", "peak/mean", d.peak_to_mean, kTimes, 1)};
}

std::vector<Record> window_rows(const TrafficWindows& t) {
  std::vector<Record> rows;
  for (const auto& w : t.windows) {
    for (int direction = 0; direction < 2; ++direction) {
      Record row{
          window_field(w.window),
          text("direction", "direction", direction == 0 ? "transmit" : "receive"),
          json_only(integer("windows", "windows", static_cast<double>(w.xmit_series.size()))),
          json_only(flag("longer_than_capture", "longer than the capture", w.longer_than_span))};
      for (auto& f : direction_record(direction == 0 ? w.xmit : w.rcv)) row.push_back(f);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

Outcome run_traffic(const TrafficOptions& o) {
  TrafficRequest request;
  request.windows = parse_windows(o.windows);
  // A plot that could not replace its target is refused before the work.
  check_svg_path(o.svg);
  request.samples = load_counters_csv(o.samples);
  if (!o.requests.empty()) request.requests = load_requests_csv(o.requests);
  const TrafficReport r = analyze_traffic(request);
  const TrafficWindows& t = r.all;

  Document doc;
  doc.title = fmt::format("tpnet traffic: {} ({} devices, {} reads; rates summed over devices)",
                          o.samples, r.devices.size(), r.reads);
  doc.warnings = r.warnings;
  doc.fields = {
      texts("devices", "devices", r.devices),
      integer("reads", "reads", r.reads),
      number("start_s", "first read", t.start.value(), kSeconds, 6),
      number("span_s", "span", t.span().value(), kSeconds, 3),
      number("xmit_bytes", "transmitted", t.xmit.count(), kBytesMB, 1),
      number("rcv_bytes", "received", t.rcv.count(), kBytesMB, 1),
      records("windows", "rates by averaging window", window_rows(t)),
  };
  if (o.series) {
    std::vector<Record> rows;
    for (const auto& w : t.windows) {
      for (std::size_t k = 0; k < w.xmit_series.size(); ++k) {
        rows.push_back(
            {window_field(w.window),
             number("start_s", "window starts",
                    (t.start + w.window * static_cast<double>(k)).value(), kSeconds, 6),
             number("xmit_bps", "transmit", w.xmit_series[k].bits_per_second(), kGbps, 2),
             number("rcv_bps", "receive", w.rcv_series[k].bits_per_second(), kGbps, 2)});
      }
    }
    doc.fields.push_back(json_only(records("series", "rate series", std::move(rows))));
  }
  if (request.requests) {
    std::vector<Record> rows;
    for (const auto& phase : r.phases) {
      for (const auto& w : phase.windows.windows) {
        for (int direction = 0; direction < 2; ++direction) {
          const DirectionRates& d = direction == 0 ? w.xmit : w.rcv;
          rows.push_back({text("phase", "phase", phase.phase), window_field(w.window),
                          text("direction", "direction", direction == 0 ? "transmit" : "receive"),
                          number("bytes", "bytes", d.bytes.count(), kBytesMB, 1),
                          number("peak_bps", "peak", d.peak.bits_per_second(), kGbps, 2)});
        }
      }
    }
    doc.fields.push_back(integer("requests", "requests", r.requests));
    doc.fields.push_back(records("phases",
                                 "by phase (prefill: start to first token; decode: "
                                 "first token to end)",
                                 std::move(rows)));
  }
  write_svg(o.svg, traffic_figure(t, o.samples), doc);
  return Outcome{std::move(doc), {}, 0};
}

}  // namespace

Command setup_traffic(CLI::App& app) {
  auto options = std::make_shared<TrafficOptions>();
  CLI::App* sub = app.add_subcommand(
      "traffic",
      "RDMA port counter samples as peak and mean rates per averaging window (docs/traffic.md)");
  sub->add_option("--samples", options->samples,
                  "Counters CSV: time_s,device,port,port_xmit_data,port_rcv_data")
      ->required();
  sub->add_option("--windows", options->windows, "Averaging windows, comma-separated")
      ->default_val("1ms,5ms,100ms,1s");
  sub->add_option("--requests", options->requests,
                  "Request timing CSV (request_id,start_s,first_token_s,end_s): split by phase");
  add_svg_option(sub, options->svg, "the finest and coarsest windows' rates over time");
  sub->add_flag("--series", options->series,
                "Also give every window's rate in JSON (series[]; one row per window)");
  add_format_option(sub, options->format);
  return Command{sub, [options] { return run_traffic(*options); },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
