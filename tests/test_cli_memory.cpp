// tpnet memory end to end: the JSON keys and their sums, --min-tp, docs/background.md
// s.8's NCCL figures and 763B fit, every format, and the bad-input contract.

#include <yaml-cpp/yaml.h>

#include <cmath>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"
#include "golden.hpp"

using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::json_of;
using tpnet::test::prints_as;
using tpnet::test::run_tpnet;

TEST_CASE("tpnet memory --model glm-5.3 --tp 8 gives each part in bytes and the KV cache in tokens",
          "[cli][memory]") {
  const YAML::Node j =
      json_of(run_tpnet({"memory", "--model", "glm-5.3", "--tp", "8", "--format", "json"}));
  CHECK(j["tp"].as<int>() == 8);
  CHECK(j["budget_bytes"].as<double>() == 108.9e9);
  const double fixed = j["weights_bytes"].as<double>() + j["nccl_bytes"].as<double>() +
                       j["cuda_graph_bytes"].as<double>() + j["activation_peak_bytes"].as<double>();
  CHECK_THAT(j["fixed_bytes"].as<double>(), WithinRel(fixed, 1e-11));
  CHECK_THAT(j["kv_cache_bytes"].as<double>(),
             WithinRel(j["budget_bytes"].as<double>() - fixed, 1e-11));
  CHECK(j["nccl_bytes"].as<double>() == 37e9);
  CHECK(j["kv_bytes_per_token"].as<double>() == 100152.0);
  CHECK(j["kv_tokens"].as<double>() ==
        std::floor(j["kv_cache_bytes"].as<double>() / j["kv_bytes_per_token"].as<double>()));
  CHECK(j["max_model_len"].as<int>() == 8192);
  CHECK(j["max_model_len_fits"].as<bool>());
  CHECK(j["fits"].as<bool>());
  // Router gates in the 75 MoE layers (the first 3 are dense).
  CHECK(j["replicated_parts"]["router"]["params"].as<double>() == 75.0 * 6144 * 256);
  // 256 sequences of 8k do not fit at once: warned, still an answer.
  REQUIRE(j["warnings"].size() == 1);
  CHECK_THAT(j["warnings"][0].as<std::string>(), ContainsSubstring("--max-num-seqs 256"));

  const YAML::Node fp8 = json_of(run_tpnet({"memory", "--model", "glm-5.3", "--tp", "8",
                                            "--kv-cache-dtype", "fp8", "--format", "json"}));
  CHECK(fp8["kv_bytes_per_token"].as<double>() == 78.0 * (576 + 132));
  CHECK(fp8["kv_tokens"].as<double>() > j["kv_tokens"].as<double>());
}

TEST_CASE("tpnet memory --model glm-5.3 --min-tp answers 8", "[cli][memory][golden]") {
  const YAML::Node j =
      json_of(run_tpnet({"memory", "--model", "glm-5.3", "--min-tp", "--format", "json"}));
  CHECK(j["min_tp"].as<int>() == 8);
  CHECK(j["tp"].as<int>() == 8);
  REQUIRE(j["tried"].size() == 4);
  CHECK_FALSE(j["tried"][2]["fits"].as<bool>());  // TP4: ~106 GB of weights
  CHECK(prints_as(j["tried"][2]["weights_bytes"].as<double>() / 1e9, 106.8, 1));
  CHECK(j["tried"][3]["fits"].as<bool>());
  const CliResult table = run_tpnet({"memory", "--model", "glm-5.3", "--min-tp"});
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, ContainsSubstring("the smallest TP that fits glm-5.3 is 8"));
}

