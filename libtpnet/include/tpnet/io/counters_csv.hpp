#pragma once
/// RDMA port counter samples (docs/traffic.md): one row per device per read,
/// `time_s,device,port,port_xmit_data,port_rcv_data`, counters cumulative in
/// the kernel's 4-byte units. Also the request timing file that splits the
/// traffic into prefill and decode: `request_id,start_s,first_token_s,end_s`.

#include <string>
#include <string_view>
#include <vector>

#include "tpnet/error.hpp"

namespace tpnet {

/// One read of one device, counted in bytes since that device's first read.
struct CounterSample {
  double time_s = 0.0;
  double xmit_bytes = 0.0;  ///< cumulative, never decreasing
  double rcv_bytes = 0.0;
};

/// Every read of one device and port, in file order (times strictly increasing).
struct DeviceSeries {
  std::string device;
  std::string port;
  std::vector<CounterSample> samples;
};

struct CounterSeries {
  std::vector<DeviceSeries> devices;  ///< in order of first appearance
  /// One line per counter that went backwards (a reset or wrap), naming where.
  std::vector<std::string> notes;
  int reads = 0;  ///< data rows
};

/// Throws InputError naming the file, line and column for a missing column, a
/// cell that is not a number, a negative or fractional counter, a time not
/// later than the same device's previous read, or a file with no device read
/// twice. A counter lower than the previous read of the same device counts
/// from 0 again (a reset): its new value is the bytes since, and a note says so.
CounterSeries parse_counters_csv(std::string_view text, const std::string& origin);
CounterSeries load_counters_csv(const std::string& path);

/// One request's timing, seconds on the same clock as the counter reads.
struct RequestTiming {
  std::string id;
  double start_s = 0.0;
  double first_token_s = 0.0;
  double end_s = 0.0;
};

/// Needs start_s <= first_token_s <= end_s on every row.
std::vector<RequestTiming> parse_requests_csv(std::string_view text, const std::string& origin);
std::vector<RequestTiming> load_requests_csv(const std::string& path);

}  // namespace tpnet
