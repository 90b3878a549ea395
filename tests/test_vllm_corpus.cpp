// Every real vLLM benchmark result in tests/data/vllm-bench (SOURCES there):
// how each is read (load axis, rate, cap, completed rate), whether each run
// kept up with its rate, and what `tpnet capacity` answers from them. The
// expected values are recomputed by hand from the files' own keys.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"
#include "tpnet/io/sweep_io.hpp"
#include "tpnet/usecase/capacity.hpp"

using namespace tpnet;
using tpnet::test::json_of;
using tpnet::test::run_tpnet;

namespace {

const std::string kDir = std::string(TPNET_SOURCE_DIR) + "/tests/data/vllm-bench/";
const std::string kSparkRate = kDir + "spark-gb10-gpt-oss-20b-rate0.5-burst0.7.json";
const std::string kSparkCapped = kDir + "spark-gb10-gpt-oss-20b-rate1.5-maxconc25.json";
const std::string kSparkSpec =
    kDir + "spark-gb10-nemotron-3-super-120b-nvfp4-rate1.5-maxconc25-specdecode.json";
const std::string kLlmd = kDir + "l40s-4x-llama3.2-3b-llmd-rates-jsonlines.json";
const std::string kOptCapped = kDir + "opt-125m-vllm0.25.1-maxconc2-peak8-sweep-run.json";
const std::string kOptAllFailed = kDir + "opt-125m-vllm0.25.1-all-requests-failed.json";
const std::string kGemma = kDir + "spark-gb10-gemma-4-26b-a4b-it-bf16";
const std::string kSparkFailed =
    kDir + "spark-gb10-nemotron-3-nano-omni-30b-fp8-rate1.5-maxconc25-102-failed.json";

const SweepPoint& only_point(const SweepSet& set) {
  REQUIRE(set.sweeps.size() == 1);
  REQUIRE(set.sweeps[0].points.size() == 1);
  return set.sweeps[0].points[0];
}

const ConfigCapacity& config(const CapacityReport& r, const std::string& name) {
  for (const auto& c : r.configs) {
    if (c.config == name) return c;
  }
  FAIL("no config " << name);
  return r.configs.front();
}

}  // namespace

TEST_CASE("a DGX Spark open-loop run at 0.5 requests/s is a rate point that kept up",
          "[vllm][corpus]") {
  const SweepSet set =
      load_sweeps(kSparkRate, std::string("gpt-oss-20b"), BenchNaming{"config", 1});
  const SweepPoint& p = only_point(set);
  CHECK(set.sweeps[0].axis == LoadAxis::request_rate);
  REQUIRE(p.request_rate);
  CHECK(*p.request_rate == 0.5);
  CHECK(p.concurrency == 0);  // max_concurrency null: no cap
  CHECK(p.burstiness == 0.7);
  CHECK(p.completed == 125);
  CHECK_THAT(*p.achieved_rate, WithinRel(0.4696628841788813, 1e-12));
  CHECK_THAT(p.latency->value(), WithinRel(26.807038995983545, 1e-12));
  CHECK_THAT(p.p99_latency->value(), WithinRel(63.67229759526439, 1e-12));

  const ConfigCapacity c = analyze_config(set.sweeps[0], SloSpec{Seconds(1.1), TokenRate(15.0)});
  const PointVerdict& v = c.points.at(0);
  // 125 requests sent over 125 / 0.5 = 250 s, the last finishing a p99
  // latency (63.67 s) later: 125 / 313.67 s = 0.3985 requests/s if it kept up.
  CHECK_THAT(*v.expected_rate, WithinRel(125.0 / (250.0 + 63.67229759526439), 1e-12));
  // Margin: 3 / sqrt(0.7 x 125) = 32.1% (gamma gaps of shape 0.7).
  CHECK_THAT(sustained_margin(125, 0.7), WithinRel(3.0 / std::sqrt(87.5), 1e-12));
  CHECK(v.sustained_judged);
  CHECK(v.sustained);
  CHECK(v.meets());  // TTFT 1017.5 ms <= 1100 ms, TPS 1000 / 65.26 = 15.32 >= 15
  CHECK(c.c_max == 0.5);
  // Users: 0.5 requests/s x (26.807 s latency + 45 s think) = 35.90: 35 whole users.
  REQUIRE(c.users);
  CHECK_THAT(*users_at_rate(0.5, c.latency_at_c_max, Seconds(45.0)),
             WithinRel(0.5 * (26.807038995983545 + 45.0), 1e-12));
  CHECK(*c.users == 35.0);
  // At the default 1000 ms TTFT it fails by 1.75%: on the edge.
  const ConfigCapacity strict = analyze_config(set.sweeps[0], SloSpec{});
  CHECK(strict.c_max == 0.0);
  CHECK(strict.binding == Binding::ttft);
  CHECK(strict.on_edge);
}