TEST_CASE(
    "tpnet memory reproduces docs/background.md s.8: NCCL takes 37 GB per rank at 64 channels, 11 "
    "GB "
    "at 8 channels of 1 MiB",
    "[cli][memory][golden]") {
  const YAML::Node defaults = json_of(
      run_tpnet({"memory", "--model", "deepseek-v4.1-flash", "--tp", "8", "--format", "json"}));
  CHECK(prints_as(defaults["nccl_bytes"].as<double>() / 1e9, 37.0, 0));
  CHECK(defaults["nccl_channels"].as<int>() == 64);
  CHECK(defaults["nccl_buffsize_bytes"].as<double>() == 4194304.0);
  const YAML::Node tuned =
      json_of(run_tpnet({"memory", "--model", "deepseek-v4.1-flash", "--tp", "8", "--nccl-channels",
                         "8", "--nccl-buffsize", "1MiB", "--format", "json"}));
  CHECK(prints_as(tuned["nccl_bytes"].as<double>() / 1e9, 11.0, 0));
}

TEST_CASE(
    "tpnet memory: DeepSeek-V4.1-Flash fits on 8 DGX Sparks only with NCCL_MAX_NCHANNELS=8 "
    "and NCCL_BUFFSIZE=1MiB",
    "[cli][memory][golden]") {
  const CliResult defaults =
      run_tpnet({"memory", "--model", "deepseek-v4.1-flash", "--tp", "8", "--format", "json"});
  const YAML::Node d = json_of(defaults);
  CHECK_FALSE(d["fits"].as<bool>());
  CHECK(d["shortfall_bytes"].as<double>() > 0.0);
  CHECK(d["kv_cache_bytes"].as<double>() == 0.0);
  CHECK_THAT(defaults.err, ContainsSubstring("NCCL_MAX_NCHANNELS=8 and NCCL_BUFFSIZE=1048576"));
  const YAML::Node t =
      json_of(run_tpnet({"memory", "--model", "deepseek-v4.1-flash", "--tp", "8", "--nccl-channels",
                         "8", "--nccl-buffsize", "1MiB", "--format", "json"}));
  CHECK(t["fits"].as<bool>());
  CHECK(t["kv_cache_bytes"].as<double>() > 0.0);
  // From its V4 layer plan: 5,511 B a token past the window (the report measured 5,959).
  CHECK(t["kv_bytes_per_token_source"].as<std::string>() == "architecture");
  CHECK(t["kv_bytes_per_token"].as<double>() == 5511.4375);
  // A model file without the shapes uses the deployment's measured size
  // (docs/formulas.md s.12.11; SYNTHETIC fixture).
  const YAML::Node stated = json_of(run_tpnet(
      {"memory", "--model", std::string(TPNET_SOURCE_DIR) + "/tests/data/models/totals-only.yaml",
       "--tp", "8", "--nccl-channels", "8", "--nccl-buffsize", "1MiB", "--format", "json"}));
  CHECK(stated["kv_bytes_per_token_source"].as<std::string>() == "model file");
  CHECK(stated["kv_bytes_per_token"].as<double>() == 5959.0);
  const YAML::Node given = json_of(
      run_tpnet({"memory", "--model", "deepseek-v4.1-flash", "--tp", "8", "--nccl-channels", "8",
                 "--nccl-buffsize", "1MiB", "--kv-bytes-per-token", "4kB", "--format", "json"}));
  CHECK(given["kv_bytes_per_token_source"].as<std::string>() == "--kv-bytes-per-token");
  CHECK(given["kv_tokens"].as<double>() == std::floor(t["kv_cache_bytes"].as<double>() / 4000.0));
  const YAML::Node min =
      json_of(run_tpnet({"memory", "--model", "deepseek-v4.1-flash", "--min-tp", "--nccl-channels",
                         "8", "--nccl-buffsize", "1MiB", "--format", "json"}));
  CHECK(min["min_tp"].as<int>() == 8);
}

