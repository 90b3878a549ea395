// tpnet capacity end to end: the studies' answers in every format, vLLM result
// folders, and every bad input as exit 2 with one line naming it.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"
#include "golden.hpp"

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