TEST_CASE("a DGX Spark run at 1.5 requests/s capped at 25 in flight did not keep up",
          "[vllm][corpus]") {
  const SweepSet set =
      load_sweeps(kSparkCapped, std::string("gpt-oss-20b"), BenchNaming{"config", 1});
  const SweepPoint& p = only_point(set);
  CHECK(*p.request_rate == 1.5);
  CHECK(p.concurrency == 25);
  const ConfigCapacity c = analyze_config(set.sweeps[0], SloSpec{Seconds(1.1), TokenRate(12.0)});
  const PointVerdict& v = c.points.at(0);
  // If it kept up: 300 / (200 s + 81.65 s p99) = 1.065 requests/s; the margin
  // is 3 / sqrt(300) = 17.3%, so at least 0.881. It completed 0.614.
  CHECK_THAT(*v.expected_rate, WithinRel(300.0 / (200.0 + 81.64570618270314), 1e-12));
  CHECK(v.sustained_judged);
  CHECK_FALSE(v.sustained);
  CHECK(v.meets_ttft);  // 903.7 ms
  CHECK(v.meets_tps);   // 12.11 tokens/s >= 12
  CHECK(c.c_max == 0.0);
  CHECK(c.binding == Binding::unsustained);
  REQUIRE_FALSE(c.notes.empty());
  CHECK_THAT(c.notes[0], ContainsSubstring("not sustained"));
  CHECK_THAT(c.notes[0], ContainsSubstring("--max-concurrency 25 may have capped it"));
}

TEST_CASE("two DGX Spark runs of one model make a rate sweep: C_max 0.5 requests/s",
          "[vllm][corpus]") {
  const SweepSet a = load_sweeps(kSparkRate, std::string("TP1-gpt-oss"));
  const SweepSet b = load_sweeps(kSparkCapped, std::string("TP1-gpt-oss"));
  const SweepSet all = merge_sweep_sets({a, b});
  const CapacityReport r = analyze_capacity(all.sweeps, SloSpec{Seconds(1.1), TokenRate(15.0)});
  CHECK(r.axis == LoadAxis::request_rate);
  const ConfigCapacity& c = config(r, "TP1-gpt-oss");
  CHECK(c.c_max == 0.5);
  CHECK(c.fails_at == 1.5);
  CHECK(c.binding == Binding::tps);  // 12.11 < 15 tokens/s, and it fell behind too
  CHECK(c.fails_unsustained);
  // Peak: the measured output tokens/s, 283.4 at 1.5 requests/s.
  CHECK_THAT(c.peak_throughput.tokens_per_second(), WithinRel(283.4388189744776, 1e-12));
  CHECK(c.peak_level == 1.5);
  // Mean ITL (118 ms) is not TPOT (65 ms) on a chat endpoint: no "wrong column" warning.
  for (const auto& w : r.warnings) CHECK_THAT(w, !ContainsSubstring("1000/ITL"));
}

TEST_CASE("a Nemotron-3-Super speculative-decoding run on one Spark fell far behind its rate",
          "[vllm][corpus]") {
  const SweepSet set = load_sweeps(kSparkSpec, std::string("TP1"));
  const ConfigCapacity c = analyze_config(set.sweeps[0], SloSpec{Seconds(60.0), TokenRate(3.0)});
  const PointVerdict& v = c.points.at(0);
  CHECK(v.meets_ttft);       // 40.0 s under a 60 s SLO
  CHECK(v.meets_tps);        // 1000 / 272.8 = 3.67 tokens/s
  CHECK_FALSE(v.sustained);  // 0.141 of 1.5 requests/s
  CHECK(c.c_max == 0.0);
}

