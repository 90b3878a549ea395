// Request timing files through parse_requests_csv, then the prefill/decode
// split of a fixed counter capture and the windows of each phase.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "fuzz_traffic.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/measured/traffic_windows.hpp"

namespace {

// Two devices read 5 times over 0.4 s: 1 MB per 0.1 s each way.
const char* const kCounters =
    "time_s,device,port,port_xmit_data,port_rcv_data\n"
    "0.0,mlx5_0,1,0,0\n0.0,mlx5_1,1,0,0\n"
    "0.1,mlx5_0,1,250000,250000\n0.1,mlx5_1,1,250000,250000\n"
    "0.2,mlx5_0,1,500000,500000\n0.2,mlx5_1,1,500000,500000\n"
    "0.3,mlx5_0,1,750000,750000\n0.3,mlx5_1,1,750000,750000\n"
    "0.4,mlx5_0,1,1000000,1000000\n0.4,mlx5_1,1,1000000,1000000\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpnet;
  using namespace tpnet::fuzz;
  static const std::vector<TrafficInterval> intervals =
      traffic_intervals(parse_counters_csv(kCounters, "fixed counters"));
  contract(Origin::file, [&] {
    const std::vector<RequestTiming> requests =
        parse_requests_csv(text_of(data, size), "fuzz/requests.csv");
    for (const auto& r : requests) {
      finite(r.start.value(), "start");
      finite(r.first_token.value(), "first_token");
      finite(r.end.value(), "end");
      if (!(r.start <= r.first_token && r.first_token <= r.end)) {
        violated("request times out of order");
      }
    }
    contract(Origin::any, [&] {
      const PhaseSplit split = split_by_phase(intervals, requests);
      double xmit = 0.0;
      for (const auto* phase : {&split.prefill, &split.decode, &split.other}) {
        check_intervals(*phase);
        for (const auto& i : *phase) xmit += i.xmit.count();
        analyze_windows(*phase);
      }
      // The split moves bytes between phases; it neither makes nor loses any.
      double total = 0.0;
      for (const auto& i : intervals) total += i.xmit.count();
      if (std::fabs(xmit - total) > 1e-6 * total) violated("phase split changed the bytes");
    });
  });
  return 0;
}
