// Reading concurrency sweeps: the study's CSV and vllm bench serve result JSON,
// with every bad input named by file, line and column or key.

#include <filesystem>
#include <fstream>

#include "catch.hpp"
#include "tpnet/io/sweep_io.hpp"

using namespace tpnet;

namespace {

const std::string kData = std::string(TPNET_SOURCE_DIR) + "/examples/data/";
const std::string kBench = std::string(TPNET_SOURCE_DIR) + "/examples/vllm-bench/";
const std::string kHeader = "config,tp,concurrency,ttft_ms,itl_ms,tps,latency_s\n";

std::string csv_error(const std::string& text) {
  try {
    (void)parse_sweep_csv(text, "sweep.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string json_error(const std::string& text) {
  try {
    (void)sweeps_from_bench(parse_vllm_bench_json(text, "bench.json"), std::nullopt);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

/// A vLLM result object with the keys tpnet reads; `extra` is spliced in.
std::string bench(int concurrency, const std::string& extra = "") {
  return R"({"backend": "openai-chat", "config": "TP2", "tp": "2", "max_concurrency": )" +
         std::to_string(concurrency) +
         R"(, "completed": 100, "failed": 0, "mean_ttft_ms": 457.03, "mean_tpot_ms": 50.0, )"
         R"("mean_itl_ms": 53.48)" +
         extra + "}";
}

/// What sweeps_from_bench refuses in results that each read cleanly.
std::string grouping_error(const std::vector<BenchResult>& results) {
  try {
    (void)sweeps_from_bench(results, std::nullopt);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

const SweepPoint& point_at(const Sweep& s, int concurrency) {
  for (const auto& p : s.points) {
    if (p.concurrency == concurrency) return p;
  }
  FAIL("no point at C=" << concurrency);
  return s.points.front();
}

}  // namespace

TEST_CASE("the Qwen3.6-27B sweep CSV gives TP1, TP2 and TP4 at seven levels each", "[sweep-io]") {
  const SweepSet set = load_sweep_csv(kData + "qwen36_27b_sweep.csv");
  REQUIRE(set.sweeps.size() == 3);
  CHECK(set.warnings.empty());
  CHECK(set.sweeps[0].config == "TP1");
  CHECK(set.sweeps[1].tp == 2);
  CHECK(set.sweeps[2].config == "TP4");
  for (const auto& s : set.sweeps) CHECK(s.points.size() == 7);
  const SweepPoint& p = point_at(set.sweeps[2], 32);
  CHECK_THAT(p.ttft.value(), WithinRel(1.00544, 1e-12));
  CHECK_THAT(p.tps.tokens_per_second(), WithinRel(14.61, 1e-12));
  CHECK_THAT(p.itl->value(), WithinRel(0.06099, 1e-12));
  CHECK_THAT(p.latency->value(), WithinRel(8.77, 1e-12));
  CHECK(p.source.file == kData + "qwen36_27b_sweep.csv");
  CHECK(p.source.line == 22);
}

TEST_CASE("the DeepSeek-V4.1-Flash sweep CSV reads empty cells as not reported", "[sweep-io]") {
  const SweepSet set = load_sweep_csv(kData + "deepseek_v41_flash_sweep.csv");
  REQUIRE(set.sweeps.size() == 3);
  CHECK(set.sweeps[0].config == "TP4");
  CHECK(set.sweeps[1].config == "TP8-300K");
  CHECK(set.sweeps[2].tp == 8);
  const SweepPoint& tp4 = point_at(set.sweeps[0], 2);
  CHECK_FALSE(tp4.itl.has_value());
  CHECK_FALSE(tp4.latency.has_value());
  CHECK_THAT(tp4.tps.tokens_per_second(), WithinRel(21.32, 1e-12));
  CHECK_THAT(point_at(set.sweeps[1], 4).latency->value(), WithinRel(6.49, 1e-12));
}

TEST_CASE("sweep CSV errors name the file, line and column", "[sweep-io][bad-input]") {
  CHECK_THAT(csv_error("config,tp,concurrency,ttft_ms\nTP1,1,1,233\n"),
             ContainsSubstring("sweep.csv:1: missing column 'tps'"));
  CHECK_THAT(csv_error(kHeader + "TP1,1,1,233ms,77.97,12.63,10.14\n"),
             ContainsSubstring("sweep.csv:2: column ttft_ms: '233ms' is not a number: the column "
                               "holds plain milliseconds without a unit; write 233"));
  CHECK_THAT(csv_error(kHeader + "TP1,1,1,0.23s,77.97,12.63,10.14\n"),
             ContainsSubstring("column ttft_ms: '0.23s' is not a number") &&
                 ContainsSubstring("write 230"));
  CHECK_THAT(csv_error(kHeader + "TP1,1,1,233,77.97,12.63,10140ms\n"),
             ContainsSubstring("column latency_s: '10140ms'") && ContainsSubstring("write 10.14"));
  CHECK_THAT(csv_error(kHeader + "TP1,1,1,233,77.97,12.63tok/s,10.14\n"),
             ContainsSubstring("column tps: '12.63tok/s' is not a number: the column holds plain "
                               "tokens/s"));
  CHECK_THAT(csv_error(kHeader + "TP1,1,1,fast,77.97,12.63,10.14\n"),
             ContainsSubstring("sweep.csv:2: column ttft_ms: 'fast' is not a number"));
  CHECK_THAT(csv_error(kHeader + "TP1,1,1,-233,77.97,12.63,10.14\n"),
             ContainsSubstring("column ttft_ms: -233 must be positive"));
  CHECK_THAT(csv_error(kHeader + "TP1,1,1,,77.97,12.63,10.14\n"),
             ContainsSubstring("sweep.csv:2: column ttft_ms: is empty"));
  CHECK_THAT(csv_error(kHeader + "TP1,1,1,233,,,10.14\n"),
             ContainsSubstring("sweep.csv:2: column tps: is empty; give the decode rate, or "
                               "itl_ms"));
  CHECK_THAT(csv_error(kHeader + "TP1,1,0,233,77.97,12.63,10.14\n"),
             ContainsSubstring("column concurrency: must be 1 to 1,000,000"));
  CHECK_THAT(csv_error(kHeader + "TP1,1,1.5,233,77.97,12.63,10.14\n"),
             ContainsSubstring("column concurrency: '1.5' is not a whole number"));
  CHECK_THAT(csv_error(kHeader + "TP1,0,1,233,77.97,12.63,10.14\n"),
             ContainsSubstring("column tp: must be 1 to 4096 nodes"));
  CHECK_THAT(csv_error(kHeader + ",1,1,233,77.97,12.63,10.14\n"),
             ContainsSubstring("column config: is empty"));
  CHECK_THAT(csv_error(kHeader + "TP1,1,1,233,77.97,12.63\n"),
             ContainsSubstring("sweep.csv:2: has 6 cells; the header has 7"));
  CHECK_THAT(csv_error(""), ContainsSubstring("sweep.csv: is empty"));
  CHECK_THAT(csv_error("# only a comment\n"), ContainsSubstring("sweep.csv: is empty"));
  CHECK_THAT(csv_error(kHeader), ContainsSubstring("sweep.csv:1: has a header but no data rows"));
}

TEST_CASE("a concurrency measured twice for one config names both rows", "[sweep-io][bad-input]") {
  CHECK_THAT(csv_error(kHeader + "TP1,1,1,233,77.97,12.63,10.14\nTP1,1,2,304,81.22,12.05,10.62\n"
                                 "TP1,1,1,240,77.97,12.63,10.14\n"),
             ContainsSubstring("sweep.csv:4: column concurrency: config TP1 has concurrency 1 "
                               "twice (also at line 2)"));
  CHECK_THAT(csv_error(kHeader + "TP1,1,1,233,77.97,12.63,10.14\nTP1,2,2,304,81.22,12.05,10.62\n"),
             ContainsSubstring("sweep.csv:3: column tp: config TP1 has tp 2 here and 1 at line 2"));
}

TEST_CASE("sweep CSV rows may come in any order and carry extra columns", "[sweep-io]") {
  const SweepSet set = parse_sweep_csv(
      "# comment\nrps,tps,ttft_ms,concurrency,tp,config\n0.1,11.61,357.46,4,1,TP1\n"
      "0.2,12.63,233.30,1,1,TP1\n",
      "s.csv");
  REQUIRE(set.sweeps.size() == 1);
  REQUIRE(set.sweeps[0].points.size() == 2);
  CHECK(set.sweeps[0].points[0].concurrency == 4);
  CHECK_FALSE(set.sweeps[0].points[0].latency.has_value());
}

TEST_CASE("an empty tps cell is 1000 / itl_ms, and the config says so", "[sweep-io]") {
  const SweepSet set = parse_sweep_csv(kHeader + "TP2,2,8,457.03,50,,7.25\n", "s.csv");
  CHECK_THAT(set.sweeps[0].points[0].tps.tokens_per_second(), WithinRel(20.0, 1e-12));
  REQUIRE(set.sweeps[0].notes.size() == 1);
  CHECK_THAT(set.sweeps[0].notes[0], ContainsSubstring("TPS at C=8 is 1000 / itl_ms"));
}

TEST_CASE("values that look like the wrong unit are warned about, not refused",
          "[sweep-io][bad-input]") {
  const SweepSet set = parse_sweep_csv(kHeader + "TP1,1,1,0.23,0.078,12.63,10140\n", "s.csv");
  REQUIRE(set.warnings.size() == 3);
  CHECK_THAT(set.warnings[0], ContainsSubstring("s.csv:2: itl_ms 0.078 is under 1 ms; is the "
                                                "column in seconds?"));
  CHECK_THAT(set.warnings[1], ContainsSubstring("s.csv:2: latency_s 10140 is over 1000 s; is the "
                                                "column in milliseconds?"));
  CHECK_THAT(set.warnings[2], ContainsSubstring("s.csv:2: ttft_ms 0.23 is under 1 ms"));
}

TEST_CASE(
    "a vllm bench serve result gives one point: TPS = 1000 / mean_tpot_ms, latency = "
    "mean_e2el_ms",
    "[sweep-io][vllm]") {
  const auto results = parse_vllm_bench_json(bench(8, R"(, "mean_e2el_ms": 7250.0)"), "b.json");
  REQUIRE(results.size() == 1);
  const BenchResult& r = results[0];
  CHECK(r.config == "TP2");
  CHECK(r.tp == 2);
  CHECK(r.point.concurrency == 8);
  CHECK_THAT(r.point.ttft.value(), WithinRel(0.45703, 1e-12));
  CHECK_THAT(r.point.tps.tokens_per_second(), WithinRel(20.0, 1e-12));
  CHECK_THAT(r.point.itl->value(), WithinRel(0.05348, 1e-12));
  CHECK_THAT(r.point.latency->value(), WithinRel(7.25, 1e-12));
  CHECK(r.tps_from == "1000 / mean_tpot_ms");
  CHECK(r.latency_from == "mean_e2el_ms");
  CHECK(r.point.source.file == "b.json");
  CHECK(r.point.source.line == 1);
}

TEST_CASE("without mean_e2el_ms the latency is mean TTFT + mean TPOT x (output tokens - 1)",
          "[sweep-io][vllm]") {
  const auto r = parse_vllm_bench_json(bench(8, R"(, "total_output_tokens": 12800)"), "b.json");
  // 457.03 ms + 50 ms x (12800 / 100 - 1) = 6807.03 ms
  CHECK_THAT(r[0].point.latency->value(), WithinRel(6.80703, 1e-12));
  CHECK_THAT(r[0].latency_from, ContainsSubstring("total_output_tokens / completed - 1"));
  const auto none = parse_vllm_bench_json(bench(8), "b.json");
  CHECK_FALSE(none[0].point.latency.has_value());
  const SweepSet set = sweeps_from_bench(none, std::nullopt);
  CHECK_THAT(set.sweeps[0].notes[0], ContainsSubstring("latency not in the result"));
}

TEST_CASE("without mean_tpot_ms the decode rate is 1000 / mean_itl_ms", "[sweep-io][vllm]") {
  const auto r = parse_vllm_bench_json(
      R"({"config": "TP2", "tp": 2, "max_concurrency": 4, "mean_ttft_ms": 320.11, )"
      R"("mean_itl_ms": 50})",
      "b.json");
  CHECK_THAT(r[0].point.tps.tokens_per_second(), WithinRel(20.0, 1e-12));
  CHECK(r[0].tps_from == "1000 / mean_itl_ms");
}

TEST_CASE("files written with --append-result hold one vllm result per line", "[sweep-io][vllm]") {
  const auto r =
      parse_vllm_bench_json(bench(1) + "\n\n" + bench(2) + "\n" + bench(4) + "\n", "all.json");
  REQUIRE(r.size() == 3);
  CHECK(r[2].point.concurrency == 4);
  CHECK(r[2].point.source.line == 4);
  CHECK_THAT(json_error(bench(1) + "\n" + bench(2, R"(, "mean_e2el_ms": "slow")")),
             ContainsSubstring("bench.json:2: mean_e2el_ms: 'slow' is not a number"));
}

TEST_CASE("vllm result errors name the file, line and key", "[sweep-io][vllm][bad-input]") {
  CHECK_THAT(json_error(""), ContainsSubstring("bench.json: is empty"));
  CHECK_THAT(json_error("{\"config\": \"TP2\", "),
             ContainsSubstring("bench.json:1: is not valid JSON: cut short"));
  CHECK_THAT(json_error("{\"config\": \"TP2\" \"tp\": 2}"),
             ContainsSubstring("bench.json:1: is not valid JSON"));
  CHECK_THAT(json_error(R"({"duration": 10})"),
             ContainsSubstring("is not a vllm bench serve result"));
  CHECK_THAT(json_error(R"({"mean_ttft_ms": 100, "max_concurrency": null})"),
             ContainsSubstring("max_concurrency: is missing or null, and so is request_rate: "
                               "the run measured neither"));
  CHECK_THAT(json_error(R"({"mean_ttft_ms": 100, "request_rate": 0, "max_concurrency": null})"),
             ContainsSubstring("request_rate: must be a positive number of requests/s"));
  CHECK_THAT(json_error(R"({"mean_ttft_ms": 100, "request_rate": "fast"})"),
             ContainsSubstring("request_rate: 'fast' is not a number"));
  CHECK_THAT(json_error(R"({"mean_ttft_ms": 100, "request_rate": 2, "burstiness": 0, )"
                        R"("mean_tpot_ms": 50})"),
             ContainsSubstring("burstiness: must be positive"));
  CHECK_THAT(json_error(R"({"mean_ttft_ms": 100})"),
             ContainsSubstring("max_concurrency: is missing or null"));
  CHECK_THAT(json_error(R"({"max_concurrency": 0, "mean_ttft_ms": 100})"),
             ContainsSubstring("max_concurrency: 0 is out of range"));
  CHECK_THAT(json_error(R"({"max_concurrency": 2.5, "mean_ttft_ms": 100})"),
             ContainsSubstring("max_concurrency: '2.5' must be a whole number"));
  CHECK_THAT(json_error("{\n  \"max_concurrency\": 8,\n  \"mean_tpot_ms\": 50\n}"),
             ContainsSubstring("mean_ttft_ms: required key is missing"));
  CHECK_THAT(json_error("{\n  \"max_concurrency\": 8,\n  \"mean_ttft_ms\": \"457ms\"\n}"),
             ContainsSubstring("bench.json:3: mean_ttft_ms: '457ms' is not a number"));
  CHECK_THAT(json_error(R"({"max_concurrency": 8, "mean_ttft_ms": 457, "mean_tpot_ms": 0})"),
             ContainsSubstring("mean_tpot_ms: must be positive"));
  CHECK_THAT(json_error(R"({"max_concurrency": 8, "mean_ttft_ms": 457})"),
             ContainsSubstring("needs mean_tpot_ms or mean_itl_ms"));
  CHECK_THAT(json_error(R"({"max_concurrency": 8, "mean_ttft_ms": 457, "mean_tpot_ms": 50, )"
                        R"("completed": 0})"),
             ContainsSubstring("completed: is 0: no request completed"));
  CHECK_THAT(json_error(R"({"max_concurrency": 8, "mean_ttft_ms": 457, "mean_tpot_ms": 50, )"
                        R"("mean_itl_ms": NaN})"),
             ContainsSubstring("mean_itl_ms: 'NaN' is not a number"));
  CHECK_THAT(json_error("[1, 2]"), ContainsSubstring("expected a mapping of keys"));
}

TEST_CASE("a vllm result must name its config and TP size", "[sweep-io][vllm][bad-input]") {
  const std::string anonymous =
      R"({"max_concurrency": 8, "mean_ttft_ms": 457, "mean_tpot_ms": 50})";
  CHECK_THAT(json_error(anonymous),
             ContainsSubstring(
                 "bench.json:1: config: names no config (no key 'config', no model_id): record "
                 "one with vllm bench serve's --metadata config=NAME tp=N"));
  const auto results = parse_vllm_bench_json(anonymous, "bench.json");
  const SweepSet named = sweeps_from_bench(results, std::string("TP8-300K"));
  CHECK(named.sweeps[0].config == "TP8-300K");
  CHECK(named.sweeps[0].tp == 8);
  try {
    (void)sweeps_from_bench(results, std::string("fast"));
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), ContainsSubstring("tp: the TP size of config 'fast' is unknown"));
  }
  // The tp key wins over the name; a name from the caller wins over the config key.
  const auto keyed = parse_vllm_bench_json(bench(8), "b.json");
  const SweepSet renamed = sweeps_from_bench(keyed, std::string("TP2-long"));
  CHECK(renamed.sweeps[0].config == "TP2-long");
  CHECK(renamed.sweeps[0].tp == 2);
  REQUIRE(renamed.warnings.size() == 1);
  CHECK_THAT(renamed.warnings[0], ContainsSubstring("its config key says 'TP2'"));
}

TEST_CASE("vllm results repeating a level or disagreeing on TP are refused",
          "[sweep-io][vllm][bad-input]") {
  std::vector<BenchResult> results = parse_vllm_bench_json(bench(8), "a.json");
  auto again = parse_vllm_bench_json(bench(8), "b.json");
  results.push_back(again[0]);
  try {
    (void)sweeps_from_bench(results, std::nullopt);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), ContainsSubstring("b.json:1: max_concurrency: config 'TP2' has "
                                           "max_concurrency 8 twice (also in a.json:1)"));
  }
  results.pop_back();
  auto other = parse_vllm_bench_json(R"({"config": "TP2", "tp": 4, "max_concurrency": 16, )"
                                     R"("mean_ttft_ms": 741, "mean_tpot_ms": 66})",
                                     "c.json");
  results.push_back(other[0]);
  try {
    (void)sweeps_from_bench(results, std::nullopt);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), ContainsSubstring("c.json:1: tp: config 'TP2' has tp 4 here and 2"));
  }
}