TEST_CASE("an llm-d JSON-lines file of 9 older-schema results: three deployments by rate",
          "[vllm][corpus]") {
  const SweepSet set = load_sweeps(kLlmd, std::nullopt, BenchNaming{"deployment", 1});
  REQUIRE(set.sweeps.size() == 3);
  for (const auto& s : set.sweeps) {
    CHECK(s.axis == LoadAxis::request_rate);
    CHECK(s.tp == 1);
    REQUIRE(s.points.size() == 3);
    CHECK(s.points[2].source.line == s.points[1].source.line + 1);
    CHECK_FALSE(s.points[2].request_rate);  // "inf", a string in the file
  }
  CHECK(set.sweeps[0].config == "no-features");
  CHECK(set.sweeps[1].config == "base");
  CHECK(set.sweeps[2].config == "kvcache");
  // No mean_e2el_ms in this schema: latency = TTFT + TPOT x (80945 / 300 - 1).
  const SweepPoint& first = set.sweeps[0].points[0];
  CHECK_THAT(
      first.latency->value(),
      WithinRel((54.59561144333596 + 13.710971568239172 * (80945.0 / 300.0 - 1.0)) / 1e3, 1e-12));
  CHECK_FALSE(first.p99_latency);

  const CapacityReport r = analyze_capacity(set.sweeps, SloSpec{Seconds(0.2), TokenRate(20.0)});
  for (const auto& c : r.configs) {
    CAPTURE(c.config);
    // 10 and 30 requests/s both kept up (tail = twice the mean latency) and
    // meet TTFT <= 200 ms, TPS >= 20; the "inf" run is judged but sets no level.
    CHECK(c.c_max == 30.0);
    CHECK(c.fails_at == 0.0);
    CHECK(c.points[0].sustained);
    CHECK(c.points[1].sustained);
    CHECK(c.points[2].unlimited());
    bool noted = false;
    for (const auto& n : c.notes) noted = noted || n.find("request_rate inf") != std::string::npos;
    CHECK(noted);
  }
  // Users at 30 requests/s: 30 x (latency + 45 s).
  const ConfigCapacity& base = config(r, "base");
  // Users are whole people: floored.
  CHECK(*base.users == std::floor(30.0 * (base.latency_at_c_max->value() + 45.0)));
  // TPS at 30 requests/s between configs of one TP: no scaling rows.
  CHECK(r.scaling.empty());
}

TEST_CASE("tpnet capacity on real rate sweeps answers in requests/s", "[vllm][corpus][cli]") {
  const auto j =
      json_of(run_tpnet({"capacity", "--sweep", kLlmd, "--config-key", "deployment", "--tp", "1",
                         "--ttft-slo", "200ms", "--tps-slo", "20", "--format", "json"}));
  CHECK(j["load_axis"].as<std::string>() == "request_rate");
  const auto configs = j["configs"];
  REQUIRE(configs.size() == 3);
  CHECK(configs[0]["c_max_request_rate_per_s"].as<double>() == 30.0);
  CHECK_FALSE(configs[0]["c_max"]);
  const auto points = j["points"];
  REQUIRE(points.size() == 9);
  CHECK(points[0]["request_rate_per_s"].as<double>() == 10.0);
  CHECK(points[2]["rate_unlimited"].as<bool>());
  CHECK_FALSE(points[2]["request_rate_per_s"]);
  CHECK(points[0]["sustained"].as<bool>());

  // Without --config-key the three deployments read as one config named by
  // their model_id, which has request_rate 10 three times: exit 2 naming the key.
  const auto unnamed = run_tpnet({"capacity", "--sweep", kLlmd, "--tp", "1"});
  CHECK(unnamed.exit_code == 2);
  CHECK_THAT(unnamed.err, ContainsSubstring("config 'Llama-3.2-3B-Instruct l40s-4x-llama3.2-3b-"
                                            "llmd-rates-jsonlines' has request_rate 10 twice"));
  CHECK_THAT(unnamed.err, ContainsSubstring("--config-key"));
  // Named, but no TP size anywhere: exit 2 naming --tp.
  const auto no_tp = run_tpnet({"capacity", "--sweep", kLlmd, "--config-key", "deployment"});
  CHECK(no_tp.exit_code == 2);
  CHECK_THAT(no_tp.err, ContainsSubstring("--tp"));

  // A rate sweep and a concurrency sweep are different quantities.
  const std::string qwen = std::string(TPNET_SOURCE_DIR) + "/examples/data/qwen36_27b_sweep.csv";
  const auto mixed = run_tpnet({"capacity", "--sweep", qwen, "--sweep", "TP1-spark=" + kSparkRate});
  CHECK(mixed.exit_code == 2);
  CHECK_THAT(mixed.err, ContainsSubstring("analyse them in separate runs"));
}

