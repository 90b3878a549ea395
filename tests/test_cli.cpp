// The tpnet binary end to end: its JSON keys and values, and every bad input
// the brief lists (exit 2, one line naming what is wrong, no crash).

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

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

const std::string kBaseline = std::string(TPNET_SOURCE_DIR) + "/examples/data/glm53_tp8_200g.csv";

}  // namespace

TEST_CASE("tpnet bytes --model glm-5.3 --tp 8 --format json says 3,376,128 bytes per token",
          "[cli][golden]") {
  const YAML::Node j =
      json_of(run_tpnet({"bytes", "--model", "glm-5.3", "--tp", "8", "--format", "json"}));
  CHECK(j["per_token_bytes"].as<double>() == 3376128.0);
  CHECK(j["allreduces_per_forward"].as<int>() == 157);
  CHECK(j["allreduce"]["block_bytes"].as<double>() == 50331648.0);
  CHECK(j["allreduce"]["sent_bytes_per_node"].as<double>() == 88080384.0);
  CHECK(j["allreduce"]["ring_steps"].as<int>() == 14);
  CHECK(j["allreduce"]["segment_bytes"].as<double>() == 6291456.0);
  CHECK(j["tp_scaling"].size() == 4);
  CHECK(j["warnings"].size() == 0);
}

TEST_CASE("tpnet bytes --chunk changes the block, not the bytes per token", "[cli]") {
  const YAML::Node j = json_of(
      run_tpnet({"bytes", "--model", "glm-5.3", "--tp", "8", "--chunk", "2k", "--format", "json"}));
  CHECK(j["per_token_bytes"].as<double>() == 3376128.0);
  CHECK(j["allreduce"]["block_bytes"].as<double>() == 2048.0 * 6144 * 2);
}

TEST_CASE("tpnet penalty reproduces P1-P6 with the baseline CSV", "[cli][golden]") {
  const YAML::Node j =
      json_of(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--from", "200G", "--to",
                         "100G", "--baseline", kBaseline, "--format", "json"}));
  CHECK(j["per_token_bytes"].as<double>() == 3376128.0);
  CHECK(prints_as(j["extra_s_per_1k_tokens"].as<double>(), 0.135, 3));
  const double bounds[] = {0.14, 1.11, 4.43, 4.43, 8.85, 8.85};
  const YAML::Node scenarios = j["scenarios"];
  REQUIRE(scenarios.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) {
    INFO(i);
    CHECK(prints_as(scenarios[i]["extra_ttft_bound_s"].as<double>(), bounds[i], 2));
    CHECK(scenarios[i]["requests"].as<int>() >= 1);
    CHECK(scenarios[i]["prompt_tokens"].as<double>() > 0);
    CHECK(scenarios[i]["prefill_bytes_per_node"].as<double>() > 0);
    CHECK(scenarios[i]["baseline_ttft_s"].as<double>() > 0);
    const auto pct = scenarios[i]["ttft_increase_bound_pct"].as<double>();
    CHECK(pct > 0.0);
    CHECK(pct <= 100.0);
  }
  CHECK(scenarios[1]["baseline_ttft_s"].as<double>() == 6.36);
}

TEST_CASE("tpnet penalty with no prompts runs the study's P1-P6 and tables print the bounds",
          "[cli]") {
  const CliResult r = run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--wide"});
  REQUIRE(r.exit_code == 0);
  for (const char* bound : {"+0.14", "+1.11", "+4.43", "+8.85"})
    CHECK_THAT(r.out, ContainsSubstring(bound));
  CHECK_THAT(r.out, ContainsSubstring("GB"));  // the units row of --wide's prefill bytes
}

TEST_CASE("tpnet penalty --to equal to --from is zero penalty, not an error", "[cli]") {
  const YAML::Node j =
      json_of(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--from", "200G", "--to",
                         "200Gb/s", "--prompt", "8k", "--format", "json"}));
  CHECK(j["scenarios"][0]["extra_ttft_bound_s"].as<double>() == 0.0);
  CHECK(j["extra_s_per_1k_tokens"].as<double>() == 0.0);
}

TEST_CASE("tpnet decode explains the latency-bound regime with the study's numbers",
          "[cli][golden]") {
  const YAML::Node j =
      json_of(run_tpnet({"decode", "--model", "glm-5.3", "--tp", "8", "--from", "200G", "--to",
                         "100G", "--spec-tokens", "4", "--format", "json"}));
  CHECK(prints_as(j["allreduce_sent_bytes"].as<double>() / 1e3, 108, 0));
  CHECK(prints_as(j["forward_sent_bytes"].as<double>() / 1e6, 18, 0));
  CHECK(prints_as(j["weight_read_floor_s"].as<double>() * 1e3, 10.3, 1));
  CHECK(prints_as(j["traffic_ceiling_bps"].as<double>() / 1e9, 14, 0));
  CHECK(prints_as(j["max_added_per_forward_s"].as<double>() * 1e3, 0.72, 2));
  CHECK(j["regime"].as<std::string>() == "latency-bound");
}

