// Capacity under SLOs (docs/background.md s.7): the Qwen3.6-27B and DeepSeek-V4.1-Flash
// studies reproduced, and the rules behind C_max, users, sensitivity, fleets
// and scaling on small sweeps written here.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "catch.hpp"
#include "golden.hpp"
#include "tpnet/io/sweep_io.hpp"
#include "tpnet/usecase/capacity.hpp"

using namespace tpnet;
using tpnet::test::prints_as;

namespace {

const std::string kData = std::string(TPNET_SOURCE_DIR) + "/examples/data/";

std::vector<Sweep> qwen() { return load_sweep_csv(kData + "qwen36_27b_sweep.csv").sweeps; }
std::vector<Sweep> deepseek() {
  return load_sweep_csv(kData + "deepseek_v41_flash_sweep.csv").sweeps;
}

const ConfigCapacity& config(const CapacityReport& r, const std::string& name) {
  for (const auto& c : r.configs) {
    if (c.config == name) return c;
  }
  FAIL("no config " << name);
  return r.configs.front();
}

/// A sweep from (C, TTFT ms, TPS, latency s) tuples; latency <= 0 = not reported.
Sweep sweep(const std::string& name, int tp, std::initializer_list<std::array<double, 4>> rows) {
  Sweep s{name, tp, LoadAxis::concurrency, {}, {}};
  int line = 1;
  for (const auto& r : rows) {
    SweepPoint p;
    p.concurrency = static_cast<int>(r[0]);
    p.ttft = Seconds::milliseconds(r[1]);
    p.tps = TokenRate(r[2]);
    if (r[3] > 0.0) p.latency = Seconds(r[3]);
    p.source = InputLocation::in_file("t.csv", ++line);
    s.points.push_back(p);
  }
  return s;
}

bool has_note(const std::vector<std::string>& notes, const std::string& text) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

}  // namespace

// ------------------------------------------------------------ the Qwen3.6-27B study

TEST_CASE("Qwen3.6-27B TP1 serves no request under 15 tokens/s: TPS 12.63 at C=1",
          "[golden][capacity]") {
  const CapacityReport r = analyze_capacity(qwen(), SloSpec{});
  const ConfigCapacity& tp1 = config(r, "TP1");
  CHECK(tp1.c_max == 0);
  CHECK(tp1.binding == Binding::tps);
  CHECK(tp1.fails_at == 1);
  CHECK(tp1.users == 0.0);
  CHECK(has_note(tp1.notes,
                 "C_max 0: even the lowest measured level, C=1, fails: TPS 12.63 < "
                 "15 tokens/s"));
}

TEST_CASE("Qwen3.6-27B TP2 serves 8 concurrent requests under 1000 ms TTFT and 15 tokens/s",
          "[golden][capacity]") {
  const CapacityReport r = analyze_capacity(qwen(), SloSpec{});
  const ConfigCapacity& tp2 = config(r, "TP2");
  CHECK(tp2.c_max == 8);
  CHECK(tp2.binding == Binding::tps);
  CHECK(tp2.fails_at == 16);
  CHECK(to_string(tp2.binding) == "tps");
  // C=16 misses by 14.96 against 15: on the edge, and capacity swings 2x within 2%.
  CHECK(tp2.on_edge);
  CHECK(tp2.points[4].tps_on_edge);
  CHECK_FALSE(tp2.points[4].meets_tps);
  CHECK(tp2.c_max_tight == 8);
  CHECK(tp2.c_max_loose == 16);
  CHECK(has_note(tp2.notes,
                 "C=16 fails TPS 14.96 < 15 tokens/s (0.3% short, within 2% of it: "
                 "on the edge)"));
  CHECK(has_note(tp2.notes, "capacity swings: C_max is 8"));
}

TEST_CASE("Qwen3.6-27B TP4 serves 16 concurrent requests under 1000 ms TTFT and 15 tokens/s",
          "[golden][capacity]") {
  const CapacityReport r = analyze_capacity(qwen(), SloSpec{});
  const ConfigCapacity& tp4 = config(r, "TP4");
  CHECK(tp4.c_max == 16);
  CHECK(tp4.fails_at == 32);
  // C=32 fails TTFT 1005.44 ms (on the edge) and TPS 14.61 (2.6% short, not on it).
  CHECK(tp4.binding == Binding::both);
  CHECK(to_string(tp4.binding) == "ttft+tps");
  CHECK(tp4.on_edge);
  CHECK(tp4.points[5].ttft_on_edge);
  CHECK_FALSE(tp4.points[5].tps_on_edge);
  // ... so a 2% looser TTFT alone would not lift C_max: it stays 16.
  CHECK(tp4.c_max_tight == 16);
  CHECK(tp4.c_max_loose == 16);
  CHECK(has_note(tp4.notes,
                 "C=32 fails TTFT 1005.44 ms > 1000 ms (0.5% over, within 2% of it: "
                 "on the edge) and TPS 14.61 < 15 tokens/s (2.6% short)"));
}