TEST_CASE("failed requests in a vllm result are warned about", "[sweep-io][vllm]") {
  const auto r = parse_vllm_bench_json(
      R"({"config": "TP2", "tp": 2, "max_concurrency": 64, "completed": 97, "failed": 3, )"
      R"("mean_ttft_ms": 2137.37, "mean_tpot_ms": 147.7})",
      "b.json");
  REQUIRE(r[0].warnings.size() == 1);
  CHECK_THAT(r[0].warnings[0], ContainsSubstring("3 request(s) failed at max_concurrency 64"));
}

TEST_CASE("a vllm result from a ramp-up run or one that adds up wrong is refused naming the key",
          "[sweep-io][vllm][bad-input]") {
  // SYNTHETIC, with the keys vllm bench serve writes for --ramp-up-strategy
  // (vllm/benchmarks/serve.py): request_rate stays "inf" while the rate ramps.
  const std::string ramp =
      R"({"config": "TP2", "tp": 2, "request_rate": "inf", "burstiness": 1.0, )"
      R"("max_concurrency": null, "ramp_up_strategy": "linear", "ramp_up_start_rps": 1, )"
      R"("ramp_up_end_rps": 20, "completed": 100, "failed": 0, "mean_ttft_ms": 120.0, )"
      R"("mean_tpot_ms": 20.0})";
  CHECK_THROWS_WITH(parse_vllm_bench_json(ramp, "ramp.json"),
                    ContainsSubstring("ramp.json:1: ramp_up_strategy: is 'linear': the request "
                                      "rate ramped from 1 to 20 requests/s"));
  // SYNTHETIC: more requests completed and failed than were sent.
  CHECK_THROWS_WITH(
      parse_vllm_bench_json(R"({"config": "TP2", "tp": 2, "max_concurrency": 8, )"
                            R"("num_prompts": 100, "completed": 97, "failed": 5, )"
                            R"("mean_ttft_ms": 120.0, "mean_tpot_ms": 20.0})",
                            "sum.json"),
      ContainsSubstring("sum.json:1: failed: 97 completed and 5 failed add up to more than "
                        "num_prompts 100"));
  // SYNTHETIC: no cap and no rate; the observed peak is not read as either.
  CHECK_THROWS_WITH(
      parse_vllm_bench_json(R"({"config": "TP2", "tp": 2, "max_concurrent_requests": 12, )"
                            R"("mean_ttft_ms": 120.0, "mean_tpot_ms": 20.0})",
                            "peak.json"),
      ContainsSubstring("max_concurrent_requests is the peak vLLM observed in flight"));
}

