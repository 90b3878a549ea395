// `tpnet traffic` as a use case (tpnet/usecase/traffic_report.hpp): the
// windows over the whole capture, the warnings, and the split by phase.

#include <string>

#include "catch.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/usecase/traffic_report.hpp"

using namespace tpnet;

namespace {

const char* const kHeader = "time_s,device,port,port_xmit_data,port_rcv_data\n";

std::string example(const std::string& name) {
  return std::string(TPNET_SOURCE_DIR) + "/examples/traffic/" + name;
}

}  // namespace

TEST_CASE("a window longer than the capture is flagged and warned about", "[traffic]") {
  TrafficRequest request;
  request.samples =
      parse_counters_csv(std::string(kHeader) + "0.0,d,1,0,0\n0.3,d,1,1000,0\n", "c.csv");
  request.windows = {Seconds(0.1), Seconds(1.0)};
  const TrafficReport r = analyze_traffic(request);
  REQUIRE(r.all.windows.size() == 2);
  CHECK_FALSE(r.all.windows[0].longer_than_span);
  CHECK(r.all.windows[1].longer_than_span);
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0],
             ContainsSubstring("the capture (300 ms) is shorter than the 1 s window"));
  // The one window averages over the 0.3 s captured: 4,000 B x 8 / 0.3 s.
  CHECK_THAT(r.all.windows[1].xmit.peak.bits_per_second(), WithinRel(4000.0 * 8 / 0.3, 1e-12));
  // Without request timings there is nothing to split.
  CHECK(r.phases.empty());
  CHECK(r.requests == 0);
  CHECK(r.devices == std::vector<std::string>{"d port 1"});
}

TEST_CASE("the synthetic capture splits into 20 x 88.1 MB of prefill and 100 MB of decode",
          "[traffic][golden]") {
  TrafficRequest request;
  request.samples = load_counters_csv(example("counters_synthetic.csv"));
  request.requests = load_requests_csv(example("requests_synthetic.csv"));
  request.windows = {Seconds(1e-3), Seconds(0.1)};
  const TrafficReport r = analyze_traffic(request);
  CHECK(r.devices.size() == 2);
  CHECK(r.requests == 1);
  REQUIRE(r.phases.size() == 3);
  CHECK(r.phases[0].phase == "prefill");
  CHECK(r.phases[1].phase == "decode");
  CHECK(r.phases[2].phase == "other");
  // The batch's prefill runs 0-200 ms and its decode 200-300 ms: one sample
  // interval straddles 200 ms and is split by time, which moves 0.09 MB.
  CHECK_THAT(r.phases[0].windows.xmit.count(), WithinRel(20 * 88.1e6, 1e-3));
  CHECK_THAT(r.phases[1].windows.xmit.count(), WithinRel(100e6, 1e-2));
  CHECK(r.phases[2].windows.xmit.count() == 0.0);
  // Every window size conserves the bytes: the phases add up to the whole.
  for (std::size_t w = 0; w < request.windows.size(); ++w) {
    double phases = 0.0;
    for (const auto& p : r.phases) phases += p.windows.windows[w].xmit.bytes.count();
    CHECK_THAT(phases, WithinRel(r.all.windows[w].xmit.bytes.count(), 1e-12));
  }
}