TEST_CASE("Qwen3.6-27B users by Little's law: TP2 8 x (1 + 45/7.25), TP4 16 x (1 + 45/6.66)",
          "[golden][capacity]") {
  const CapacityReport r = analyze_capacity(qwen(), SloSpec{});
  const ConfigCapacity& tp2 = config(r, "TP2");
  const ConfigCapacity& tp4 = config(r, "TP4");
  CHECK_THAT(tp2.latency_at_c_max->value(), WithinRel(7.25, 1e-12));
  CHECK_THAT(tp4.latency_at_c_max->value(), WithinRel(6.66, 1e-12));
  // Little's law gives 57.655 and 124.108; the report counts whole users.
  CHECK_THAT(*users_by_littles_law(8.0, Seconds(7.25), Seconds(45.0)),
             WithinRel(8.0 * (1.0 + 45.0 / 7.25), 1e-12));
  CHECK(prints_as(*users_by_littles_law(8.0, Seconds(7.25), Seconds(45.0)), 57.655, 3));
  CHECK(*tp2.users == std::floor(8.0 * (1.0 + 45.0 / 7.25)));
  CHECK(*tp4.users == std::floor(16.0 * (1.0 + 45.0 / 6.66)));
  CHECK(*tp2.users == 57.0);
  CHECK(*tp4.users == 124.0);
}

TEST_CASE("Qwen3.6-27B TP4's C=1 TTFT 164 ms is worse than TP2's 149 ms", "[golden][capacity]") {
  const CapacityReport r = analyze_capacity(qwen(), SloSpec{});
  CHECK(prints_as(config(r, "TP4").points[0].point.ttft.value() * 1e3, 164, 0));
  CHECK(prints_as(config(r, "TP2").points[0].point.ttft.value() * 1e3, 149, 0));
  REQUIRE(r.notes.size() == 1);
  CHECK_THAT(r.notes[0], ContainsSubstring("TP4's C=1 TTFT (163.59 ms) is worse than TP2's "
                                           "(148.87 ms)"));
}

TEST_CASE("Qwen3.6-27B decode rate is the inverse of ITL: 1000/ITL ~ TPS within 15%",
          "[golden][capacity]") {
  const CapacityReport r = analyze_capacity(qwen(), SloSpec{});
  for (const auto& c : r.configs) {
    for (const auto& v : c.points) {
      INFO(c.config << " C=" << v.point.concurrency);
      REQUIRE(v.tps_from_itl.has_value());
      CHECK_THAT(v.tps_from_itl->tokens_per_second(),
                 WithinRel(v.point.tps.tokens_per_second(), 0.15));
    }
  }
  // TP1 at C=1: 1000 / 77.97 = 12.83 against 12.63 measured.
  CHECK(prints_as(config(r, "TP1").points[0].tps_from_itl->tokens_per_second(), 12.83, 2));
  CHECK(r.warnings.empty());
}