TEST_CASE("the example vllm bench folders import as the Qwen3.6-27B TP2 and TP4 sweeps",
          "[sweep-io][vllm]") {
  const SweepSet tp2 = load_sweeps(kBench + "qwen36-tp2");
  REQUIRE(tp2.sweeps.size() == 1);
  CHECK(tp2.sweeps[0].config == "TP2");
  CHECK(tp2.sweeps[0].tp == 2);
  CHECK(tp2.sweeps[0].points.size() == 7);
  const SweepSet tp4 = load_sweeps(kBench + "qwen36-tp4", std::string("TP4"));
  REQUIRE(tp4.sweeps.size() == 1);
  CHECK(tp4.sweeps[0].tp == 4);
  const SweepSet csv = load_sweeps(kData + "qwen36_27b_sweep.csv");
  for (const auto& bench_sweep : {tp2.sweeps[0], tp4.sweeps[0]}) {
    const Sweep& from_csv = csv.sweeps[bench_sweep.tp == 2 ? 1 : 2];
    for (const auto& p : from_csv.points) {
      const SweepPoint& q = point_at(bench_sweep, p.concurrency);
      CHECK_THAT(q.ttft.value(), WithinRel(p.ttft.value(), 1e-12));
      CHECK_THAT(q.tps.tokens_per_second(), WithinRel(p.tps.tokens_per_second(), 1e-5));
      CHECK_THAT(q.latency->value(), WithinRel(p.latency->value(), 1e-12));
    }
  }
  // Any config named in the file also works when the folder is given a name.
  CHECK_THROWS_AS(load_sweeps(kBench + "qwen36-tp4"), InputError);
}