TEST_CASE("a vLLM 0.25.1 closed-loop run is a point at max_concurrency 2, not at its peak of 8",
          "[vllm][corpus]") {
  // New schema (endpoint_type, failed, max_concurrent_requests, rtfx); the
  // file holds max_concurrency 2 and max_concurrent_requests 8, the peak vLLM
  // counted in flight.
  const SweepSet set = load_sweeps(kOptCapped, std::string("TP1-opt"));
  const SweepPoint& p = only_point(set);
  CHECK(set.sweeps[0].axis == LoadAxis::concurrency);
  CHECK(set.sweeps[0].tp == 1);
  CHECK(p.concurrency == 2);
  CHECK_FALSE(p.request_rate);  // "inf" with a cap: a concurrency point
  CHECK(p.completed == 8);
  CHECK_THAT(p.ttft.value(), WithinRel(46.89306787258829e-3, 1e-12));
  CHECK_THAT(p.tps.tokens_per_second(), WithinRel(1000.0 / 7.962668958377132, 1e-12));
  REQUIRE(p.itl);
  CHECK_THAT(p.itl->value(), WithinRel(7.962675899761962e-3, 1e-12));
  REQUIRE(p.latency);
  CHECK_THAT(p.latency->value(), WithinRel(166.33310224824527e-3, 1e-12));
  CHECK_THAT(p.p99_latency->value(), WithinRel(189.18195631165872e-3, 1e-12));
  CHECK_THAT(*p.achieved_rate, WithinRel(11.950037467159987, 1e-12));
  CHECK_THAT(p.output_throughput->tokens_per_second(), WithinRel(191.2005994745598, 1e-12));
  CHECK_THAT(p.duration->value(), WithinRel(0.6694539679883746, 1e-12));
  CHECK(set.warnings.empty());  // failed 0
}

TEST_CASE("a vLLM run where every request failed is refused naming completed and failed",
          "[vllm][corpus][bad-input]") {
  // vLLM wrote completed 0, failed 8 and every mean as 0.0: read as numbers,
  // the fastest run there is.
  try {
    (void)load_sweeps(kOptAllFailed, std::string("TP1"));
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), ContainsSubstring(kOptAllFailed + ":1: completed: is 0 and failed is 8"));
    CHECK_THAT(e.what(), ContainsSubstring("every request failed"));
  }
}

TEST_CASE("a DGX Spark run where 102 of 300 requests failed is read with a warning",
          "[vllm][corpus]") {
  const SweepSet set = load_sweeps(kSparkFailed, std::string("TP1-omni"));
  const SweepPoint& p = only_point(set);
  CHECK(set.sweeps[0].axis == LoadAxis::request_rate);
  CHECK(*p.request_rate == 1.5);
  CHECK(p.concurrency == 25);  // max_concurrency; max_concurrent_requests (28) is not read
  CHECK(p.completed == 198);
  CHECK_THAT(p.ttft.value(), WithinRel(1333.185407429354e-3, 1e-12));
  CHECK_THAT(p.tps.tokens_per_second(), WithinRel(1000.0 / 175.02661734631218, 1e-12));
  CHECK_THAT(p.latency->value(), WithinRel(60249.72193719695e-3, 1e-12));
  CHECK_THAT(*p.achieved_rate, WithinRel(0.40745667323857665, 1e-12));
  REQUIRE(set.warnings.size() == 1);
  CHECK_THAT(set.warnings[0], ContainsSubstring(kSparkFailed));
  CHECK_THAT(set.warnings[0],
             ContainsSubstring("102 request(s) failed at request_rate 1.5 (102 of 300, 34.0%)"));
  CHECK_THAT(set.warnings[0], ContainsSubstring("the means of the 198 that completed"));
  // Completed 0.407 requests/s of 1.5: it did not keep up, failures or not.
  const ConfigCapacity c = analyze_config(set.sweeps[0], SloSpec{Seconds(2.0), TokenRate(5.0)});
  CHECK(c.points.at(0).sustained_judged);
  CHECK_FALSE(c.points.at(0).sustained);
  CHECK(c.c_max == 0.0);
}