TEST_CASE(
    "Qwen3.6-27B on 4 nodes: one TP4 instance serves the most users, two TP2 replicas "
    "survive losing one",
    "[golden][capacity]") {
  CapacityOptions options;
  options.fleet_nodes = 4;
  const CapacityReport r = analyze_capacity(qwen(), SloSpec{}, options);
  const FleetReport& f = r.fleet;
  CHECK(f.nodes == 4);
  REQUIRE(f.options.size() == 3);
  const FleetOption& tp1 = f.options[0];
  const FleetOption& tp2 = f.options[1];
  const FleetOption& tp4 = f.options[2];
  CHECK(tp1.replicas == 4);
  CHECK(tp2.replicas == 2);
  CHECK(tp4.replicas == 1);
  // Replicas of whole users: 2 x 57, not 2 x 57.655.
  CHECK(*tp2.users == 2.0 * std::floor(8.0 * (1.0 + 45.0 / 7.25)));
  CHECK(*tp2.users_after_one_loss == std::floor(8.0 * (1.0 + 45.0 / 7.25)));
  CHECK(*tp4.users == std::floor(16.0 * (1.0 + 45.0 / 6.66)));
  CHECK(tp2.concurrent == 16);
  // Peak throughput: replicas x max over C of TPS x C, all at C=64 here.
  CHECK_THAT(tp1.peak_throughput.tokens_per_second(), WithinRel(4 * 64 * 4.70, 1e-12));
  CHECK_THAT(tp2.peak_throughput.tokens_per_second(), WithinRel(2 * 64 * 6.77, 1e-12));
  CHECK_THAT(tp4.peak_throughput.tokens_per_second(), WithinRel(64 * 7.93, 1e-12));
  CHECK_THAT(tp2.slo_throughput.tokens_per_second(), WithinRel(2 * 8 * 17.65, 1e-12));
  CHECK(tp2.highly_available);
  CHECK_FALSE(tp4.highly_available);
  REQUIRE(f.most_users);
  CHECK(f.options[*f.most_users].config == "TP4");
  REQUIRE(f.best_available);
  CHECK(f.options[*f.best_available].config == "TP2");
  // Without --fleet the fleet is the largest measured TP.
  CHECK(analyze_capacity(qwen(), SloSpec{}).fleet.nodes == 4);
}

TEST_CASE("Qwen3.6-27B scaling efficiency: TP1 -> TP2 at C=1 is 89% of the ideal 2x",
          "[golden][capacity]") {
  const CapacityReport r = analyze_capacity(qwen(), SloSpec{});
  CHECK(r.scaling.size() == 21);  // TP1->TP2, TP1->TP4, TP2->TP4 at seven levels each
  const ScalingRow& first = r.scaling.front();
  CHECK(first.from_config == "TP1");
  CHECK(first.to_config == "TP2");
  CHECK(first.level == 1);
  CHECK_THAT(first.speedup, WithinRel(22.57 / 12.63, 1e-12));
  CHECK(first.ideal == 2.0);
  CHECK(prints_as(first.efficiency * 100.0, 89.4, 1));
  const auto tp2_tp4 = std::find_if(r.scaling.begin(), r.scaling.end(), [](const ScalingRow& s) {
    return s.from_config == "TP2" && s.to_config == "TP4" && s.level == 16;
  });
  REQUIRE(tp2_tp4 != r.scaling.end());
  CHECK(prints_as(tp2_tp4->efficiency * 100.0, 64.2, 1));
}

TEST_CASE(
    "Qwen3.6-27B capacity moves with the thresholds: TP2 C_max 16 at TPS >= 12, 8 at 15, "
    "4 at 18",
    "[golden][capacity]") {
  const CapacityReport r = analyze_capacity(qwen(), SloSpec{});
  REQUIRE(r.tps_sensitivity.size() == 5);
  const auto c_max = [&](const std::vector<SensitivityRow>& rows, std::size_t row,
                         std::size_t cfg) { return rows[row].cells[cfg].c_max; };
  // rows: 10, 12, 15, 18, 20 tokens/s; cells: TP1, TP2, TP4
  CHECK(c_max(r.tps_sensitivity, 0, 0) == 8);
  CHECK(c_max(r.tps_sensitivity, 1, 0) == 2);
  CHECK(c_max(r.tps_sensitivity, 1, 1) == 16);
  CHECK(c_max(r.tps_sensitivity, 2, 1) == 8);
  CHECK(c_max(r.tps_sensitivity, 3, 1) == 4);
  CHECK(c_max(r.tps_sensitivity, 4, 1) == 2);
  CHECK(c_max(r.tps_sensitivity, 4, 2) == 8);
  CHECK(r.tps_sensitivity[2].chosen);
  CHECK_FALSE(r.tps_sensitivity[1].chosen);
  // rows: 500, 750, 1000, 1500, 2000 ms; TP4 needs 1000 ms for C=16
  REQUIRE(r.ttft_sensitivity.size() == 5);
  CHECK(c_max(r.ttft_sensitivity, 1, 2) == 8);
  CHECK(c_max(r.ttft_sensitivity, 2, 2) == 16);
  CHECK(c_max(r.ttft_sensitivity, 4, 2) == 16);
  CHECK(c_max(r.ttft_sensitivity, 4, 1) == 8);
  CHECK(*r.ttft_sensitivity[1].cells[2].users == std::floor(8.0 * (1.0 + 45.0 / 5.13)));
}

