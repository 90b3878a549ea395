#pragma once
/// RDMA port counter samples (docs/traffic.md): one row per device per read,
/// `time_s,device,port,port_xmit_data,port_rcv_data`, counters cumulative in
/// the kernel's 4-byte units. Also the request timing file that splits the
/// traffic into prefill and decode: `request_id,start_s,first_token_s,end_s`.

#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/measured/counters.hpp"

namespace tpnet {

/// Throws InputError naming the file, line and column for a missing column, a
/// cell that is not a number, a negative or fractional counter, a time not
/// later than the same device's previous read, or a file with no device read
/// twice. A counter lower than the previous read of the same device counts
/// from 0 again (a reset): its new value is the bytes since, and a note says so.
CounterSeries parse_counters_csv(std::string_view text, const std::string& origin);
CounterSeries load_counters_csv(const std::string& path);

/// Needs start_s <= first_token_s <= end_s on every row.
std::vector<RequestTiming> parse_requests_csv(std::string_view text, const std::string& origin);
std::vector<RequestTiming> load_requests_csv(const std::string& path);

/// The counters as the file parse_counters_csv reads: a header, then every
/// read of every device, time by time, bytes as the kernel's 4-byte words
/// (rounded down).
[[nodiscard]] std::string counters_csv_text(const CounterSeries& series);

/// `request_id,start_s,first_token_s,end_s`, one row per request.
[[nodiscard]] std::string requests_csv_text(const std::vector<RequestTiming>& requests);

}  // namespace tpnet