TEST_CASE("tpnet capacity on newer-schema vLLM results: warns on failures, refuses all failed",
          "[vllm][corpus][cli]") {
  const auto capped = run_tpnet({"capacity", "--sweep", "TP1=" + kOptCapped, "--ttft-slo", "100ms",
                                 "--tps-slo", "100", "--format", "json"});
  REQUIRE(capped.exit_code == 0);
  const auto j = json_of(capped);
  CHECK(j["load_axis"].as<std::string>() == "concurrency");
  REQUIRE(j["points"].size() == 1);
  CHECK(j["points"][0]["concurrency"].as<int>() == 2);
  CHECK_THAT(j["points"][0]["ttft_s"].as<double>(), WithinRel(0.04689306787258829, 1e-9));
  CHECK(j["configs"][0]["c_max"].as<int>() == 2);  // 46.9 ms, 125.6 tokens/s

  const auto failed = run_tpnet({"capacity", "--sweep", "TP1=" + kSparkFailed, "--format", "json"});
  REQUIRE(failed.exit_code == 0);
  const auto jf = json_of(failed);
  REQUIRE(jf["warnings"].size() == 1);
  CHECK_THAT(jf["warnings"][0].as<std::string>(), ContainsSubstring("102 request(s) failed"));
  CHECK_THAT(failed.err, ContainsSubstring("tpnet: warning: "));
  CHECK_THAT(failed.err, ContainsSubstring("(102 of 300, 34.0%)"));

  const auto none = run_tpnet({"capacity", "--sweep", "TP1=" + kOptAllFailed});
  CHECK(none.exit_code == 2);
  CHECK(none.out.empty());
  CHECK(std::count(none.err.begin(), none.err.end(), '\n') == 1);
  CHECK_THAT(none.err, ContainsSubstring(kOptAllFailed + ":1: completed: is 0 and failed is 8"));
}

TEST_CASE("a folder of plain vllm bench serve results reads by model_id and file name",
          "[vllm][corpus]") {
  // Twelve files of one DGX Spark study: a rate sweep (11-rate-sweep-0.1 ..
  // -1.0), four one-off scenarios, and two harness files that hold no result.
  const SweepSet set = load_sweeps(kGemma, std::nullopt, BenchNaming{"config", 1});
  std::vector<std::string> names;
  for (const auto& s : set.sweeps) names.push_back(s.config);
  CHECK(names == std::vector<std::string>{
                     "gemma-4-26B-A4B-it 07-office-baseline", "gemma-4-26B-A4B-it 08-sharegpt",
                     "gemma-4-26B-A4B-it 09-reasoning", "gemma-4-26B-A4B-it 10-monday-peak",
                     "gemma-4-26B-A4B-it 11-rate-sweep"});
  const Sweep& sweep = set.sweeps.back();
  CHECK(sweep.axis == LoadAxis::request_rate);
  CHECK(sweep.tp == 1);
  REQUIRE(sweep.points.size() == 6);
  CHECK(set.model_ids.at(sweep.config) == "google/gemma-4-26B-A4B-it");
  REQUIRE(set.warnings.size() == 2);
  CHECK_THAT(set.warnings[0], ContainsSubstring("11-rate-sweep.json: skipped: not a vllm bench "
                                                "serve result"));
  CHECK_THAT(set.warnings[1], ContainsSubstring("meta.json: skipped"));
}

