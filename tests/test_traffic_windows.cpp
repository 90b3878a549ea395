// Counter samples and averaging windows (docs/traffic.md, docs/formulas.md
// s.17): the reader's bad-input contract, resets, and windows built by hand.

#include <cmath>

#include "catch.hpp"
#include "golden.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/measured/traffic_windows.hpp"

using namespace tpnet;
using tpnet::test::prints_as;

namespace {

TrafficInterval iv(double start, double end, double xmit, double rcv) {
  return TrafficInterval{Seconds(start), Seconds(end), Bytes(xmit), Bytes(rcv)};
}

std::vector<double> as_bps(const std::vector<BitRate>& rates) {
  std::vector<double> out;
  out.reserve(rates.size());
  for (const BitRate r : rates) out.push_back(r.bits_per_second());
  return out;
}

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

double sum(const std::vector<double>& bps, double window_s) {
  double bytes = 0.0;
  for (double r : bps) bytes += r * window_s / 8.0;
  return bytes;
}

/// 100 ms of 1 ms intervals: 3 ms at 200 Gb/s (25 MB per ms), then 7 ms idle.
std::vector<TrafficInterval> bursts() {
  std::vector<TrafficInterval> out;
  for (int k = 0; k < 100; ++k) {
    const double bytes = k % 10 < 3 ? 25e6 : 0.0;
    out.push_back(iv(k * 1e-3, (k + 1) * 1e-3, bytes, bytes / 2));
  }
  return out;
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

TEST_CASE("3 ms bursts at 200 Gb/s with 7 ms gaps peak at 200 Gb/s in 1 ms and 60 Gb/s in 10 ms",
          "[traffic][golden]") {
  const auto t = traffic_windows(
      bursts(), {Seconds(1e-3), Seconds(5e-3), Seconds(10e-3), Seconds(100e-3), Seconds(1.0)});
  REQUIRE(t.windows.size() == 5);
  CHECK(t.xmit.count() == 10 * 3 * 25e6);
  CHECK_THAT(t.windows[0].xmit.peak.bits_per_second(), WithinRel(200e9, 1e-9));
  // The peak window lies in a burst (the first 3 ms of a 10 ms period).
  CHECK(std::fmod(std::round(t.windows[0].xmit.peak_start.value() * 1e3), 10.0) < 3.0);
  // 5 ms: a window holds the 3 ms burst and 2 ms of gap: 75 MB in 5 ms.
  CHECK_THAT(t.windows[1].xmit.peak.bits_per_second(), WithinRel(120e9, 1e-9));
  CHECK_THAT(t.windows[2].xmit.peak.bits_per_second(), WithinRel(60e9, 1e-9));
  CHECK_THAT(t.windows[2].xmit.mean.bits_per_second(), WithinRel(60e9, 1e-9));
  CHECK_THAT(t.windows[0].xmit.peak_to_mean, WithinRel(200.0 / 60.0, 1e-9));
  CHECK_THAT(t.windows[2].xmit.peak_to_mean, WithinRel(1.0, 1e-9));
  // A 1 s window over a 100 ms span is cut short and divided by what it covers.
  REQUIRE(t.windows[4].xmit_series.size() == 1);
  CHECK_THAT(t.windows[4].xmit_series[0].bits_per_second(), WithinRel(60e9, 1e-9));
  CHECK_THAT(t.windows[0].rcv.peak.bits_per_second(), WithinRel(100e9, 1e-9));
}

TEST_CASE("bytes are conserved at every window size", "[traffic]") {
  // Uneven reads: 0.37 ms apart, so most intervals straddle window edges.
  std::vector<TrafficInterval> intervals;
  double total = 0.0;
  for (int k = 0; k < 500; ++k) {
    const double bytes = 1e5 * ((k * 7) % 11);
    intervals.push_back(iv(5.0 + k * 0.37e-3, 5.0 + (k + 1) * 0.37e-3, bytes, 0.0));
    total += bytes;
  }
  for (const double w : {1e-3, 3e-3, 5e-3, 7e-3, 100e-3, 1.0}) {
    const auto t = traffic_windows(intervals, {Seconds(w)});
    INFO("window " << w);
    CHECK_THAT(t.windows[0].xmit.bytes.count(), WithinRel(total, 1e-12));
    CHECK_THAT(t.windows[0].xmit.mean.bits_per_second(),
               WithinRel(total * 8 / (500 * 0.37e-3), 1e-9));
    CHECK(t.windows[0].rcv.peak_to_mean == 0.0);
    CHECK(t.windows[0].xmit.peak.bits_per_second() >=
          t.windows[0].xmit.mean.bits_per_second() * (1 - 1e-12));
  }
  // The rates times the time each window covers give the bytes back; the
  // last window covers only what is left of the 185 ms span.
  const auto fine = traffic_windows(intervals, {Seconds(0.4e-3)});
  const auto bps = as_bps(fine.windows[0].xmit_series);
  REQUIRE(bps.size() == 463);
  const double last_covered = 500 * 0.37e-3 - 462 * 0.4e-3;
  CHECK_THAT(sum(bps, 0.4e-3) - bps.back() * (0.4e-3 - last_covered) / 8, WithinRel(total, 1e-9));
}

TEST_CASE("an interval spanning several windows is spread in proportion to the overlap",
          "[traffic]") {
  // Reads at 0, 0.5 ms and 3 ms: 10 MB moved between 0.5 and 3 ms.
  const std::vector<TrafficInterval> intervals{iv(0.0, 0.5e-3, 0.0, 0.0),
                                               iv(0.5e-3, 3e-3, 10e6, 0.0)};
  const auto t = traffic_windows(intervals, {Seconds(1e-3)});
  const auto bps = as_bps(t.windows[0].xmit_series);
  REQUIRE(bps.size() == 3);
  CHECK(prints_as(bps[0] * 1e-3 / 8 / 1e6, 2.0, 9));  // 0.5 of 2.5 ms
  CHECK(prints_as(bps[1] * 1e-3 / 8 / 1e6, 4.0, 9));
  CHECK(prints_as(bps[2] * 1e-3 / 8 / 1e6, 4.0, 9));
  CHECK_THAT(t.windows[0].xmit.peak.bits_per_second(), WithinRel(32e9, 1e-9));
}

TEST_CASE("two devices' bytes add up across their own read times", "[traffic]") {
  const CounterSeries s = parse_counters_csv(std::string(kHeader) +
                                                 "0.0000,a,1,0,0\n0.0005,b,1,0,0\n"
                                                 "0.0010,a,1,250,0\n0.0015,b,1,500,0\n",
                                             "c.csv");
  const auto t = traffic_windows(traffic_intervals(s), {Seconds(0.5e-3)});
  REQUIRE(t.windows[0].xmit_series.size() == 3);
  // a: 1000 B over [0, 1 ms); b: 2000 B over [0.5, 1.5 ms).
  CHECK_THAT(t.windows[0].xmit_series[0].bits_per_second(), WithinRel(500 * 8 / 0.5e-3, 1e-9));
  CHECK_THAT(t.windows[0].xmit_series[1].bits_per_second(), WithinRel(1500 * 8 / 0.5e-3, 1e-9));
  CHECK_THAT(t.windows[0].xmit_series[2].bits_per_second(), WithinRel(1000 * 8 / 0.5e-3, 1e-9));
  CHECK(t.xmit.count() == 3000.0);
}

TEST_CASE("bytes split into prefill and decode by time overlap", "[traffic]") {
  const std::vector<TrafficInterval> intervals{
      iv(0.0, 0.010, 100.0, 10.0), iv(0.010, 0.020, 50.0, 0.0), iv(0.020, 0.030, 30.0, 0.0)};
  // Request a: prefill 0-4 ms, decode 4-20 ms. Request b: prefill 15-20 ms.
  const std::vector<RequestTiming> requests{{"a", Seconds(0.0), Seconds(0.004), Seconds(0.020)},
                                            {"b", Seconds(0.015), Seconds(0.020), Seconds(0.020)}};
  const PhaseSplit s = split_by_phase(intervals, requests);
  CHECK_THAT(s.prefill[0].xmit.count(), WithinRel(40.0, 1e-12));
  CHECK_THAT(s.decode[0].xmit.count(), WithinRel(60.0, 1e-12));
  CHECK_THAT(s.decode[0].rcv.count(), WithinRel(6.0, 1e-12));
  // 10-20 ms: 10 ms of decode and 5 ms of prefill overlap: bytes split 2:1.
  CHECK_THAT(s.decode[1].xmit.count(), WithinRel(100.0 / 3, 1e-12));
  CHECK_THAT(s.prefill[1].xmit.count(), WithinRel(50.0 / 3, 1e-12));
  CHECK(s.other[1].xmit.count() == 0.0);
  CHECK(s.other[2].xmit.count() == 30.0);
  CHECK(s.prefill[2].xmit.count() == 0.0);
}

TEST_CASE("windows must be positive and not absurdly many", "[traffic][bad-input]") {
  const auto intervals = bursts();
  CHECK_THROWS_AS(traffic_windows(intervals, {Seconds(0.0)}), InputError);
  CHECK_THROWS_AS(traffic_windows(intervals, {Seconds(1e-12)}), InputError);
  CHECK_THROWS_AS(traffic_windows({}, {Seconds(1e-3)}), InputError);
}

TEST_CASE("the synthetic example peaks at 200 Gb/s in 1 ms and near its mean in 1 s",
          "[traffic][golden]") {
  const CounterSeries s =
      load_counters_csv(std::string(TPNET_SOURCE_DIR) + "/examples/traffic/counters_synthetic.csv");
  REQUIRE(s.devices.size() == 2);
  const auto t = traffic_windows(traffic_intervals(s), {Seconds(1e-3), Seconds(1.0)});
  // 20 prefill bursts of 88.1 MB and 100 ms of decode at 1 MB per ms, to the 4-byte unit.
  CHECK_THAT(t.xmit.count(), WithinAbs(20 * 88.1e6 + 100e6, 16));
  CHECK(prints_as(t.windows[0].xmit.peak.bits_per_second() / 1e9, 200.0, 0));
  CHECK_THAT(t.windows[1].xmit.peak.bits_per_second(),
             WithinRel(t.windows[1].xmit.mean.bits_per_second(), 1e-12));
}

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
}
