// tpnet capacity end to end: the studies' answers in every format, vLLM result
// folders, and every bad input as exit 2 with one line naming it.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"
#include "golden.hpp"
#include "tpnet/io/sweep_io.hpp"
#include "tpnet/io/text_file.hpp"
#include "tpnet/usecase/capacity.hpp"

using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::json_of;
using tpnet::test::prints_as;
using tpnet::test::run_tpnet;
using tpnet::test::write_temp;

namespace {

const std::string kQwen = std::string(TPNET_SOURCE_DIR) + "/examples/data/qwen36_27b_sweep.csv";
const std::string kDeepSeek =
    std::string(TPNET_SOURCE_DIR) + "/examples/data/deepseek_v41_flash_sweep.csv";
const std::string kBench = std::string(TPNET_SOURCE_DIR) + "/examples/vllm-bench/";
const std::string kHeader = "config,tp,concurrency,ttft_ms,itl_ms,tps,latency_s\n";

YAML::Node by_config(const YAML::Node& list, const std::string& name) {
  for (const auto& row : list) {
    if (row["config"].as<std::string>() == name) return row;
  }
  FAIL("no config " << name);
  return {};
}

}  // namespace

TEST_CASE("tpnet capacity --format json reproduces the Qwen3.6-27B study", "[cli][capacity]") {
  const YAML::Node j = json_of(run_tpnet({"capacity", "--sweep", kQwen, "--format", "json"}));
  CHECK(j["ttft_slo_s"].as<double>() == 1.0);
  CHECK(j["tps_slo_tokens_per_s"].as<double>() == 15.0);
  CHECK(j["think_s"].as<double>() == 45.0);
  CHECK(j["edge_pct"].as<double>() == 2.0);
  CHECK(j["fleet_nodes"].as<int>() == 4);
  const YAML::Node configs = j["configs"];
  REQUIRE(configs.size() == 3);
  CHECK(by_config(configs, "TP1")["c_max"].as<int>() == 0);
  CHECK(by_config(configs, "TP1")["binding"].as<std::string>() == "tps");
  CHECK(by_config(configs, "TP1")["users_known"].as<bool>());
  CHECK(by_config(configs, "TP1")["users"].as<double>() == 0.0);
  const YAML::Node tp2 = by_config(configs, "TP2");
  CHECK(tp2["c_max"].as<int>() == 8);
  CHECK(tp2["binding"].as<std::string>() == "tps");
  CHECK(tp2["fails_at_concurrency"].as<int>() == 16);
  CHECK(tp2["on_edge"].as<bool>());
  CHECK(tp2["latency_at_c_max_s"].as<double>() == 7.25);
  CHECK(tp2["users"].as<std::string>() == "57");  // 57.655 people: 57 whole users
  CHECK(tp2["c_max_tight"].as<int>() == 8);
  CHECK(tp2["c_max_loose"].as<int>() == 16);
  const YAML::Node tp4 = by_config(configs, "TP4");
  CHECK(tp4["c_max"].as<int>() == 16);
  CHECK(tp4["binding"].as<std::string>() == "ttft+tps");
  CHECK(tp4["on_edge"].as<bool>());
  CHECK(tp4["users"].as<std::string>() == "124");
  CHECK(j["fleet_most_users"].as<std::string>() == "TP4 x1");
  CHECK(j["fleet_best_available"].as<std::string>() == "TP2 x2");
  CHECK(j["fleet"].size() == 3);
  CHECK(j["think_sensitivity"].size() == 18);
  CHECK(j["ttft_sensitivity"].size() == 15);
  CHECK(j["tps_sensitivity"].size() == 15);
  CHECK(j["scaling"].size() == 21);
  CHECK(j["points"].size() == 21);
  const YAML::Node edge_point = j["points"][19];  // TP4 at C=32
  CHECK(edge_point["concurrency"].as<int>() == 32);
  CHECK(edge_point["ttft_s"].as<double>() == 1.00544);
  CHECK(edge_point["ttft_on_edge"].as<bool>());
  CHECK_FALSE(edge_point["meets_slo"].as<bool>());
  CHECK(edge_point["source"].as<std::string>() == kQwen + ":22");
  CHECK(j["notes"].size() == 1);
  CHECK(j["warnings"].size() == 0);
}