TEST_CASE("tpnet memory renders in every format, CSV as one key,value list", "[cli][memory]") {
  for (const char* format : {"table", "json", "csv", "markdown"}) {
    for (const char* model : {"glm-5.3", "llama-3.1-70b", "gpt-oss-120b", "qwen3-next-80b-a3b",
                              "deepseek-v4.1-flash"}) {
      const CliResult r = run_tpnet({"memory", "--model", model, "--tp", "4", "--format", format});
      INFO(format << " " << model << "\n" << r.err);
      CHECK(r.exit_code == 0);
      CHECK(r.out.find("nan") == std::string::npos);
      CHECK(r.out.find("inf") == std::string::npos);
    }
  }
  const CliResult csv = run_tpnet({"memory", "--model", "glm-5.3", "--tp", "8", "--format", "csv"});
  CHECK(csv.out.rfind("key,value\nmodel,glm-5.3\ntp,8\n", 0) == 0);
  CHECK_THAT(csv.out, ContainsSubstring("\nkv_tokens,"));
  const CliResult ladder =
      run_tpnet({"memory", "--model", "glm-5.3", "--min-tp", "--format", "csv"});
  CHECK(ladder.out.rfind("name,tp,weights_bytes,nccl_bytes,", 0) == 0);
  const CliResult table = run_tpnet({"memory", "--model", "glm-5.3", "--tp", "8"});
  CHECK_THAT(table.out, ContainsSubstring("left for the KV cache"));
  CHECK_THAT(table.out, ContainsSubstring("part: sparse_indexer"));
}

TEST_CASE("tpnet memory: bad input exits 2 with one line naming the flag",
          "[cli][memory][bad-input]") {
  const std::vector<std::string> glm{"memory", "--model", "glm-5.3"};
  auto with = [&](std::initializer_list<std::string> extra) {
    std::vector<std::string> args = glm;
    args.insert(args.end(), extra);
    return run_tpnet(args);
  };
  expect_bad_input(with({"--tp", "0"}), "--tp: 0 is not allowed");
  expect_bad_input(with({}), "--min-tp");
  expect_bad_input(with({"--tp", "8", "--min-tp"}), "--min-tp");
  expect_bad_input(with({"--tp", "8", "--gpu-memory-utilization", "0"}),
                   "--gpu-memory-utilization");
  expect_bad_input(with({"--tp", "8", "--gpu-memory-utilization", "1.5"}), "outside (0, 1]");
  expect_bad_input(with({"--tp", "8", "--node-memory", "0"}), "--node-memory");
  expect_bad_input(with({"--tp", "8", "--node-memory", "lots"}), "--node-memory");
  expect_bad_input(with({"--tp", "8", "--kv-cache-dtype", "fp4"}), "--kv-cache-dtype: 'fp4'");
  expect_bad_input(with({"--tp", "8", "--max-model-len", "0"}), "--max-model-len");
  expect_bad_input(with({"--tp", "8", "--max-num-seqs", "0"}), "--max-num-seqs");
  expect_bad_input(with({"--tp", "8", "--nccl-channels", "0"}), "--nccl-channels");
  expect_bad_input(with({"--tp", "8", "--nccl-buffsize", "0"}), "--nccl-buffsize");
  expect_bad_input(with({"--tp", "8", "--activation-factor", "0"}), "--activation-factor");
  expect_bad_input(with({"--tp", "8", "--engram-tables", "ram"}), "--engram-tables: 'ram'");
  expect_bad_input(with({"--tp", "8", "--autotune-spike", "lots"}), "--autotune-spike");
  expect_bad_input(with({"--tp", "8", "--autotune-spike", "-1GB"}), "--autotune-spike");
}