TEST_CASE("tpnet link --pcie-gen 5 --lanes 4 gives 128, 126 and ~111 Gb/s", "[cli][golden]") {
  const YAML::Node j =
      json_of(run_tpnet({"link", "--pcie-gen", "5", "--lanes", "4", "--format", "json"}));
  CHECK(j["raw_bps"].as<double>() == 128e9);
  CHECK(prints_as(j["after_coding_bps"].as<double>() / 1e9, 126, 0));
  CHECK(prints_as(j["usable_bps"].as<double>() / 1e9, 111, 0));
}

TEST_CASE("tpnet models lists the study models", "[cli]") {
  const YAML::Node j = json_of(run_tpnet({"models", "--format", "json"}));
  std::vector<std::string> names;
  for (const auto& m : j["models"]) names.push_back(m["name"].as<std::string>());
  for (const char* want : {"glm-5.3", "qwen3.6-27b", "deepseek-v4.1-flash"}) {
    CHECK(std::find(names.begin(), names.end(), want) != names.end());
  }
}

TEST_CASE("every format renders every subcommand without NaN or inf", "[cli]") {
  for (const char* format : {"table", "json", "csv", "markdown"}) {
    for (const auto& r :
         {run_tpnet({"bytes", "--model", "llama-3.1-70b", "--tp", "4", "--format", format}),
          run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--baseline", kBaseline,
                     "--format", format}),
          run_tpnet({"decode", "--model", "qwen3.6-27b", "--tp", "2", "--format", format}),
          run_tpnet({"link", "--format", format}), run_tpnet({"models", "--format", format}),
          run_tpnet({"models", "show", "deepseek-v3", "--format", format}),
          run_tpnet({"compare", "--model", "glm-5.3", "--prompt", "8k", "--format", format}),
          run_tpnet({"check", std::string(TPNET_SOURCE_DIR) + "/examples/glm53-study-plan.yaml",
                     "--format", format}),
          run_tpnet({"switch", "--nodes", "16", "--speed", "100G", "--format", format}),
          run_tpnet({"memory", "--model", "glm-5.3", "--tp", "8", "--format", format}),
          run_tpnet({"capacity", "--sweep",
                     std::string(TPNET_SOURCE_DIR) + "/examples/data/qwen36_27b_sweep.csv",
                     "--format", format}),
          run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "16", "--format", format})}) {
      INFO(format << "\n" << r.err);
      CHECK(r.exit_code == 0);
      CHECK_FALSE(r.out.empty());
      // NaN or infinity as a printed value, not inside a word ("info", "Infiniband").
      static const std::regex kNotFinite(R"((^|[^A-Za-z])(nan|NaN|inf|Inf)([^A-Za-z]|$))");
      CHECK_FALSE(std::regex_search(r.out, kNotFinite));
    }
  }
}

TEST_CASE("csv output is the scenario list with unit-carrying keys", "[cli]") {
  const CliResult r = run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--format", "csv"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("name,requests,prompt_tokens_each,prompt_tokens,prefill_bytes_per_node", 0) ==
        0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 7);
}

