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

TEST_CASE("traffic's document: the capture, the windows, the series on request, the phases",
          "[traffic]") {
  TrafficRequest request;
  request.samples = load_counters_csv(example("counters_synthetic.csv"));
  request.windows = {Seconds(1e-3), Seconds(0.1)};
  request.source = "counters_synthetic.csv";
  const TrafficReport whole = analyze_traffic(request);
  const Document doc = traffic_report_document(request, whole);
  CHECK(doc.title == "tpnet traffic: counters_synthetic.csv (2 devices, " +
                         std::to_string(whole.reads) + " reads; rates summed over devices)");
  CHECK(doc.answer.empty());
  CHECK(doc.warnings == whole.warnings);
  std::vector<std::string> keys;
  for (const Field& f : doc.fields) keys.push_back(f.key);
  CHECK(keys == std::vector<std::string>{"devices", "reads", "start_s", "span_s", "xmit_bytes",
                                         "rcv_bytes", "windows"});
  // Two rows a window size, transmit first; the window's own key leads each row.
  REQUIRE(doc.fields.back().records.size() == 4);
  CHECK(doc.fields.back().records[0][0].key == "window_s");
  CHECK(doc.fields.back().records[0][1].text == "transmit");
  CHECK(doc.fields.back().records[1][1].text == "receive");

  request.series = true;
  request.requests = load_requests_csv(example("requests_synthetic.csv"));
  const TrafficReport split = analyze_traffic(request);
  const Document phased = traffic_report_document(request, split);
  keys.clear();
  for (const Field& f : phased.fields) keys.push_back(f.key);
  CHECK(keys == std::vector<std::string>{"devices", "reads", "start_s", "span_s", "xmit_bytes",
                                         "rcv_bytes", "windows", "series", "requests", "phases"});
  CHECK(phased.fields[7].json_only);
  // prefill, decode and other at two window sizes, both directions.
  CHECK(phased.fields.back().records.size() == 12);
  CHECK(phased.fields.back().records[0][0].text == "prefill");
}