TEST_CASE("gemma-4 at 1 request/s completing 0.527 with a 426 s p99 did not keep up",
          "[vllm][corpus]") {
  const SweepSet set = load_sweeps(kGemma, std::nullopt, BenchNaming{"config", 1});
  // SLOs every run meets, so only keeping up decides C_max.
  const ConfigCapacity c = analyze_config(set.sweeps.back(), SloSpec{Seconds(5.0), TokenRate(1.5)});
  REQUIRE(c.points.size() == 6);
  const PointVerdict& top = c.points[5];
  CHECK(*top.point.request_rate == 1.0);
  CHECK_THAT(*top.point.achieved_rate, WithinRel(0.526653103507595, 1e-12));
  CHECK(top.sustained_judged);
  // Its p99 latency (425.9 s) outlasts the 250 s it spent sending 250 requests.
  CHECK(top.tail_outlasts_sending);
  CHECK_FALSE(top.sustained);
  // 0.5 requests/s: a 263.0 s p99 over a 250 s send, 0.357 completed.
  CHECK(c.points[3].tail_outlasts_sending);
  CHECK_FALSE(c.points[3].sustained);
  // 0.3 requests/s: a 174.0 s p99 within its 333 s send, 0.241 completed of
  // the 100 / (333.3 + 174.0) = 0.197 a sustained run of this length completes.
  CHECK_FALSE(c.points[2].tail_outlasts_sending);
  CHECK(c.points[2].sustained);
  CHECK_THAT(*c.points[2].expected_rate,
             WithinRel(100.0 / (100.0 / 0.3 + 173.9549413886648), 1e-12));
  CHECK(c.c_max == 0.3);
  CHECK(c.fails_at == 0.5);
  CHECK(c.binding == Binding::unsustained);
  CHECK_THAT(c.notes[0], ContainsSubstring("0.5 requests/s fails to keep up: it completed 0.357 "
                                           "requests/s of the 0.5 sent, and its p99 latency of "
                                           "263.0 s outlasts the 250.0 s it spent sending"));
  // Users are whole people: floor(0.3 x (86.398 + 45)) = floor(39.42) = 39.
  REQUIRE(c.users);
  CHECK(*c.users == 39.0);
}

TEST_CASE("tpnet capacity on a folder of plain results: --tp, skipped files, whole users",
          "[vllm][corpus][cli]") {
  const auto r = run_tpnet({"capacity", "--sweep", kGemma, "--tp", "1", "--ttft-slo", "5000ms",
                            "--tps-slo", "1.5", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = json_of(r);
  const auto configs = j["configs"];
  REQUIRE(configs.size() == 5);
  const auto sweep = configs[4];
  CHECK(sweep["config"].as<std::string>() == "gemma-4-26B-A4B-it 11-rate-sweep");
  CHECK(sweep["c_max_request_rate_per_s"].as<double>() == 0.3);
  CHECK(sweep["users"].as<std::string>() == "39");
  CHECK_THAT(r.err, ContainsSubstring("meta.json: skipped"));
  bool flagged = false;
  for (const auto& p : j["points"]) {
    if (p["config"].as<std::string>() == sweep["config"].as<std::string>() &&
        p["request_rate_per_s"].as<double>() == 1.0) {
      flagged = p["tail_outlasts_sending"].as<bool>() && !p["sustained"].as<bool>();
    }
  }
  CHECK(flagged);
  // A config whose one run meets everything fails nowhere: the table says so,
  // not "0.00".
  const auto table = run_tpnet(
      {"capacity", "--sweep", kGemma, "--tp", "1", "--ttft-slo", "5000ms", "--tps-slo", "1.5"});
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, ContainsSubstring("none measured"));
  // Without --tp the TP size is unknown: exit 2 naming the flag.
  const auto no_tp = run_tpnet({"capacity", "--sweep", kGemma});
  CHECK(no_tp.exit_code == 2);
  CHECK_THAT(no_tp.err, ContainsSubstring("the TP size of config 'gemma-4-26B-A4B-it "
                                          "07-office-baseline' is unknown"));
}

TEST_CASE("tpnet report --sweep warns when a sweep's model_id is not --model",
          "[vllm][corpus][cli]") {
  const auto r =
      run_tpnet({"report", "--model", "qwen3.6-27b", "--nodes", "4", "--speeds", "100G,200G",
                 "--tp", "2", "--sweep", kSparkRate, "--out",
                 (std::filesystem::temp_directory_path() / "tpnet_corpus_report.html").string()});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, ContainsSubstring("sweep config 'gpt-oss-20b spark-gb10-burst0.7' "
                                      "was measured on model_id openai/gpt-oss-20b, not on "
                                      "qwen3.6-27b"));
}