TEST_CASE(
    "tpnet memory reproduces the DeepSeek-V4.1-Flash report's memory table: TP8-300K with Engram "
    "in host memory, TP8-1M and TP4 with it on disk",
    "[cli][memory][golden]") {
  const std::vector<std::string> deployment{
      "memory",         "--model", "deepseek-v4.1-flash", "--nccl-tuned", "--chunk",  "8192",
      "--max-num-seqs", "8",       "--cuda-graph-memory", "1.5GB",        "--format", "json"};
  auto run = [&](std::initializer_list<std::string> extra) {
    std::vector<std::string> args = deployment;
    args.insert(args.end(), extra);
    const CliResult r = run_tpnet(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return json_of(r);
  };
  const YAML::Node host =
      run({"--tp", "8", "--gpu-memory-utilization", "0.80", "--max-model-len", "300k"});
  CHECK(host["engram_tables"].as<std::string>() == "host");
  CHECK_THAT(host["gpu_weights_bytes"].as<double>(), WithinRel(49.55e9, 0.05));
  CHECK_THAT(host["engram_host_bytes"].as<double>(), WithinRel(23.60e9, 0.05));
  CHECK(host["engram_host_counted"].as<bool>());
  CHECK_THAT(host["kv_cache_bytes"].as<double>(), WithinRel(8.7e9, 0.20));
  CHECK(host["fits"].as<bool>());
  const YAML::Node disk = run({"--tp", "8", "--gpu-memory-utilization", "0.75", "--max-model-len",
                               "1M", "--engram-tables", "disk", "--autotune-spike", "10GB"});
  CHECK_THAT(disk["gpu_weights_bytes"].as<double>(), WithinRel(38e9, 0.05));
  CHECK(disk["engram_counted_bytes"].as<double>() == 0.0);
  CHECK(disk["autotune_spike_bytes"].as<double>() == 10e9);
  CHECK_THAT(disk["kv_cache_bytes"].as<double>(), WithinRel(30e9, 0.20));
  CHECK(disk["fits"].as<bool>());
  const YAML::Node tp4 = run({"--tp", "4", "--gpu-memory-utilization", "0.90", "--max-model-len",
                              "300k", "--engram-tables", "disk", "--autotune-spike", "10GB"});
  CHECK(tp4["fits"].as<bool>());
  const YAML::Node min = run({"--min-tp", "--gpu-memory-utilization", "0.90", "--max-model-len",
                              "300k", "--engram-tables", "disk", "--autotune-spike", "10GB"});
  CHECK(min["min_tp"].as<int>() == 4);
  CHECK(min["tried"][0]["limit"].as<std::string>() == "weights");
  CHECK(min["tried"][1]["limit"].as<std::string>() == "weights");
}

TEST_CASE(
    "tpnet memory names the NCCL settings to use when NCCL's buffers take a fifth of the "
    "budget",
    "[cli][memory]") {
  const YAML::Node tp8 =
      json_of(run_tpnet({"memory", "--model", "glm-5.3", "--tp", "8", "--format", "json"}));
  // 37 GB of 108.9 GB with NCCL's own settings: the node's tuned pair frees 26 GB.
  REQUIRE(tp8["nccl_bytes"].as<double>() >= 0.2 * tp8["budget_bytes"].as<double>());
  const auto advice = tp8["nccl_advice"].as<std::string>();
  CHECK_THAT(advice, ContainsSubstring("NCCL_MAX_NCHANNELS=8 and NCCL_BUFFSIZE=1048576 cut them "
                                       "to 11.00 GB and free 26.00 GB for the KV cache"));
  // 26.00 GB at GLM-5.3's KV bytes per token (docs/formulas.md s.12).
  CHECK_THAT(advice, ContainsSubstring("(259605 tokens more)"));
  // Already tuned, or a small share: nothing to advise.
  const YAML::Node tuned = json_of(
      run_tpnet({"memory", "--model", "glm-5.3", "--tp", "8", "--nccl-tuned", "--format", "json"}));
  CHECK_FALSE(tuned["nccl_advice"].IsDefined());
  const YAML::Node small =
      json_of(run_tpnet({"memory", "--model", "llama-3.1-70b", "--tp", "2", "--format", "json"}));
  CHECK(small["nccl_bytes"].as<double>() < 0.2 * small["budget_bytes"].as<double>());
  CHECK_FALSE(small["nccl_advice"].IsDefined());
}