TEST_CASE("tpnet capacity reads vllm bench serve folders and answers as the CSV does",
          "[cli][capacity][vllm]") {
  const YAML::Node j =
      json_of(run_tpnet({"capacity", "--sweep", kBench + "qwen36-tp2", "--sweep",
                         "TP4=" + kBench + "qwen36-tp4", "--fleet", "4", "--format", "json"}));
  const YAML::Node configs = j["configs"];
  REQUIRE(configs.size() == 2);
  CHECK(by_config(configs, "TP2")["c_max"].as<int>() == 8);
  CHECK(by_config(configs, "TP4")["c_max"].as<int>() == 16);
  CHECK(by_config(configs, "TP2")["users"].as<double>() == 57.0);
  CHECK(by_config(configs, "TP4")["users"].as<double>() == 124.0);
  bool derivation_noted = false;
  for (const auto& note : by_config(configs, "TP4")["notes"]) {
    derivation_noted = derivation_noted ||
                       note.as<std::string>() ==
                           "from vllm bench serve results: TPS = 1000 / mean_tpot_ms; latency = "
                           "mean_e2el_ms";
  }
  CHECK(derivation_noted);
  CHECK(j["fleet_most_users"].as<std::string>() == "TP4 x1");
}

TEST_CASE("tpnet capacity on DeepSeek-V4.1-Flash at 20 tokens/s: TP4 users cannot be computed",
          "[cli][capacity]") {
  const CliResult r =
      run_tpnet({"capacity", "--sweep", kDeepSeek, "--tps-slo", "20", "--format", "json"});
  const YAML::Node j = json_of(r);
  const YAML::Node configs = j["configs"];
  CHECK(by_config(configs, "TP4")["c_max"].as<int>() == 2);
  CHECK_FALSE(by_config(configs, "TP4")["users_known"].as<bool>());
  CHECK_FALSE(by_config(configs, "TP4")["latency_known"].as<bool>());
  CHECK(by_config(configs, "TP8-300K")["c_max"].as<int>() == 4);
  CHECK(by_config(configs, "TP8-1M")["c_max"].as<int>() == 2);
  CHECK(j["fleet_nodes"].as<int>() == 8);
  // Points without ITL or latency leave those keys out.
  CHECK_FALSE(j["points"][0]["itl_s"].IsDefined());
  CHECK_FALSE(j["points"][0]["latency_s"].IsDefined());
  CHECK(j["points"][4]["itl_s"].IsDefined());

  const CliResult table = run_tpnet({"capacity", "--sweep", kDeepSeek, "--tps-slo", "20tok/s"});
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, ContainsSubstring("latency not reported at C=2: users by Little's law "
                                          "cannot be computed"));
  CHECK_THAT(table.out, ContainsSubstring("n/a"));
}

TEST_CASE("tpnet capacity --format csv prints one row per config", "[cli][capacity]") {
  const CliResult r = run_tpnet({"capacity", "--sweep", kQwen, "--format", "csv"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("config,tp,levels,lowest_concurrency,highest_concurrency,c_max,binding,", 0) ==
        0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 4);
  CHECK_THAT(r.out, ContainsSubstring("\nTP4,4,7,1,64,16,ttft+tps,32,true,6.66,true,"));
}

TEST_CASE("tpnet capacity prints tables and Markdown for people", "[cli][capacity]") {
  const CliResult table = run_tpnet({"capacity", "--sweep", kQwen, "--fleet", "4"});
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, ContainsSubstring("TP4 x1: 124 users"));
  CHECK_THAT(table.out, ContainsSubstring("TP2 x2: 114 users"));
  CHECK_THAT(table.out, ContainsSubstring("capacity swings: C_max is 8"));
  CHECK_THAT(table.out, ContainsSubstring("1000 ms *"));
  const CliResult md = run_tpnet({"capacity", "--sweep", kQwen, "--format", "markdown"});
  REQUIRE(md.exit_code == 0);
  CHECK_THAT(md.out, ContainsSubstring("### configs"));
  CHECK_THAT(md.out, ContainsSubstring("| TP2 | 2 | 7 | 8 | tps |"));
}