TEST_CASE("load_sweeps refuses a name for a CSV, an empty folder and a missing path",
          "[sweep-io][bad-input]") {
  const auto error_of = [](const std::string& path, const std::optional<std::string>& name) {
    try {
      (void)load_sweeps(path, name);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK_THAT(error_of(kData + "qwen36_27b_sweep.csv", std::string("TP2")),
             ContainsSubstring("a CSV names its configs in its config column"));
  const auto empty = std::filesystem::temp_directory_path() / "tpnet_empty_bench_dir";
  std::filesystem::create_directories(empty);
  CHECK_THAT(error_of(empty.string(), std::nullopt), ContainsSubstring("has no *.json files"));
  CHECK_THAT(error_of(kData + "no-such.csv", std::nullopt), ContainsSubstring("no such file"));
  CHECK_THAT(error_of(kData + "qwen36_27b_sweep.csv", std::string("")),
             ContainsSubstring("the config name before '=' is empty"));
  const auto blank = std::filesystem::temp_directory_path() / "tpnet_blank_bench.json";
  std::ofstream(blank) << "\n  \n";
  CHECK_THAT(error_of(blank.string(), std::nullopt),
             ContainsSubstring("is empty; expected a vllm bench serve result"));
}

TEST_CASE("sweep sets merge by config and refuse a level given twice", "[sweep-io][bad-input]") {
  const SweepSet a = parse_sweep_csv(kHeader + "TP2,2,1,148.87,43.48,22.57,5.67\n", "a.csv");
  const SweepSet b = parse_sweep_csv(kHeader + "TP2,2,2,252.45,46.05,20.98,6.10\n", "b.csv");
  const SweepSet merged = merge_sweep_sets({a, b});
  REQUIRE(merged.sweeps.size() == 1);
  CHECK(merged.sweeps[0].points.size() == 2);
  try {
    (void)merge_sweep_sets({a, b, a});
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), ContainsSubstring("a.csv:2: config 'TP2' has concurrency 1 twice (also "
                                           "in a.csv:2)"));
  }
  const SweepSet c = parse_sweep_csv(kHeader + "TP2,4,4,320.11,48.14,19.89,6.44\n", "c.csv");
  CHECK_THROWS_WITH(merge_sweep_sets({a, c}),
                    ContainsSubstring("c.csv:2: config 'TP2' has tp 4 here and 2 in a.csv:2"));
}

