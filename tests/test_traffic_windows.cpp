// Averaging windows over counter samples (tpnet/measured/traffic_windows.hpp,
// docs/traffic.md, docs/formulas.md s.17), built by hand. The counter CSV's
// reader is tested in test_counters_csv.cpp.

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
