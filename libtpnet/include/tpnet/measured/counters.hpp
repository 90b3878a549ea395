#pragma once
/// RDMA port counters read on one node, and the timing of the requests they
/// ran under (docs/traffic.md). Times are on the sampler's clock, whatever its
/// origin; bytes are counted since each device's first read. Readers:
/// tpnet/io/counters_csv.hpp.

#include <string>
#include <vector>

#include "tpnet/base/units.hpp"

namespace tpnet {

/// One read of one device.
struct CounterSample {
  Seconds time;  ///< on the sampler's clock
  Bytes xmit;    ///< transmitted since the device's first read, never decreasing
  Bytes rcv;     ///< received since the device's first read
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

/// One request's timing, on the same clock as the counter reads.
struct RequestTiming {
  std::string id;
  Seconds start;
  Seconds first_token;
  Seconds end;
};

}  // namespace tpnet