TEST_CASE("tpnet capacity warns on doubtful data on stderr and in JSON", "[cli][capacity]") {
  const auto file =
      write_temp("tpnet_capacity_doubtful.csv", kHeader +
                                                    "TP2,2,1,0.15,43.48,22.57,5.67\n"
                                                    "TP2,2,2,252.45,46.05,20.98,6.10\n");
  const CliResult r = run_tpnet({"capacity", "--sweep", file.string(), "--format", "json"});
  const YAML::Node j = json_of(r);
  REQUIRE(j["warnings"].size() == 1);
  CHECK_THAT(j["warnings"][0].as<std::string>(), ContainsSubstring("ttft_ms 0.15 is under 1 ms"));
  CHECK_THAT(r.err, ContainsSubstring("tpnet: warning: "));
}

TEST_CASE("tpnet capacity bad input exits 2 naming the flag, file, line or key",
          "[cli][capacity][bad-input]") {
  expect_bad_input(run_tpnet({"capacity"}), "--sweep is required");
  expect_bad_input(run_tpnet({"capacity", "--sweep", kQwen, "--think", "0s"}),
                   "--think: '0s' must be a positive duration");
  expect_bad_input(run_tpnet({"capacity", "--sweep", kQwen, "--think", "-45s"}), "--think");
  expect_bad_input(run_tpnet({"capacity", "--sweep", kQwen, "--ttft-slo", "1000"}),
                   "--ttft-slo: '1000'");
  expect_bad_input(run_tpnet({"capacity", "--sweep", kQwen, "--tps-slo", "fast"}),
                   "--tps-slo: 'fast'");
  expect_bad_input(run_tpnet({"capacity", "--sweep", kQwen, "--edge", "2"}), "--edge: '2'");
  expect_bad_input(run_tpnet({"capacity", "--sweep", kQwen, "--edge", "60%"}),
                   "--edge: must lie in 0% to 50%");
  expect_bad_input(run_tpnet({"capacity", "--sweep", kQwen, "--fleet", "0"}), "--fleet");
  expect_bad_input(run_tpnet({"capacity", "--sweep", kQwen, "--think-values", "15s,0s"}),
                   "--think-values");
  expect_bad_input(run_tpnet({"capacity", "--sweep", "no-such-sweep.csv"}),
                   "no-such-sweep.csv: no such file");
  expect_bad_input(run_tpnet({"capacity", "--sweep", "TP2=" + kQwen}),
                   "a CSV names its configs in its config column");
  // Named by its model_id, but no TP size anywhere: the message names --tp.
  expect_bad_input(run_tpnet({"capacity", "--sweep", kBench + "qwen36-tp4"}),
                   "tp: the TP size of config 'Qwen3.6-27B-NVFP4' is unknown");
  expect_bad_input(run_tpnet({"capacity", "--sweep", kBench + "qwen36-tp4"}),
                   "state it for results that record none (--tp)");
  expect_bad_input(run_tpnet({"capacity", "--sweep", kQwen, "--sweep", kQwen}),
                   "config 'TP1' has concurrency 1 twice");

  const auto units = write_temp("tpnet_capacity_units.csv", kHeader + "TP1,1,1,233ms,,12.63,\n");
  expect_bad_input(run_tpnet({"capacity", "--sweep", units.string()}),
                   units.string() + ":2: column ttft_ms: '233ms' is not a number");
  const auto dup = write_temp("tpnet_capacity_dup.csv", kHeader +
                                                            "TP1,1,1,233,,12.63,\n"
                                                            "TP1,1,1,240,,12.60,\n");
  expect_bad_input(run_tpnet({"capacity", "--sweep", dup.string()}),
                   dup.string() + ":3: column concurrency: config TP1 has concurrency 1 twice");
  const auto empty = write_temp("tpnet_capacity_empty.csv", "");
  expect_bad_input(run_tpnet({"capacity", "--sweep", empty.string()}), "is empty");
  const auto null_c = write_temp("tpnet_capacity_null.json",
                                 R"({"config": "TP2", "tp": "2", "max_concurrency": null, )"
                                 R"("mean_ttft_ms": 100, "mean_tpot_ms": 50})");
  expect_bad_input(run_tpnet({"capacity", "--sweep", null_c.string()}),
                   ":1: max_concurrency: is missing or null");
}

