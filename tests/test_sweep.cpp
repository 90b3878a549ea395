// Measured load sweeps and their arithmetic (tpnet/measured/sweep.hpp,
// docs/formulas.md s.13): a point judged against the SLOs, C_max and what
// decides it, whether a rate was sustained, and users by Little's law.

#include <optional>
#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/measured/sweep.hpp"

using namespace tpnet;

namespace {

SweepPoint point_at(int concurrency, double ttft_ms, double tps, double latency_s, int line) {
  SweepPoint p;
  p.concurrency = concurrency;
  p.ttft = Seconds::milliseconds(ttft_ms);
  p.tps = TokenRate(tps);
  if (latency_s > 0.0) p.latency = Seconds(latency_s);
  p.source = InputLocation::in_file("t.csv", line);
  return p;
}

std::vector<PointVerdict> judged(const Sweep& sweep, const SloSpec& slo, double edge) {
  std::vector<PointVerdict> verdicts;
  for (const auto& p : sorted_points(sweep)) {
    verdicts.push_back(judge_point(p, slo, edge, sweep.axis));
  }
  return verdicts;
}

}  // namespace

TEST_CASE("Little's law on the rate axis: users = rate x (latency + think)", "[golden][sweep]") {
  // 2 requests/s, each 10 s long, users thinking 45 s between requests:
  // 2 x (10 + 45) = 110 users; the same as C = 2 x 10 = 20 in flight, 20 x (1 + 45/10).
  CHECK(*users_at_rate(2.0, Seconds(10.0), Seconds(45.0)) == 110.0);
  CHECK(*users_by_littles_law(20.0, Seconds(10.0), Seconds(45.0)) == 110.0);
  CHECK(*users_at_rate(0.0, std::nullopt, Seconds(45.0)) == 0.0);
  CHECK_FALSE(users_at_rate(2.0, std::nullopt, Seconds(45.0)));
  // A sustained run of 600 requests at 10 requests/s ends a tail after 60 s.
  CHECK(sustained_rate(10.0, 600, Seconds(15.0)) == 600.0 / 75.0);
  // Three standard deviations of the sum of 100 exponential gaps: 30%; of
  // 10,000: 3%, floored at 10%.
  CHECK_THAT(sustained_margin(100, 1.0), WithinRel(0.3, 1e-12));
  CHECK(sustained_margin(10000, 1.0) == 0.10);
}

TEST_CASE("a point meets an SLO it equals, and lies on the edge within the margin", "[sweep]") {
  const SloSpec slo;  // 1000 ms, 15 tokens/s
  const PointVerdict at =
      judge_point(point_at(2, 1000.0, 15.0, 4.0, 2), slo, 0.02, LoadAxis::concurrency);
  CHECK(at.meets_ttft);
  CHECK(at.meets_tps);
  CHECK(at.meets());
  CHECK(at.ttft_on_edge);
  CHECK(at.tps_on_edge);
  const PointVerdict over =
      judge_point(point_at(4, 1030.0, 20.0, 5.0, 3), slo, 0.02, LoadAxis::concurrency);
  CHECK_FALSE(over.meets_ttft);
  CHECK_FALSE(over.ttft_on_edge);  // 3% over a 2% edge
  CHECK_FALSE(over.tps_on_edge);
  CHECK(sets_load_level(over, LoadAxis::concurrency));
}

TEST_CASE("C_max's decision: the level at C_max, the first level failing, users rounded down",
          "[sweep]") {
  Sweep s{"TP2", 2, LoadAxis::concurrency, {}, {}};
  // Given out of order: sorted_points puts them by concurrency.
  s.points = {point_at(4, 1500.0, 14.0, 9.0, 4), point_at(1, 200.0, 30.0, 3.0, 2),
              point_at(2, 900.0, 16.0, 7.0, 3)};
  const std::vector<PointVerdict> verdicts = judged(s, SloSpec{}, 0.02);
  REQUIRE(verdicts.size() == 3);
  CHECK(verdicts[0].point.concurrency == 1);
  CHECK(max_load(verdicts, SloSpec{}, LoadAxis::concurrency) == 2.0);
  CHECK(max_load(s, SloSpec{}) == 2.0);
  const MaxLoadDecision d =
      decide_max_load(verdicts, SloSpec{}, Seconds(45.0), LoadAxis::concurrency);
  CHECK(d.c_max == 2.0);
  REQUIRE(d.at_c_max != nullptr);
  CHECK(d.at_c_max->point.concurrency == 2);
  REQUIRE(d.failing != nullptr);
  CHECK(d.failing->point.concurrency == 4);
  CHECK_FALSE(d.on_edge);
  CHECK(d.latency == Seconds(7.0));
  // 2 x (1 + 45 / 7) = 14.86: 14 whole users.
  CHECK(d.users == 14.0);
  // Loosened by 10%, 14 tokens/s at C=4 still fails TTFT 1500 ms > 1100 ms.
  CHECK(max_load(verdicts, shifted_slo(SloSpec{}, 0.1, true), LoadAxis::concurrency) == 2.0);
  // Tightened by 15%, 900 ms > 850 ms fails at C=2.
  CHECK(max_load(verdicts, shifted_slo(SloSpec{}, 0.15, false), LoadAxis::concurrency) == 1.0);
}

