#pragma once
/// `tpnet traffic`: RDMA port counter samples as rates in averaging windows,
/// over the whole capture and, with request timings, split into prefill and
/// decode (docs/traffic.md, docs/formulas.md s.17).

#include <optional>
#include <string>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/measured/counters.hpp"
#include "tpnet/measured/traffic_windows.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet {

/// Everything `tpnet traffic` answers depends on.
struct TrafficRequest {
  CounterSeries samples;
  std::vector<Seconds> windows;  ///< `windows`
  std::optional<std::vector<RequestTiming>> requests;
  std::string source;   ///< the samples' file, named in the document's title
  bool series = false;  ///< `series`: the document also gives every window's rate (JSON)
};

/// One phase at every window size.
struct PhaseWindows {
  std::string phase;  ///< "prefill", "decode", "other"
  TrafficWindows windows;
};

struct TrafficReport {
  std::vector<std::string> devices;  ///< "rocep1s0f0 port 1"
  int reads = 0;
  TrafficWindows all;
  std::vector<PhaseWindows> phases;  ///< with request timings
  int requests = 0;
  /// Counter resets, and windows longer than the capture.
  std::vector<std::string> warnings;
};

/// Throws InputError naming `windows` as traffic_windows does.
[[nodiscard]] TrafficReport analyze_traffic(const TrafficRequest& request);

/// The capture (devices, reads, span, bytes), the rates by averaging window
/// and, with request timings, by phase; with `series` every window's rate in
/// JSON: every key of `tpnet traffic`'s JSON (docs/json.md).
[[nodiscard]] Document traffic_report_document(const TrafficRequest& request,
                                               const TrafficReport& report);

}  // namespace tpnet
