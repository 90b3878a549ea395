// tpnet traffic: RDMA port counter samples as rates in averaging windows
// (docs/background.md s.6, docs/traffic.md), optionally split into prefill and decode,
// with an SVG chart of the finest and coarsest windows.

#include <memory>
#include <string>
#include <vector>

#include "charts.hpp"
#include "common.hpp"
#include "svg_output.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/counters_csv.hpp"
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

Outcome run_traffic(const TrafficOptions& o) {
  TrafficRequest request;
  request.windows = parse_windows(o.windows);
  // A plot that could not replace its target is refused before the work.
  check_svg_path(o.svg);
  request.samples = load_counters_csv(o.samples);
  if (!o.requests.empty()) request.requests = load_requests_csv(o.requests);
  request.source = o.samples;
  request.series = o.series;
  const TrafficReport r = analyze_traffic(request);
  Document doc = traffic_report_document(request, r);
  write_svg(o.svg, traffic_figure(r.all, o.samples), doc);
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
