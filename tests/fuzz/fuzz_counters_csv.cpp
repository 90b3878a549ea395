// RDMA counter samples through parse_counters_csv, then the traffic
// intervals and averaging windows `tpnet traffic` reports. The windows are
// fractions of the file's span, so a long capture does not ask for
// millions of windows.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "fuzz_traffic.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/measured/traffic_windows.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpnet;
  using namespace tpnet::fuzz;
  contract(Origin::file, [&] {
    const CounterSeries series = parse_counters_csv(text_of(data, size), "fuzz/counters.csv");
    check_series(series);
    contract(Origin::any, [&] {
      const std::vector<TrafficInterval> intervals = traffic_intervals(series);
      check_intervals(intervals);
      analyze_windows(intervals);
    });
  });
  return 0;
}
