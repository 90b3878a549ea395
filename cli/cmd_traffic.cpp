// tpnet traffic: RDMA port counter samples as rates in averaging windows
// (docs/background.md s.6, docs/traffic.md), optionally split into prefill and decode,
// with an SVG plot of the finest and coarsest windows.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/io/output_file.hpp"
#include "tpnet/measured/traffic_windows.hpp"
#include "tpnet/quantity.hpp"

namespace tpnet::cli {

/// The SVG text of two panels (finest and coarsest window), transmit and
/// receive rates in Gb/s over time since the first read. Pure: no file access.
std::string traffic_svg(const TrafficWindows& t, const std::string& title);

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
  if (!o.svg.empty()) check_output_path(o.svg, "--svg");
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
  if (!o.svg.empty()) {
    const std::string svg = traffic_svg(t, o.samples);
    write_file_atomically(o.svg, svg, "--svg");
    doc.fields.push_back(text("svg", "plot written to", o.svg));
  }
  return Outcome{std::move(doc), {}, 0};
}

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string polyline(const std::vector<BitRate>& rates, double window_s, double span_s,
                     double max_bps, double x0, double y0, double width, double height) {
  std::string points;
  for (std::size_t i = 0; i < rates.size(); ++i) {
    const double y = y0 + height - height * rates[i].bits_per_second() / max_bps;
    for (int edge = 0; edge < 2; ++edge) {  // steps: each window is flat
      const double t = std::min(span_s, (static_cast<double>(i) + edge) * window_s);
      points += fmt::format("{:.1f},{:.1f} ", x0 + width * t / span_s, y);
    }
  }
  return points;
}

}  // namespace

std::string traffic_svg(const TrafficWindows& t, const std::string& title) {
  constexpr double kWidth = 900;
  constexpr double kPanel = 220;
  constexpr double kLeft = 70;
  constexpr double kTop = 40;
  const double span = std::max(t.span().value(), 1e-12);
  std::vector<const WindowRates*> panels;
  if (!t.windows.empty()) {
    auto [finest, coarsest] = std::minmax_element(
        t.windows.begin(), t.windows.end(),
        [](const WindowRates& a, const WindowRates& b) { return a.window < b.window; });
    panels.push_back(&*finest);
    if (coarsest != finest) panels.push_back(&*coarsest);
  }
  double max_bps = 1.0;
  for (const auto* w : panels) {
    max_bps = std::max({max_bps, w->xmit.peak.bits_per_second(), w->rcv.peak.bits_per_second()});
  }
  const double plot_w = kWidth - kLeft - 20;
  const double height = kTop + static_cast<double>(panels.size()) * (kPanel + 50) + 10;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{:.0f}\" y=\"20\" font-size=\"14\">RDMA traffic, {} (transmit blue, receive "
      "orange)</text>\n",
      kWidth, height, kLeft, title.empty() ? "samples" : xml_escaped(title));
  for (std::size_t p = 0; p < panels.size(); ++p) {
    const WindowRates& w = *panels[p];
    const double y0 = kTop + static_cast<double>(p) * (kPanel + 50);
    svg += fmt::format(
        "<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"none\" "
        "stroke=\"#888\"/>\n",
        kLeft, y0, plot_w, kPanel);
    svg += fmt::format(
        "<text x=\"{:.0f}\" y=\"{:.0f}\">{:g} ms windows: peak {:.1f} Gb/s transmit, {:.1f} Gb/s "
        "receive; mean {:.1f} / {:.1f} Gb/s</text>\n",
        kLeft, y0 - 5, w.window.value() * 1e3, w.xmit.peak.bits_per_second() / 1e9,
        w.rcv.peak.bits_per_second() / 1e9, w.xmit.mean.bits_per_second() / 1e9,
        w.rcv.mean.bits_per_second() / 1e9);
    svg += fmt::format("<text x=\"5\" y=\"{:.0f}\">{:.0f} Gb/s</text>\n", y0 + 12, max_bps / 1e9);
    svg += fmt::format("<text x=\"5\" y=\"{:.0f}\">0</text>\n", y0 + kPanel);
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\">{:.3f} s</text>\n", kLeft + plot_w - 50,
                       y0 + kPanel + 15, span);
    svg += fmt::format(
        "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1\" points=\"{}\"/>\n",
        polyline(w.xmit_series, w.window.value(), span, max_bps, kLeft, y0, plot_w, kPanel));
    svg += fmt::format(
        "<polyline fill=\"none\" stroke=\"#ff7f0e\" stroke-width=\"1\" points=\"{}\"/>\n",
        polyline(w.rcv_series, w.window.value(), span, max_bps, kLeft, y0, plot_w, kPanel));
  }
  svg += "</svg>\n";
  return svg;
}

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
  sub->add_option("--svg", options->svg, "Write a plot of the finest and coarsest windows here");
  sub->add_flag("--series", options->series,
                "Also give every window's rate in JSON (series[]; one row per window)");
  add_format_option(sub, options->format);
  return Command{sub, [options] { return run_traffic(*options); },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