TEST_CASE("Qwen3.6-27B users scale with think time: TP4 52.0 at 15 s, 304.3 at 120 s",
          "[golden][capacity]") {
  const CapacityReport r = analyze_capacity(qwen(), SloSpec{});
  REQUIRE(r.think_sensitivity.size() == 6);
  CHECK(r.think_sensitivity[2].chosen);
  CHECK(r.think_sensitivity[2].think.value() == 45.0);
  CHECK(*r.think_sensitivity[0].cells[2].users == 52.0);   // 52.03
  CHECK(*r.think_sensitivity[5].cells[2].users == 304.0);  // 304.29
  CHECK(*r.think_sensitivity[0].cells[0].users == 0.0);
}

TEST_CASE("a chosen threshold or think time missing from the lists is added in order",
          "[capacity]") {
  CapacityOptions options;
  options.think = Seconds(50.0);
  const CapacityReport r =
      analyze_capacity(qwen(), SloSpec{Seconds::milliseconds(1200.0), TokenRate(14.9)}, options);
  REQUIRE(r.think_sensitivity.size() == 7);
  CHECK(r.think_sensitivity[3].think.value() == 50.0);
  CHECK(r.think_sensitivity[3].chosen);
  REQUIRE(r.ttft_sensitivity.size() == 6);
  CHECK(r.ttft_sensitivity[3].chosen);
  REQUIRE(r.tps_sensitivity.size() == 6);
  CHECK(r.tps_sensitivity[2].chosen);
  // TPS >= 14.9 lets TP2 keep C=16 (14.96): the 2x swing of the edge.
  CHECK(config(r, "TP2").c_max == 16);
}

// ------------------------------------------------------------ the DeepSeek-V4.1-Flash study

TEST_CASE("DeepSeek-V4.1-Flash under 1000 ms and 20 tokens/s: C_max TP4 2, TP8-300K 4, TP8-1M 2",
          "[golden][capacity]") {
  const CapacityReport r =
      analyze_capacity(deepseek(), SloSpec{Seconds::milliseconds(1000.0), TokenRate(20.0)});
  CHECK(config(r, "TP4").c_max == 2);
  CHECK(config(r, "TP8-300K").c_max == 4);
  CHECK(config(r, "TP8-1M").c_max == 2);
  for (const auto& c : r.configs) CHECK(c.binding == Binding::tps);
  // TP8-300K meets TPS at C=4 with 20.10 against 20: on the edge, 2 to 4 within 2%.
  const ConfigCapacity& tp8 = config(r, "TP8-300K");
  CHECK(tp8.on_edge);
  CHECK(tp8.c_max_tight == 2);
  CHECK(tp8.c_max_loose == 4);
  CHECK(*tp8.users == std::floor(4.0 * (1.0 + 45.0 / 6.49)));
  CHECK(*config(r, "TP8-1M").users == std::floor(2.0 * (1.0 + 45.0 / 4.86)));
  CHECK(r.fleet.nodes == 8);
}

TEST_CASE("DeepSeek-V4.1-Flash TP4 reports no latency: users cannot be computed by Little's law",
          "[golden][capacity]") {
  const CapacityReport r =
      analyze_capacity(deepseek(), SloSpec{Seconds::milliseconds(1000.0), TokenRate(20.0)});
  const ConfigCapacity& tp4 = config(r, "TP4");
  CHECK_FALSE(tp4.latency_at_c_max.has_value());
  CHECK_FALSE(tp4.users.has_value());
  CHECK(has_note(tp4.notes,
                 "latency not reported at C=2: users by Little's law cannot be "
                 "computed"));
  for (const auto& row : r.think_sensitivity) CHECK_FALSE(row.cells[0].users.has_value());
  // The fleet compares only options whose users are known, and says so.
  REQUIRE(r.fleet.options.size() == 3);
  CHECK(r.fleet.options[0].replicas == 2);
  CHECK_FALSE(r.fleet.options[0].users.has_value());
  CHECK(r.fleet.options[*r.fleet.most_users].config == "TP8-300K");
  CHECK_FALSE(r.fleet.best_available.has_value());
  CHECK(has_note(r.fleet.notes, "TP4 x2: users unknown"));
}

// ------------------------------------------------------------ the rules

