#include "tpnet/usecase/traffic_report.hpp"

#include <fmt/format.h>

#include "tpnet/base/quantity.hpp"

namespace tpnet {

TrafficReport analyze_traffic(const TrafficRequest& request) {
  TrafficReport report;
  for (const auto& d : request.samples.devices)
    report.devices.push_back(d.device + " port " + d.port);
  report.reads = request.samples.reads;
  report.warnings = request.samples.notes;
  const std::vector<TrafficInterval> intervals = traffic_intervals(request.samples);
  report.all = traffic_windows(intervals, request.windows);
  for (const auto& w : report.all.windows) {
    if (w.longer_than_span) {
      report.warnings.push_back(fmt::format(
          "the capture ({}) is shorter than the {} window: its one window averages over the "
          "capture, not {}",
          format_duration(report.all.span(), 4), format_duration(w.window, 4),
          format_duration(w.window, 4)));
    }
  }
  if (request.requests) {
    report.requests = static_cast<int>(request.requests->size());
    const PhaseSplit split = split_by_phase(intervals, *request.requests);
    report.phases = {{"prefill", traffic_windows(split.prefill, request.windows)},
                     {"decode", traffic_windows(split.decode, request.windows)},
                     {"other", traffic_windows(split.other, request.windows)}};
  }
  return report;
}

}  // namespace tpnet