TEST_CASE("bad input: exit 2 with one line naming the value and what is allowed",
          "[cli][bad-input]") {
  SECTION("TP of 0, 1 and negative") {
    expect_bad_input(run_tpnet({"bytes", "--model", "glm-5.3", "--tp", "0"}), "--tp: ");
    expect_bad_input(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "1"}), "use 2 or more");
    expect_bad_input(run_tpnet({"decode", "--model", "glm-5.3", "--tp=-4"}), "--tp: ");
    expect_bad_input(run_tpnet({"bytes", "--model", "glm-5.3", "--tp", "eight"}), "--tp");
  }
  SECTION("unknown model, with close names") {
    expect_bad_input(run_tpnet({"bytes", "--model", "glm5.3", "--tp", "8"}),
                     "did you mean glm-5.3");
  }
  SECTION("links: zero, negative, unparsable") {
    expect_bad_input(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--to", "200Q"}),
                     "--to: '200Q'");
    expect_bad_input(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--to", "0G"}),
                     "--to");
    expect_bad_input(run_tpnet({"decode", "--model", "glm-5.3", "--tp", "8", "--from=-100G"}),
                     "--from");
    expect_bad_input(run_tpnet({"bytes", "--model", "glm-5.3", "--tp", "8", "--link", "fast"}),
                     "--link");
  }
  SECTION("prompt of 0 tokens and chunk of 0") {
    expect_bad_input(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--prompt", "0"}),
                     "--prompt");
    expect_bad_input(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--prompt", "4x0k"}),
                     "--prompt");
    expect_bad_input(run_tpnet({"bytes", "--model", "glm-5.3", "--tp", "8", "--chunk", "0"}),
                     "--chunk");
  }
  SECTION("model YAML: missing, empty, malformed, missing field, negative field") {
    expect_bad_input(run_tpnet({"bytes", "--model", "/nonexistent/m.yaml", "--tp", "8"}),
                     "no such file");
    const auto empty = write_temp("tpnet_empty.yaml", "");
    expect_bad_input(run_tpnet({"bytes", "--model", empty.string(), "--tp", "8"}), "is empty");
    const auto broken = write_temp("tpnet_broken.yaml", "name: x\nhidden_size: [1,\n");
    expect_bad_input(run_tpnet({"bytes", "--model", broken.string(), "--tp", "8"}),
                     "not valid YAML");
    const auto missing = write_temp("tpnet_missing.yaml", "name: x\nnum_layers: 2\n");
    expect_bad_input(run_tpnet({"bytes", "--model", missing.string(), "--tp", "8"}),
                     "hidden_size: required key");
    const auto negative = write_temp("tpnet_negative.yaml",
                                     "name: x\nhidden_size: -8\nnum_layers: 2\nvocab_size: "
                                     "9\nnum_attention_heads: 8\ntotal_params: 1B\n"
                                     "bits_per_weight: 16\n");
    expect_bad_input(run_tpnet({"bytes", "--model", negative.string(), "--tp", "8"}),
                     ":2: hidden_size: -8");
    for (const auto& p : {empty, broken, missing, negative}) std::filesystem::remove(p);
  }
  SECTION("baseline CSV: missing column, non-numeric cell") {
    const auto no_ttft =
        write_temp("tpnet_base1.csv", "test,requests,prompt_tokens_each\nP1,1,1024\n");
    expect_bad_input(
        run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--baseline", no_ttft.string()}),
        "missing column 'ttft_s'");
    const auto words =
        write_temp("tpnet_base2.csv", "requests,prompt_tokens_each,ttft_s\n1,1024,quick\n");
    expect_bad_input(
        run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--baseline", words.string()}),
        ":2: column ttft_s: 'quick' is not a number");
    std::filesystem::remove(no_ttft);
    std::filesystem::remove(words);
  }
  SECTION("usage errors") {
    expect_bad_input(run_tpnet({"bytes", "--tp", "8"}), "--model");
    expect_bad_input(run_tpnet({"frobnicate"}), "frobnicate");
    expect_bad_input(run_tpnet({"bytes", "--model", "glm-5.3", "--tp", "8", "--format", "xml"}),
                     "--format");
    expect_bad_input(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--prompt", "8k",
                                "--baseline", kBaseline}),
                     "either --prompt or --baseline");
    expect_bad_input(run_tpnet({"link", "--pcie-gen", "7", "--lanes", "4"}), "--pcie-gen");
  }
}

TEST_CASE("a TP the heads do not divide warns on stderr and still answers", "[cli]") {
  const CliResult r =
      run_tpnet({"bytes", "--model", "qwen3.6-27b", "--tp", "16", "--format", "json"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, ContainsSubstring("warning"));
  CHECK(YAML::Load(r.out)["warnings"].size() == 1);
}

TEST_CASE("--help works for every subcommand", "[cli]") {
  for (const char* sub : {"bytes", "penalty", "decode", "link", "models"}) {
    const CliResult r = run_tpnet({sub, "--help"});
    INFO(sub);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, ContainsSubstring("--format"));
  }
  CHECK(run_tpnet({"--help"}).exit_code == 0);
}

TEST_CASE("tpnet decode prints the node's memory bandwidth in GB/s, as the catalog states it",
          "[cli]") {
  // models/nodes/dgx-spark.yaml: memory_bandwidth 273GB/s, not 2.184 Tb/s.
  const auto r = run_tpnet({"decode", "--model", "glm-5.3", "--tp", "8"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("weight-read floor per forward (at 273 GB/s)"));
  CHECK_THAT(r.out, !ContainsSubstring("Tb/s"));
}