TEST_CASE("C_max is the largest measured level that meets both SLOs, and equal values pass",
          "[capacity]") {
  const Sweep s = sweep("TP2", 2, {{1, 100, 30, 3}, {2, 1000, 15, 4}, {4, 1000.01, 20, 5}});
  CHECK(max_load(s, SloSpec{}) == 2);
  const ConfigCapacity c = analyze_config(s, SloSpec{});
  CHECK(c.c_max == 2);
  CHECK(c.binding == Binding::ttft);
  CHECK(c.points[1].ttft_on_edge);
  CHECK(c.points[1].tps_on_edge);
  CHECK(*c.users == std::floor(2.0 * (1.0 + 45.0 / 4.0)));
}

TEST_CASE("a sweep where even C=1 fails has C_max 0: an answer with zero users", "[capacity]") {
  const ConfigCapacity c = analyze_config(sweep("TP1", 1, {{1, 2000, 5, -1}}), SloSpec{});
  CHECK(c.c_max == 0);
  CHECK(c.binding == Binding::both);
  CHECK(c.users == 0.0);  // known: no latency needed for zero users
  CHECK(users_by_littles_law(0, std::nullopt, Seconds(45.0)) == 0.0);
  CHECK_FALSE(users_by_littles_law(4, std::nullopt, Seconds(45.0)).has_value());
}

TEST_CASE("a sweep meeting the SLOs at every level binds nothing measured", "[capacity]") {
  const ConfigCapacity c =
      analyze_config(sweep("TP8", 8, {{1, 100, 40, 2}, {2, 150, 35, 2.5}}), SloSpec{});
  CHECK(c.c_max == 2);
  CHECK(c.binding == Binding::none_measured);
  CHECK(to_string(c.binding) == "none measured");
  CHECK(c.fails_at == 0);
  CHECK(has_note(c.notes, "capacity may be higher than measured"));
}

TEST_CASE("SLOs nothing meets give C_max 0 everywhere: a note, not an error", "[capacity]") {
  const CapacityReport r =
      analyze_capacity(qwen(), SloSpec{Seconds::milliseconds(100.0), TokenRate(50.0)});
  for (const auto& c : r.configs) CHECK(c.c_max == 0);
  CHECK(has_note(r.notes, "no config meets TTFT <= 100 ms and TPS >= 50 tokens/s"));
  CHECK(r.fleet.most_users.has_value());  // zero users is still a known answer
}

TEST_CASE("a failing level below C_max, falling TTFT and TPS far from 1/ITL are warned about",
          "[capacity][bad-input]") {
  Sweep s = sweep("TP2", 2, {{1, 300, 30, 3}, {2, 1200, 25, 4}, {4, 500, 20, 5}, {8, 600, 190, 6}});
  s.points[3].itl = Seconds::milliseconds(50.0);  // 1000/ITL = 20 against TPS 190
  const ConfigCapacity c = analyze_config(s, SloSpec{});
  CHECK(c.c_max == 8);
  CHECK(has_note(c.warnings, "TP2: C=2 fails the SLOs but C=8 meets them"));
  CHECK(has_note(c.warnings, "TP2: TTFT falls from 1200 ms at C=2 to 500 ms at C=4 (-58%)"));
  CHECK(has_note(c.warnings, "TP2: TPS rises from 20 at C=4 to 190 at C=8"));
  CHECK(has_note(c.warnings, "TP2 at C=8: TPS 190 is 9.50 x 1000/ITL (20)"));
  CHECK(has_note(c.warnings, "check t.csv:4"));
}

TEST_CASE("a latency below TTFT is warned about as a unit mix-up", "[capacity][bad-input]") {
  const ConfigCapacity c = analyze_config(sweep("TP2", 2, {{1, 1500, 30, 0.9}}), SloSpec{});
  CHECK(has_note(c.warnings, "end-to-end latency 0.9 s is below TTFT 1500 ms"));
}

TEST_CASE("a concurrency level missing in the middle is allowed and named", "[capacity]") {
  std::vector<Sweep> sweeps{sweep("TP2", 2, {{1, 100, 30, 3}, {2, 200, 25, 4}, {8, 900, 10, 6}}),
                            sweep("TP4", 4, {{1, 100, 40, 2}, {4, 200, 30, 3}, {8, 300, 25, 4}})};
  const CapacityReport r = analyze_capacity(sweeps, SloSpec{});
  const ConfigCapacity& tp2 = config(r, "TP2");
  CHECK(tp2.gaps == std::vector<double>{4});
  CHECK(has_note(tp2.notes, "C=4 not measured; the limit lies between the measured C=2 and C=8"));
  CHECK(config(r, "TP4").gaps == std::vector<double>{2});
  // Alone, powers of two name their own gaps.
  CHECK(analyze_config(sweeps[0], SloSpec{}).gaps == std::vector<double>{4});
}

