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

namespace tpnet {

/// Everything `tpnet traffic` answers depends on.
struct TrafficRequest {
  CounterSeries samples;
  std::vector<Seconds> windows;  ///< `windows`
  std::optional<std::vector<RequestTiming>> requests;
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

}  // namespace tpnet