TEST_CASE("a vllm result with a request rate is a point of a rate sweep", "[sweep-io][vllm]") {
  const auto rate = [](const std::string& value, const std::string& cap) {
    return R"({"config": "TP2", "request_rate": )" + value + R"(, "max_concurrency": )" + cap +
           R"(, "completed": 100, "duration": 60.0, "request_throughput": 1.6, )"
           R"("mean_ttft_ms": 300, "mean_tpot_ms": 50, "mean_e2el_ms": 9000})";
  };
  const auto results = parse_vllm_bench_json(
      rate("2.0", "null") + "\n" + rate("\"inf\"", "null") + "\n" + rate("4", "32") + "\n",
      "rates.jsonl");
  REQUIRE(results.size() == 3);
  for (const auto& r : results) CHECK(r.axis == LoadAxis::request_rate);
  CHECK(*results[0].point.request_rate == 2.0);
  CHECK(results[0].point.concurrency == 0);
  CHECK_FALSE(results[1].point.request_rate);  // "inf": every request at once
  CHECK(*results[2].point.request_rate == 4.0);
  CHECK(results[2].point.concurrency == 32);  // a cap on top of the rate
  CHECK(results[0].point.duration->value() == 60.0);
  CHECK(*results[0].point.achieved_rate == 1.6);
  const SweepSet set = sweeps_from_bench(results, std::nullopt);
  REQUIRE(set.sweeps.size() == 1);
  CHECK(set.sweeps[0].axis == LoadAxis::request_rate);

  // A rate twice, and rate runs mixed with closed-loop ones, are refused.
  const auto twice = parse_vllm_bench_json(rate("2", "null") + "\n" + rate("2", "8"), "r.jsonl");
  CHECK_THAT(grouping_error(twice),
             ContainsSubstring("r.jsonl:2: request_rate: config 'TP2' has request_rate 2 twice"));
  const auto mixed = parse_vllm_bench_json(rate("2", "null") + "\n" + bench(8), "m.jsonl");
  CHECK_THAT(grouping_error(mixed),
             ContainsSubstring("mixes runs with a fixed request rate and runs without one"));
}

