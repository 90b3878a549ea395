// The RDMA counter and request timing CSVs (tpnet/io/counters_csv.hpp,
// docs/traffic.md): counters become bytes since each device's first read,
// resets and glitches are noted and never give a rate, and bad cells are
// named by file, line and column.

#include <string>

#include "catch.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/measured/traffic_windows.hpp"

using namespace tpnet;

namespace {

const char* const kHeader = "time_s,device,port,port_xmit_data,port_rcv_data\n";

std::string error_of(const std::string& text) {
  try {
    (void)parse_counters_csv(text, "c.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string requests_error_of(const std::string& text) {
  try {
    (void)parse_requests_csv(text, "r.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("counter reads become per-device bytes, four bytes per counter unit", "[traffic]") {
  const CounterSeries s = parse_counters_csv(std::string("# a comment\n") + kHeader +
                                                 "10.000,mlx5_0,1,1000,2000\n"
                                                 "10.000,mlx5_1,1,5,5\n"
                                                 "10.001,mlx5_0,1,1100,2010\n"
                                                 "10.0012,mlx5_1,1,7,9\n",
                                             "c.csv");
  REQUIRE(s.devices.size() == 2);
  CHECK(s.reads == 4);
  CHECK(s.notes.empty());
  CHECK(s.devices[0].device == "mlx5_0");
  CHECK(s.devices[0].samples[0].xmit.count() == 0.0);
  CHECK(s.devices[0].samples[1].xmit.count() == 400.0);
  CHECK(s.devices[0].samples[1].rcv.count() == 40.0);
  CHECK(s.devices[1].samples[1].xmit.count() == 8.0);
  CHECK(s.devices[1].samples[1].rcv.count() == 16.0);
  const auto intervals = traffic_intervals(s);
  REQUIRE(intervals.size() == 2);
  CHECK(intervals[0].end.value() == 10.001);
  CHECK(intervals[1].end.value() == 10.0012);
}

TEST_CASE("64-bit counters above 2^53 are read exactly as differences", "[traffic]") {
  const CounterSeries s =
      parse_counters_csv(std::string(kHeader) +
                             "0,d,1,18446744073709551000,9007199254740993\n"
                             "0.001,d,1,18446744073709551615,9007199254740995\n",
                         "c.csv");
  CHECK(s.devices[0].samples[1].xmit.count() == 615.0 * 4);
  CHECK(s.devices[0].samples[1].rcv.count() == 8.0);
}

TEST_CASE("a counter going backwards is a reset: counted from 0, with a note, never negative",
          "[traffic]") {
  const CounterSeries s = parse_counters_csv(std::string(kHeader) +
                                                 "0.000,d,1,100,100\n"
                                                 "0.001,d,1,200,300\n"
                                                 "0.002,d,1,50,400\n"
                                                 "0.003,d,1,60,18446744073709551615\n"
                                                 "0.004,d,1,70,3\n",
                                             "c.csv");
  const auto& samples = s.devices[0].samples;
  CHECK(samples[2].xmit.count() == 400.0 + 200.0);
  CHECK(samples[3].xmit.count() == 640.0);
  CHECK(samples[4].xmit.count() == 680.0);
  // A 64-bit wrap looks like a reset too: the bytes up to 2^64 are not guessed.
  CHECK(samples[4].rcv.count() == samples[3].rcv.count() + 12.0);
  for (std::size_t i = 1; i < samples.size(); ++i) {
    CHECK(samples[i].xmit.count() >= samples[i - 1].xmit.count());
    CHECK(samples[i].rcv.count() >= samples[i - 1].rcv.count());
  }
  // Line 5's rcv step (2^64 - 1 - 400 units in 1 ms) is no link's rate: a glitch.
  CHECK(samples[3].rcv.count() == samples[2].rcv.count());
  REQUIRE(s.notes.size() == 3);
  CHECK_THAT(s.notes[0], ContainsSubstring("c.csv line 4: d port 1 port_xmit_data went back"));
  CHECK_THAT(s.notes[0], ContainsSubstring("from 200 to 50"));
  CHECK_THAT(s.notes[1], ContainsSubstring("line 5"));
  CHECK_THAT(s.notes[1], ContainsSubstring("glitch"));
  CHECK_THAT(s.notes[2], ContainsSubstring("line 6"));
  CHECK_THAT(s.notes[2], ContainsSubstring("port_rcv_data"));
}

TEST_CASE("a counter jump faster than any link is a glitch, never a rate", "[traffic][bad-input]") {
  // 2^62 units (2^64 bytes) in 1 us: once reported as a 10^17 Gb/s peak.
  const CounterSeries s = parse_counters_csv(std::string(kHeader) +
                                                 "0.000000,d,1,0,0\n"
                                                 "0.000001,d,1,4611686018427387904,0\n"
                                                 "0.001001,d,1,4611686018427387905,1000\n",
                                             "c.csv");
  const auto& samples = s.devices[0].samples;
  CHECK(samples[1].xmit.count() == 0.0);
  CHECK(samples[2].xmit.count() == 4.0);
  CHECK(samples[2].rcv.count() == 4000.0);
  REQUIRE(s.notes.size() == 1);
  CHECK_THAT(s.notes[0], ContainsSubstring("c.csv line 3: d port 1 port_xmit_data jumped by "
                                           "4611686018427387904 units in 0.000001000 s"));
  CHECK_THAT(s.notes[0], ContainsSubstring("above any link's 10000 Gb/s"));
  // A plausible step stays: 1.25 GB in 1 ms is exactly 10 Tb/s.
  const CounterSeries fast = parse_counters_csv(std::string(kHeader) +
                                                    "0.000,d,1,0,0\n"
                                                    "0.001,d,1,312500000,0\n",
                                                "c.csv");
  CHECK(fast.devices[0].samples[1].xmit.count() == 1.25e9);
  CHECK(fast.notes.empty());
}

TEST_CASE("counter CSV errors name the file, line and column", "[traffic][bad-input]") {
  CHECK_THAT(error_of(""), ContainsSubstring("c.csv: is empty"));
  CHECK_THAT(error_of("# only a comment\n"), ContainsSubstring("c.csv: is empty"));
  CHECK_THAT(error_of(kHeader), ContainsSubstring("c.csv:1: has a header but no data rows"));
  CHECK_THAT(error_of("time_s,device,port,port_xmit_data\n0,d,1,5\n"),
             ContainsSubstring("c.csv:1: missing column 'port_rcv_data'"));
  CHECK_THAT(error_of("device,port,port_xmit_data,port_rcv_data\nd,1,5,5\n"),
             ContainsSubstring("c.csv:1: missing column 'time_s'"));
  CHECK_THAT(error_of(std::string(kHeader) + "0,d,1,5,5\nsoon,d,1,6,6\n"),
             ContainsSubstring("c.csv:3: column time_s: 'soon' is not a number"));
  CHECK_THAT(error_of(std::string(kHeader) + "0,d,1,5,5\n0.001,d,1,x6,6\n"),
             ContainsSubstring("c.csv:3: column port_xmit_data: 'x6' is not a counter"));
  CHECK_THAT(error_of(std::string(kHeader) + "0,d,1,5,-5\n"),
             ContainsSubstring("c.csv:2: column port_rcv_data: '-5' is not a counter"));
  CHECK_THAT(error_of(std::string(kHeader) + "0,d,1,5,5.5\n"),
             ContainsSubstring("c.csv:2: column port_rcv_data: '5.5' is not a counter"));
  CHECK_THAT(error_of(std::string(kHeader) + "0,d,1,5,18446744073709551616\n"),
             ContainsSubstring("column port_rcv_data"));
  CHECK_THAT(error_of(std::string(kHeader) + "0,d,1,5,5\n0,d,1,6\n"),
             ContainsSubstring("c.csv:3: has 4 cells; the header has 5"));
  CHECK_THAT(error_of(std::string(kHeader) + "0,,1,5,5\n0.001,d,1,6,6\n"),
             ContainsSubstring("c.csv:2: column device: is empty"));
  CHECK_THAT(error_of(std::string(kHeader) + "0,d,,5,5\n"),
             ContainsSubstring("c.csv:2: column port: is empty"));
  CHECK_THAT(error_of(std::string(kHeader) + "0.002,d,1,5,5\n0.001,e,1,5,5\n0.001,d,1,6,6\n"),
             ContainsSubstring("c.csv:4: column time_s: time 0.001 s is not later than d port "
                               "1's previous read at line 2"));
  CHECK_THAT(error_of(std::string(kHeader) + "0.002,d,1,5,5\n0.002,d,1,6,6\n"),
             ContainsSubstring("c.csv:3: column time_s"));
  CHECK_THAT(error_of(std::string(kHeader) + "0,d,1,5,5\n0,e,1,6,6\n"),
             ContainsSubstring("c.csv: has no device read twice"));
}

TEST_CASE("request timing CSV needs start <= first token <= end", "[traffic][bad-input]") {
  const auto r =
      parse_requests_csv("request_id,start_s,first_token_s,end_s\na,1,1.5,3\nb,2,2,2.5\n", "r.csv");
  REQUIRE(r.size() == 2);
  CHECK(r[1].first_token.value() == 2.0);
  CHECK_THAT(requests_error_of("request_id,start_s,first_token_s,end_s\na,1,0.5,3\n"),
             ContainsSubstring("r.csv:2: column first_token_s: first token comes before"));
  CHECK_THAT(requests_error_of("request_id,start_s,first_token_s,end_s\na,1,2,1.5\n"),
             ContainsSubstring("r.csv:2: column end_s"));
  CHECK_THAT(requests_error_of("request_id,start_s,end_s\na,1,2\n"),
             ContainsSubstring("r.csv:1: missing column 'first_token_s'"));
  CHECK_THAT(requests_error_of("request_id,start_s,first_token_s,end_s\na,x,2,3\n"),
             ContainsSubstring("r.csv:2: column start_s: 'x' is not a number"));
}