TEST_CASE(
    "a rate run that fell behind its rate is not sustained, and an unlimited one sets no "
    "level",
    "[sweep]") {
  SweepPoint behind;
  behind.request_rate = 4.0;
  behind.ttft = Seconds(0.7);
  behind.tps = TokenRate(18.0);
  behind.latency = Seconds(20.0);
  behind.completed = 500;
  behind.achieved_rate = 2.0;
  // 500 / (500/4 + 40) = 3.03 requests/s expected of a sustained run.
  const PointVerdict v = judge_point(behind, SloSpec{}, 0.02, LoadAxis::request_rate);
  CHECK(v.sustained_judged);
  CHECK_FALSE(v.sustained);
  CHECK_FALSE(v.meets());
  CHECK_THAT(*v.expected_rate, WithinRel(500.0 / 165.0, 1e-12));
  CHECK(v.tail == Seconds(40.0));

  SweepPoint unlimited = behind;
  unlimited.request_rate.reset();
  const PointVerdict u = judge_point(unlimited, SloSpec{}, 0.02, LoadAxis::request_rate);
  CHECK(u.unlimited());
  CHECK_FALSE(sets_load_level(u, LoadAxis::request_rate));
  CHECK(load_level(unlimited, LoadAxis::request_rate) == 0.0);
  CHECK(load_level_text(unlimited, LoadAxis::request_rate) == "rate inf");
  CHECK(load_level_text(behind, LoadAxis::request_rate) == "4 requests/s");
  CHECK(load_level_text(8.0, LoadAxis::concurrency) == "C=8");
}

TEST_CASE("a sweep's points are refused where no level can be judged", "[sweep][bad-input]") {
  Sweep empty{"TP1", 1, LoadAxis::concurrency, {}, {}};
  CHECK_THROWS_WITH(sorted_points(empty), ContainsSubstring("config 'TP1' has no measured points"));
  Sweep twice{"TP2", 2, LoadAxis::concurrency, {}, {}};
  twice.points = {point_at(8, 100.0, 20.0, 2.0, 2), point_at(8, 120.0, 19.0, 2.0, 9)};
  CHECK_THROWS_WITH(sorted_points(twice),
                    ContainsSubstring("config 'TP2' has concurrency 8 twice (also at t.csv:2)"));
  Sweep zero{"TP4", 4, LoadAxis::concurrency, {}, {}};
  zero.points = {point_at(1, 0.0, 20.0, 2.0, 2)};
  CHECK_THROWS_WITH(sorted_points(zero),
                    ContainsSubstring("at C=1: TTFT and TPS must be positive"));
  CHECK(source_text(InputLocation::in_file("a.csv", 3, "ttft_ms")) == "a.csv:3 ttft_ms");
  CHECK(source_text(InputLocation{}) == "input");
}

TEST_CASE("a statistic a point lacks is refused naming slo.statistic, and the mean always holds",
          "[sweep][bad-input]") {
  SweepPoint p = point_at(1, 300.0, 20.0, 2.0, 5);
  p.ttft_percentiles_s = {0.25, 0.0, 0.9};
  p.tps_percentiles = {21.0, 0.0, 12.0};
  CHECK(ttft_at(p, SloStatistic::mean) == p.ttft);
  CHECK(ttft_at(p, SloStatistic::p99) == Seconds(0.9));
  CHECK(tps_at(p, SloStatistic::median) == TokenRate(21.0));
  try {
    (void)ttft_at(p, SloStatistic::p90);
    FAIL("a missing p90 was accepted");
  } catch (const InputError& e) {
    CHECK(e.where().key == "slo.statistic");
    CHECK_THAT(e.what(), ContainsSubstring("t.csv:5 has no p90 TTFT"));
  }
  CHECK(to_string(SloStatistic::p99) == "p99");
  CHECK(to_string(LoadAxis::request_rate) == "request_rate");
}