TEST_CASE("a config key and a TP size name results that record neither", "[sweep-io][vllm]") {
  const std::string result =
      R"({"deployment": "base", "label": null, "request_rate": 10.0, "max_concurrency": null, )"
      R"("mean_ttft_ms": 54.6, "mean_tpot_ms": 13.7})";
  const SweepSet set =
      sweeps_from_bench(parse_vllm_bench_json(result, "r.json", BenchNaming{"deployment", 1}),
                        std::nullopt, BenchNaming{"deployment", 1});
  REQUIRE(set.sweeps.size() == 1);
  CHECK(set.sweeps[0].config == "base");
  CHECK(set.sweeps[0].tp == 1);
  // vLLM's --label names the config when no config key was recorded.
  const std::string labelled = R"({"label": "TP4-fast", "max_concurrency": 4, )"
                               R"("mean_ttft_ms": 54.6, "mean_tpot_ms": 13.7})";
  const SweepSet by_label =
      sweeps_from_bench(parse_vllm_bench_json(labelled, "l.json"), std::nullopt);
  CHECK(by_label.sweeps.at(0).config == "TP4-fast");
  CHECK(by_label.sweeps.at(0).tp == 4);
}

namespace {

/// The seven Qwen3.6-27B TP2 results as one --append-result file: one object per line.
std::string appended_tp2() {
  std::string out;
  for (int c : {1, 2, 4, 8, 16, 32, 64}) {
    std::ifstream in(kBench + "qwen36-tp2/openai-chat-infqps-concurrency" + std::to_string(c) +
                     "-Qwen3.6-27B-NVFP4.json");
    std::string line((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string parse_error(const std::string& text, const std::string& origin) {
  try {
    (void)parse_vllm_bench_json(text, origin);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a JSON-lines result whose last line was cut is refused naming the line",
          "[sweep-io][vllm][bad-input]") {
  const std::string whole = appended_tp2();
  REQUIRE(parse_vllm_bench_json(whole, "tp2.jsonl").size() == 7);
  // An interrupted run leaves its last record cut: it must not read as one level.
  const std::string cut = whole.substr(0, whole.size() - 40);
  CHECK_THAT(
      parse_error(cut, "tp2.jsonl"),
      ContainsSubstring("tp2.jsonl:7: is not valid JSON: cut short, its object never closes"));
  // The same with no newline before the cut record's end of file.
  CHECK_THAT(
      parse_error(whole.substr(0, whole.size() - 1) + "{\"max_concurrency\": 1", "tp2.jsonl"),
      ContainsSubstring("tp2.jsonl:7: holds more than one JSON value"));
  // A one-line file cut short.
  CHECK_THAT(parse_error(bench(1).substr(0, 60), "one.json"),
             ContainsSubstring("one.json:1: is not valid JSON: cut short"));
  // A pretty-printed result cut short.
  CHECK_THAT(parse_error("{\n  \"max_concurrency\": 8,\n  \"mean_ttft_ms\": 4", "pretty.json"),
             ContainsSubstring("pretty.json:1: is not valid JSON: cut short"));
}

TEST_CASE("two results run together on one line, or an array among lines, are refused",
          "[sweep-io][vllm][bad-input]") {
  CHECK_THAT(parse_error(bench(1) + "\n" + bench(2) + bench(4) + "\n" + bench(8), "r.jsonl"),
             ContainsSubstring("r.jsonl:2: holds more than one JSON value (two records run "
                               "together?)"));
  CHECK_THAT(parse_error(bench(1) + bench(2), "r.jsonl"),
             ContainsSubstring("r.jsonl:1: holds more than one JSON value"));
  CHECK_THAT(parse_error(bench(1) + "\n[" + bench(2) + ", " + bench(4) + "]", "r.jsonl"),
             ContainsSubstring("r.jsonl:2: is a JSON array inside a file of one object per line"));
  // A line that is not JSON at all, in the middle.
  CHECK_THAT(parse_error(bench(1) + "\nnot json\n" + bench(4), "r.jsonl"),
             ContainsSubstring("r.jsonl:2: is not a JSON object"));
}

TEST_CASE("a JSON array of results reads every result, not the first", "[sweep-io][vllm]") {
  const auto r =
      parse_vllm_bench_json("[" + bench(1) + ", " + bench(2) + ", " + bench(4) + "]", "all.json");
  REQUIRE(r.size() == 3);
  CHECK(r[2].point.concurrency == 4);
  const SweepSet set = sweeps_from_bench(r, std::nullopt);
  REQUIRE(set.sweeps.size() == 1);
  CHECK(set.sweeps[0].points.size() == 3);
}

TEST_CASE("plain vllm results are named by model_id and their file name, less the level",
          "[sweep-io][vllm]") {
  // vLLM's own file names: label, rate, cap, model and date all drop out.
  const SweepSet tp4 = load_sweeps(kBench + "qwen36-tp4", std::nullopt, BenchNaming{"config", 4});
  REQUIRE(tp4.sweeps.size() == 1);
  CHECK(tp4.sweeps[0].config == "Qwen3.6-27B-NVFP4");
  CHECK(tp4.sweeps[0].tp == 4);
  CHECK(tp4.sweeps[0].points.size() == 7);
  CHECK(tp4.model_ids.at("Qwen3.6-27B-NVFP4") == "Qwen3.6-27B-NVFP4");
  const std::string plain = R"({"backend": "vllm", "label": null, "model_id": "org/Model-8B", )"
                            R"("request_rate": 2.5, "max_concurrency": 16, "mean_ttft_ms": 54.6, )"
                            R"("mean_tpot_ms": 13.7})";
  const auto named = [&](const std::string& file) {
    const SweepSet set = sweeps_from_bench(parse_vllm_bench_json(plain, file), std::nullopt,
                                           BenchNaming{"config", 2});
    REQUIRE(set.sweeps.size() == 1);
    return set.sweeps[0].config;
  };
  CHECK(named("vllm-2.5qps-concurrency16-Model-8B-20260101-120000.json") == "Model-8B");
  CHECK(named("/runs/11-rate-sweep-2.5.json") == "Model-8B 11-rate-sweep");
  CHECK(named("long-prompts_rate2.5_c16.json") == "Model-8B long-prompts");
  CHECK(named("run.json") == "Model-8B run");
  // No model_id, no config: still refused, saying what names a config.
  CHECK_THAT(json_error(R"({"max_concurrency": 8, "mean_ttft_ms": 457, "mean_tpot_ms": 50})"),
             ContainsSubstring("names no config (no key 'config', no model_id)"));
}

TEST_CASE("a folder of results skips JSON files that hold no result, naming them",
          "[sweep-io][vllm]") {
  const auto dir = std::filesystem::temp_directory_path() / "tpnet_sweep_io_skip";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "meta.json") << R"({"profile": "bf16", "model": "org/Model-8B"})";
  std::ofstream(dir / "c8.json") << bench(8);
  std::ofstream(dir / "c16.jsonl") << bench(16) << "\n" << bench(32) << "\n";
  const SweepSet set = load_sweeps(dir.string());
  REQUIRE(set.sweeps.size() == 1);
  CHECK(set.sweeps[0].points.size() == 3);
  REQUIRE(set.warnings.size() == 1);
  CHECK_THAT(set.warnings[0],
             ContainsSubstring("meta.json: skipped: not a vllm bench serve result"));
  // A damaged result in a folder is still refused.
  std::ofstream(dir / "c64.json") << bench(64).substr(0, 50);
  CHECK_THROWS_WITH(load_sweeps(dir.string()),
                    ContainsSubstring("c64.json:1: is not valid JSON: cut short"));
  // Nothing but other files: refused.
  std::filesystem::remove(dir / "c8.json");
  std::filesystem::remove(dir / "c16.jsonl");
  std::filesystem::remove(dir / "c64.json");
  CHECK_THROWS_WITH(load_sweeps(dir.string()),
                    ContainsSubstring("has no vllm bench serve results: none of its 1 *.json"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a sweep measured on another model_id is warned about", "[sweep-io][vllm]") {
  SweepSet set;
  set.model_ids = {{"a", "Qwen/Qwen3.6-27B-FP8"}, {"b", "google/gemma-4-26B-A4B-it"}};
  const auto warnings = model_id_warnings(set, "qwen3.6-27b");
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], ContainsSubstring("sweep config 'b' was measured on model_id "
                                            "google/gemma-4-26B-A4B-it, not on qwen3.6-27b"));
  CHECK(model_id_warnings(set, "").empty());
}