TEST_CASE("tpnet capacity with SLOs nothing meets answers C_max 0 and exits 0", "[cli][capacity]") {
  const YAML::Node j = json_of(run_tpnet({"capacity", "--sweep", kQwen, "--ttft-slo", "100ms",
                                          "--tps-slo", "50", "--format", "json"}));
  for (const auto& c : j["configs"]) CHECK(c["c_max"].as<int>() == 0);
  CHECK_THAT(j["notes"][0].as<std::string>(), ContainsSubstring("no config meets"));
}

TEST_CASE("capacity judges the SLOs on the statistic asked for and says which",
          "[cli][capacity][slo-statistic]") {
  // The vLLM reader keeps the percentiles: a real Spark run's p99 TTFT and
  // the decode rate 99% of its requests reach (1000 / p99_tpot_ms).
  const std::string real = std::string(TPNET_SOURCE_DIR) +
                           "/tests/data/vllm-bench/spark-gb10-gpt-oss-20b-rate1.5-maxconc25.json";
  const auto results = tpnet::parse_vllm_bench_json(tpnet::read_text_file(real), real);
  REQUIRE(results.size() == 1);
  const tpnet::SweepPoint& p = results.front().point;
  CHECK(tpnet::ttft_at(p, tpnet::SloStatistic::p99).value() * 1e3 == Approx(4738.315541171468));
  CHECK(tpnet::ttft_at(p, tpnet::SloStatistic::median).value() * 1e3 == Approx(748.9343104825821));
  CHECK(tpnet::tps_at(p, tpnet::SloStatistic::p90).tokens_per_second() ==
        Approx(1000.0 / 89.58576466364026));
  CHECK(tpnet::ttft_at(p, tpnet::SloStatistic::mean) == p.ttft);

  // SYNTHETIC: one config whose means meet 1000 ms / 15 tokens/s up to C=8
  // while its p99 TTFT breaks the SLO from C=4.
  const std::string csv =
      "config,tp,concurrency,ttft_ms,tps,ttft_median_ms,ttft_p99_ms,tps_median,tps_p99\n"
      "TP2,2,1,200,30,190,400,30,28\n"
      "TP2,2,2,300,28,280,800,28,25\n"
      "TP2,2,4,500,25,450,1400,25,22\n"
      "TP2,2,8,900,20,800,2500,20,16\n"
      "TP2,2,16,1600,14,1500,4000,14,10\n";
  const auto file = write_temp("tpnet_slo_statistic.csv", csv);
  auto c_max = [&](const std::string& statistic) {
    const YAML::Node j = json_of(run_tpnet(
        {"capacity", "--sweep", file.string(), "--slo-statistic", statistic, "--format", "json"}));
    CHECK(j["slo_statistic"].as<std::string>() == statistic);
    return j["configs"][0]["c_max"].as<double>();
  };
  CHECK(c_max("mean") == 8);
  CHECK(c_max("median") == 8);
  CHECK(c_max("p99") == 2);
  const CliResult table =
      run_tpnet({"capacity", "--sweep", file.string(), "--slo-statistic", "p99"});
  CHECK_THAT(table.out, ContainsSubstring("C_max under p99 TTFT <= 1000 ms and p99 TPS >= 15"));
  // A file without the statistic is refused naming the flag and the file.
  const CliResult missing = run_tpnet(
      {"capacity", "--sweep", file.string(), "--slo-statistic", "p90", "--format", "json"});
  expect_bad_input(missing, "--slo-statistic");
  CHECK_THAT(missing.err, ContainsSubstring("tpnet_slo_statistic.csv:2 has no p90 TTFT"));
}
