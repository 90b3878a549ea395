#include "tpnet/io/counters_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>

#include "csv_table.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/io/text_file.hpp"

namespace tpnet {
namespace {

constexpr double kBytesPerCounterUnit = 4.0;  // port_xmit_data/port_rcv_data count 4-byte words

/// Timestamps may have any origin (a monotonic clock, the epoch), so they are
/// bounded by size, not by the duration limits: 10^12 s is some 31,700 years,
/// and differences of such times stay finite.
constexpr double kMaxTimestamp = 1e12;

double timestamp(const csv::Table& table, const csv::Row& row, std::size_t column,
                 const std::string& origin, const char* name) {
  const double value = table.number(row, column);
  if (value < -kMaxTimestamp || value > kMaxTimestamp) {
    throw InputError(fmt::format("{} s is outside -1e+12 to 1e+12 s", table.text(row, column)),
                     InputLocation::in_file(origin, row.line, std::string("column ") + name));
  }
  return value;
}

std::uint64_t counter_cell(const csv::Table& table, const csv::Row& row, std::size_t column,
                           const std::string& origin, const char* name) {
  const std::string& cell = table.text(row, column);
  std::uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (cell.empty() || ec != std::errc() || ptr != cell.data() + cell.size()) {
    throw InputError("'" + cell + "' is not a counter (a whole number from 0 to 2^64-1)",
                     InputLocation::in_file(origin, row.line, std::string("column ") + name));
  }
  return value;
}

struct DeviceState {
  std::size_t index = 0;
  std::uint64_t xmit = 0;
  std::uint64_t rcv = 0;
  double time_s = 0.0;
  int line = 0;
};

/// Bytes since the previous read `seconds` earlier; a lower value is a reset
/// and counts from 0. A step faster than any link (kMaxCounterBitsPerSecond)
/// is a reset or a glitch, not traffic: the interval counts nothing, noted.
double advance(std::uint64_t previous, std::uint64_t now, double seconds, const char* counter,
               const DeviceSeries& device, int line, const std::string& origin,
               std::vector<std::string>& notes) {
  const bool reset = now < previous;
  const double bytes = static_cast<double>(reset ? now : now - previous) * kBytesPerCounterUnit;
  const std::string where =
      fmt::format("{} line {}: {} port {} {}", origin, line, device.device, device.port, counter);
  const double bits_per_second = bytes * 8.0 / seconds;
  if (bits_per_second > kMaxCounterBitsPerSecond) {
    notes.push_back(fmt::format(
        "{} {} by {} units in {} s, {} Gb/s, above any link's {:.0f} Gb/s: a counter reset "
        "or glitch, not traffic; that interval counts 0 bytes",
        where, reset ? "went back and restarted" : "jumped", reset ? now : now - previous,
        fmt::format("{:.9f}", seconds),
        bits_per_second > 1e18 ? "more than 1000000000"
                               : fmt::format("{:.0f}", bits_per_second / 1e9),
        kMaxCounterBitsPerSecond / 1e9));
    return 0.0;
  }
  if (reset) {
    notes.push_back(
        fmt::format("{} went back from {} to {}; treated as a reset, counting the new "
                    "value from 0",
                    where, previous, now));
  }
  return bytes;
}

}  // namespace

CounterSeries parse_counters_csv(std::string_view text, const std::string& origin) {
  struct Columns {
    std::size_t time, device, port, xmit, rcv;
  };
  std::optional<Columns> columns;
  CounterSeries series;
  std::map<std::string, DeviceState> states;
  // Streamed: a long 1 ms capture keeps only its samples, not its cells.
  csv::Table::stream(text, origin, [&](const csv::Table& table, const csv::Row& row) {
    if (!columns) {
      columns = Columns{table.require_column("time_s"), table.require_column("device"),
                        table.require_column("port"), table.require_column("port_xmit_data"),
                        table.require_column("port_rcv_data")};
    }
    const std::size_t time_column = columns->time;
    const double time_s = timestamp(table, row, time_column, origin, "time_s");
    const std::string& device = table.text(row, columns->device);
    const std::string& port = table.text(row, columns->port);
    if (device.empty()) {
      throw InputError("is empty; name the RDMA device (e.g. rocep1s0f0)",
                       InputLocation::in_file(origin, row.line, "column device"));
    }
    if (port.empty()) {
      throw InputError("is empty; give the port number (e.g. 1)",
                       InputLocation::in_file(origin, row.line, "column port"));
    }
    const std::uint64_t xmit = counter_cell(table, row, columns->xmit, origin, "port_xmit_data");
    const std::uint64_t rcv = counter_cell(table, row, columns->rcv, origin, "port_rcv_data");
    ++series.reads;

    const std::string key = fmt::format("{}\n{}", device, port);
    auto found = states.find(key);
    if (found == states.end()) {
      states.emplace(key, DeviceState{series.devices.size(), xmit, rcv, time_s, row.line});
      series.devices.push_back(
          DeviceSeries{device, port, {CounterSample{Seconds(time_s), Bytes(0.0), Bytes(0.0)}}});
      return;
    }
    DeviceState& state = found->second;
    DeviceSeries& out = series.devices[state.index];
    if (!(time_s > state.time_s)) {
      throw InputError(fmt::format("time {} s is not later than {} port {}'s previous read at "
                                   "line {}; times must increase per device",
                                   table.text(row, time_column), device, port, state.line),
                       InputLocation::in_file(origin, row.line, "column time_s"));
    }
    const CounterSample& last = out.samples.back();
    CounterSample sample;
    sample.time = Seconds(time_s);
    sample.xmit = last.xmit + Bytes(advance(state.xmit, xmit, time_s - state.time_s,
                                            "port_xmit_data", out, row.line, origin, series.notes));
    sample.rcv = last.rcv + Bytes(advance(state.rcv, rcv, time_s - state.time_s, "port_rcv_data",
                                          out, row.line, origin, series.notes));
    out.samples.push_back(sample);
    state = DeviceState{state.index, xmit, rcv, time_s, row.line};
  });
  bool any_interval = false;
  for (const auto& d : series.devices) any_interval = any_interval || d.samples.size() >= 2;
  if (!any_interval) {
    throw InputError("has no device read twice; a rate needs at least two reads of one device",
                     InputLocation::in_file(origin));
  }
  return series;
}

CounterSeries load_counters_csv(const std::string& path) {
  return parse_counters_csv(read_text_file(path), path);
}

std::vector<RequestTiming> parse_requests_csv(std::string_view text, const std::string& origin) {
  struct Columns {
    std::size_t id, start, first, end;
  };
  std::optional<Columns> columns;
  std::vector<RequestTiming> requests;
  csv::Table::stream(text, origin, [&](const csv::Table& table, const csv::Row& row) {
    if (!columns) {
      columns = Columns{table.require_column("request_id"), table.require_column("start_s"),
                        table.require_column("first_token_s"), table.require_column("end_s")};
    }
    RequestTiming r;
    r.id = table.text(row, columns->id);
    r.start = Seconds(timestamp(table, row, columns->start, origin, "start_s"));
    r.first_token = Seconds(timestamp(table, row, columns->first, origin, "first_token_s"));
    r.end = Seconds(timestamp(table, row, columns->end, origin, "end_s"));
    if (r.first_token < r.start) {
      throw InputError("first token comes before the request's start",
                       InputLocation::in_file(origin, row.line, "column first_token_s"));
    }
    if (r.end < r.first_token) {
      throw InputError("end comes before the request's first token",
                       InputLocation::in_file(origin, row.line, "column end_s"));
    }
    requests.push_back(std::move(r));
  });
  return requests;
}

std::vector<RequestTiming> load_requests_csv(const std::string& path) {
  return parse_requests_csv(read_text_file(path), path);
}

std::string counters_csv_text(const CounterSeries& series) {
  std::string out = "time_s,device,port,port_xmit_data,port_rcv_data\n";
  std::size_t reads = 0;
  for (const auto& d : series.devices) reads = std::max(reads, d.samples.size());
  auto words = [](Bytes b) {
    return static_cast<unsigned long long>(std::floor(std::max(0.0, b.count()) / 4.0));
  };
  for (std::size_t i = 0; i < reads; ++i) {
    for (const auto& d : series.devices) {
      if (i >= d.samples.size()) continue;
      const CounterSample& s = d.samples[i];
      out += fmt::format("{:.6f},{},{},{},{}\n", s.time.value(), d.device, d.port, words(s.xmit),
                         words(s.rcv));
    }
  }
  return out;
}

std::string requests_csv_text(const std::vector<RequestTiming>& requests) {
  std::string out = "request_id,start_s,first_token_s,end_s\n";
  for (const auto& r : requests) {
    out += fmt::format("{},{:.6f},{:.6f},{:.6f}\n", r.id, r.start.value(), r.first_token.value(),
                       r.end.value());
  }
  return out;
}

}  // namespace tpnet