TEST_CASE("a fleet leaves out instances larger than itself and counts idle nodes", "[capacity]") {
  CapacityOptions options;
  options.fleet_nodes = 6;
  const CapacityReport r = analyze_capacity(qwen(), SloSpec{}, options);
  REQUIRE(r.fleet.options.size() == 3);
  CHECK(r.fleet.options[2].replicas == 1);
  CHECK(r.fleet.options[2].idle_nodes == 2);
  CHECK(has_note(r.fleet.notes, "TP4 x1 leaves 2 of 6 nodes idle"));
  CHECK(has_note(r.fleet.notes, "no TP6 config was measured"));
  options.fleet_nodes = 2;
  const CapacityReport small = analyze_capacity(qwen(), SloSpec{}, options);
  CHECK(small.fleet.options.size() == 2);
  CHECK(has_note(small.fleet.notes, "TP4 needs 4 nodes per instance; the fleet has 2"));
}

TEST_CASE("analyze_capacity refuses what cannot be analysed, naming the request field",
          "[capacity][bad-input]") {
  const auto error_of = [](const std::vector<Sweep>& sweeps, const SloSpec& slo,
                           const CapacityOptions& options) {
    try {
      (void)analyze_capacity(sweeps, slo, options);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::vector<Sweep> q = qwen();
  CapacityOptions o;
  CHECK_THAT(error_of({}, SloSpec{}, o), ContainsSubstring("sweeps: no sweeps given"));
  o.think = Seconds(0.0);
  CHECK_THAT(error_of(q, SloSpec{}, o), ContainsSubstring("think: must be a positive think"));
  o.think = Seconds(-45.0);
  CHECK_THAT(error_of(q, SloSpec{}, o), ContainsSubstring("think: must be a positive"));
  o = CapacityOptions{};
  CHECK_THAT(error_of(q, SloSpec{Seconds(0.0), TokenRate(15.0)}, o),
             ContainsSubstring("slo.ttft: must be a positive"));
  CHECK_THAT(error_of(q, SloSpec{Seconds(1.0), TokenRate(-1.0)}, o),
             ContainsSubstring("slo.tps: must be a positive"));
  o.edge = 0.6;
  CHECK_THAT(error_of(q, SloSpec{}, o), ContainsSubstring("edge: must lie in 0% to 50%"));
  o = CapacityOptions{};
  o.think_values = {Seconds(15.0), Seconds(0.0)};
  CHECK_THAT(error_of(q, SloSpec{}, o), ContainsSubstring("think_values: must be a positive"));
  o = CapacityOptions{};
  CHECK_THAT(error_of({q[0], q[0]}, SloSpec{}, o),
             ContainsSubstring("config 'TP1' is given twice"));
  CHECK_THAT(error_of({Sweep{"TP2", 2, LoadAxis::concurrency, {}, {}}}, SloSpec{}, o),
             ContainsSubstring("config 'TP2' has no measured points"));
  Sweep twice = q[1];
  twice.points.push_back(twice.points[3]);
  twice.points.back().source.line = 99;
  CHECK_THAT(error_of({twice}, SloSpec{}, o),
             ContainsSubstring(":99: config 'TP2' has concurrency 8 twice (also at "));
}

TEST_CASE("a rate sweep's C_max is the highest sustained rate meeting both SLOs",
          "[golden][capacity]") {
  Sweep s{"TP8", 8, LoadAxis::request_rate, {}, {}};
  const auto add = [&](std::optional<double> rate, double ttft_ms, double tps, double achieved) {
    SweepPoint p;
    p.request_rate = rate;
    p.ttft = Seconds::milliseconds(ttft_ms);
    p.tps = TokenRate(tps);
    p.latency = Seconds(20.0);
    p.completed = 500;
    p.achieved_rate = achieved;
    p.source = InputLocation::in_file("rates.jsonl", static_cast<int>(s.points.size()) + 1);
    s.points.push_back(p);
  };
  // Sustained at 1, 2 (500 / (500/2 + 40) = 1.72 expected, 1.7 completed)
  // and fell behind at 4 (3.03 expected, 2.0 completed) although its SLOs hold.
  add(4.0, 700.0, 18.0, 2.0);
  add(1.0, 300.0, 25.0, 0.95);
  add(2.0, 500.0, 20.0, 1.7);
  add(std::nullopt, 9000.0, 8.0, 6.0);
  const ConfigCapacity c = analyze_config(s, SloSpec{});
  REQUIRE(c.points.size() == 4);
  CHECK(*c.points[0].point.request_rate == 1.0);
  CHECK(c.points[3].unlimited());
  CHECK(c.c_max == 2.0);
  CHECK(c.fails_at == 4.0);
  CHECK(c.binding == Binding::unsustained);
  CHECK(c.fails_unsustained);
  CHECK_THAT(c.notes[0], ContainsSubstring("C_max 2 requests/s: 4 requests/s fails to keep up: "
                                           "it completed 2 requests/s of the 4 sent"));
  // Users: 2 x (20 + 45) = 130.
  CHECK(*c.users == 130.0);
  // Rate axis sweeps and concurrency sweeps do not mix in one analysis.
  Sweep closed{"TP4", 4, LoadAxis::concurrency, {}, {}};
  SweepPoint p;
  p.concurrency = 4;
  p.ttft = Seconds(0.3);
  p.tps = TokenRate(20.0);
  closed.points.push_back(p);
  CHECK_THROWS_WITH(analyze_capacity({s, closed}, SloSpec{}),
                    ContainsSubstring("analyse them in separate runs"));
}

// ------------------------------------------------------------ the document

TEST_CASE(
    "capacity's document: the SLOs, a row per config, the fleet, the sensitivity tables, the "
    "points, for JSON without the table's columns",
    "[capacity]") {
  CapacityOptions options;
  options.think = Seconds(30.0);
  const CapacityReport r =
      run_capacity(CapacityRequest{qwen(), {"a reader's doubt"}, SloSpec{}, options});
  const Document doc = capacity_document(r);
  CHECK(doc.title ==
        "tpnet capacity: C_max under mean TTFT <= 1000 ms and mean TPS >= 15 tokens/s; users by "
        "Little's law with 30 s think time");
  CHECK(doc.answer == capacity_answer(r));
  REQUIRE_FALSE(doc.answer.empty());
  CHECK_THAT(doc.answer.front(), StartsWith("Most users on 4 nodes: "));
  std::vector<std::string> keys;
  for (const Field& f : doc.fields) keys.push_back(f.key);
  // Table-only lines (the fleet's choices, the sensitivity tables) have no key.
  CHECK(keys == std::vector<std::string>{"load_axis",
                                         "slo_statistic",
                                         "ttft_slo_s",
                                         "tps_slo_tokens_per_s",
                                         "think_s",
                                         "edge_pct",
                                         "fleet_nodes",
                                         "",
                                         "",
                                         "notes",
                                         "configs",
                                         "fleet",
                                         "fleet_most_users",
                                         "fleet_best_available",
                                         "fleet_notes",
                                         "think_sensitivity",
                                         "ttft_sensitivity",
                                         "tps_sensitivity",
                                         "",
                                         "",
                                         "",
                                         "scaling",
                                         "points"});
  CHECK(doc.fields[10].label == "configs (C_max: largest measured concurrency meeting both SLOs)");
  CHECK(doc.fields[18].label == "users by think time (* = the analysed value)");
  CHECK(doc.fields[19].label == "C_max / users by TTFT threshold (TPS >= 15 tokens/s)");
  const Record& tp2 = doc.fields[10].records[1];
  CHECK(tp2.front().text == "TP2");
  CHECK(std::any_of(tp2.begin(), tp2.end(),
                    [](const Field& f) { return f.key == "c_max" && f.number == 8.0; }));
  REQUIRE(doc.warnings.size() == r.warnings.size());
  CHECK(doc.warnings.front() == "a reader's doubt");

  const auto table_columns = [](const Document& d) {
    const Record& point = d.fields.back().records.front();
    return std::count_if(point.begin(), point.end(), [](const Field& f) { return f.table_only; });
  };
  CHECK(table_columns(doc) > 0);
  const Document machines = capacity_document(r, true);
  CHECK(table_columns(machines) == 0);
  CHECK(machines.fields.back().records.size() == doc.fields.back().records.size());
}
