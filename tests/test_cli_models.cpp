// `tpnet models` and `tpnet models show`, and --model taking a Hugging Face
// config.json or its folder, end to end.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"

using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::json_of;
using tpnet::test::run_tpnet;
using tpnet::test::write_temp;

namespace {

const std::string kHf = std::string(TPNET_SOURCE_DIR) + "/examples/hf";

}  // namespace

TEST_CASE(
    "the model flag takes a config.json: Llama-3.1-70B at TP8 sends 161 x 8192 x 2 x 1.75 bytes",
    "[cli][hf][golden]") {
  const YAML::Node j = json_of(run_tpnet(
      {"bytes", "--model", kHf + "/llama-3.1-70b/config.json", "--tp", "8", "--format", "json"}));
  CHECK(j["per_token_bytes"].as<double>() == (2 * 80 + 1) * 8192 * 2 * 1.75);
  CHECK(j["model"].as<std::string>() == "llama-3.1-70b");
  SECTION("and its folder") {
    const YAML::Node f = json_of(
        run_tpnet({"bytes", "--model", kHf + "/llama-3.1-70b", "--tp", "8", "--format", "json"}));
    CHECK(f["per_token_bytes"].as<double>() == 4616192.0);
  }
}

TEST_CASE("bad config.json files exit 2 with one line naming the file and key",
          "[cli][hf][bad-input]") {
  const auto dir = std::filesystem::temp_directory_path();
  const auto empty = write_temp("tpnet_hf_empty.json", "");
  expect_bad_input(run_tpnet({"bytes", "--model", empty.string(), "--tp", "8"}),
                   empty.string() + ": is empty");
  const auto cut = write_temp("tpnet_hf_cut.json", "{\n  \"hidden_size\": 8192,\n  \"num_hid");
  expect_bad_input(run_tpnet({"bytes", "--model", cut.string(), "--tp", "8"}), "is not valid JSON");
  const auto text = write_temp("tpnet_hf_text.json", "hidden_size: 8192\n");
  expect_bad_input(run_tpnet({"bytes", "--model", text.string(), "--tp", "8"}),
                   text.string() + ":1: is not JSON");
  const auto no_hidden = write_temp("tpnet_hf_nohidden.json",
                                    "{\"architectures\": [\"MysteryForCausalLM\"],\n"
                                    " \"num_hidden_layers\": 4}\n");
  expect_bad_input(run_tpnet({"bytes", "--model", no_hidden.string(), "--tp", "8"}),
                   no_hidden.string() + ":1: hidden_size: required key is missing");
  const auto quoted = write_temp("tpnet_hf_quoted.json",
                                 "{\n\"hidden_size\": \"8192\",\n\"num_hidden_layers\": 4}\n");
  expect_bad_input(run_tpnet({"models", "show", quoted.string()}),
                   quoted.string() + ":2: hidden_size: expected a number");
  const auto negative =
      write_temp("tpnet_hf_negative.json", "{\"hidden_size\": 64,\n\"num_hidden_layers\": -4}\n");
  expect_bad_input(run_tpnet({"bytes", "--model", negative.string(), "--tp", "8"}),
                   ":2: num_hidden_layers: -4 is out of range");
  expect_bad_input(
      run_tpnet({"bytes", "--model", (dir / "tpnet_no_such.json").string(), "--tp", "8"}),
      "tpnet_no_such.json: no such file");
  for (const auto& p : {empty, cut, text, no_hidden, quoted, negative}) std::filesystem::remove(p);
}

TEST_CASE("tpnet models show prints shapes, the estimate, weights per node and bytes per token",
          "[cli]") {
  const YAML::Node j = json_of(run_tpnet({"models", "show", "llama-3.1-70b", "--format", "json"}));
  CHECK(j["name"].as<std::string>() == "llama-3.1-70b");
  CHECK(j["hidden_size"].as<int>() == 8192);
  CHECK(j["head_dim"].as<int>() == 128);
  CHECK(j["intermediate_size"].as<int>() == 28672);
  CHECK(j["moe"]["present"].as<bool>() == false);
  CHECK(j["total_params"].as<double>() == 70.6e9);
  const YAML::Node e = j["param_estimate"];
  CHECK(e["complete"].as<bool>());
  CHECK(e["missing_keys"].size() == 0);
  CHECK_THAT(e["total_params"].as<double>(), WithinRel(70.55e9, 0.001));
  CHECK_THAT(e["total_vs_stated_pct"].as<double>(), WithinAbs(-0.07, 0.01));
  CHECK(e["lm_head_params"].as<double>() == 128256.0 * 8192);
  const YAML::Node per_tp = j["per_tp"];
  REQUIRE(per_tp.size() == 5);
  const int sizes[] = {1, 2, 4, 8, 16};
  for (std::size_t i = 0; i < 5; ++i) {
    INFO(sizes[i]);
    CHECK(per_tp[i]["tp"].as<int>() == sizes[i]);
    // total x bits / 8 / N while TP does not exceed the 8 KV heads (tpnet memory's count)
    if (sizes[i] <= 8) {
      CHECK(per_tp[i]["weights_per_node_bytes"].as<double>() == 70.6e9 * 16 / 8 / sizes[i]);
    }
  }
  // TP16: each rank holds one of the 8 KV heads' K and V projections whole.
  const double kv = 80.0 * 2 * 8192 * 128;  // one head's K and V over 80 layers
  CHECK_THAT(per_tp[4]["weights_per_node_bytes"].as<double>(),
             WithinRel(((70.6e9 - 8 * kv) / 16 + kv) * 2, 1e-12));
  CHECK(per_tp[0]["per_token_bytes"].as<double>() == 0.0);  // TP1 sends nothing
  CHECK(per_tp[3]["per_token_bytes"].as<double>() == 4616192.0);
  CHECK(j["assumptions"].IsMap());
}

TEST_CASE("tpnet models show names a model's assumptions and a missing estimate", "[cli]") {
  // A model file that states totals, not the attention or expert shapes (SYNTHETIC).
  const std::string totals_only =
      std::string(TPNET_SOURCE_DIR) + "/tests/data/models/totals-only.yaml";
  const YAML::Node j = json_of(run_tpnet({"models", "show", totals_only, "--format", "json"}));
  CHECK_FALSE(j["param_estimate"]["complete"].as<bool>());
  CHECK(j["param_estimate"]["missing_keys"][0].as<std::string>() == "mla");
  CHECK(j["param_estimate"]["missing_keys"][1].as<std::string>() == "moe.expert_intermediate_size");
  CHECK(j["assumptions"]["vocab_size"].IsDefined());
  const CliResult table = run_tpnet({"models", "show", totals_only});
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, ContainsSubstring("needs mla, moe.expert_intermediate_size"));
  CHECK_THAT(table.out, ContainsSubstring("assumed: vocab_size"));
}

TEST_CASE("the built-in GLM-5.3 states every shape: its estimate matches the stated counts",
          "[cli]") {
  const YAML::Node j = json_of(run_tpnet({"models", "show", "glm-5.3", "--format", "json"}));
  CHECK(j["param_estimate"]["complete"].as<bool>());
  CHECK(j["total_params"].as<double>() == 753e9);
  CHECK(std::abs(j["param_estimate"]["total_vs_stated_pct"].as<double>()) < 2.0);
  CHECK(j["assumptions"]["vocab_size"].as<std::string>().find("docs/background.md") !=
        std::string::npos);
  CHECK(j["per_tp"][3]["per_token_bytes"].as<double>() == 3376128.0);
}

TEST_CASE("tpnet models: predict can price every built-in model", "[cli]") {
  // deepseek-v4.1-flash once answered "needs mla": every built-in now states
  // its layer plan, the study models' assumed shapes listed.
  const YAML::Node j = json_of(run_tpnet({"models", "--format", "json"}));
  int models = 0;
  for (const auto& m : j["models"]) {
    INFO(m["name"].as<std::string>());
    ++models;
    CHECK(m["predict"].as<std::string>() == "yes");
    CHECK(m["predict_missing"].as<std::string>().empty());
  }
  CHECK(models >= 17);
  const CliResult table = run_tpnet({"models"});
  CHECK(table.out.find("needs ") == std::string::npos);
  // A model file that lacks shapes says which (SYNTHETIC).
  const YAML::Node one = json_of(run_tpnet(
      {"models", "show", std::string(TPNET_SOURCE_DIR) + "/tests/data/models/totals-only.yaml",
       "--format", "json"}));
  CHECK_THAT(one["param_estimate"]["missing_keys"][0].as<std::string>(), ContainsSubstring("mla"));
}

TEST_CASE("tpnet models show takes a config.json folder and prints the estimate as the total",
          "[cli][hf]") {
  const YAML::Node j =
      json_of(run_tpnet({"models", "show", kHf + "/deepseek-v3", "--format", "json"}));
  CHECK(j["name"].as<std::string>() == "deepseek-v3");
  CHECK(j["mla"]["kv_lora_rank"].as<int>() == 512);
  CHECK(j["mtp_layers"].as<int>() == 1);
  CHECK(j["bits_per_weight"].as<double>() == 8.0);
  // config.json states no parameter count: the total is the estimate, not
  // compared with itself.
  CHECK_FALSE(j["param_estimate"]["total_vs_stated_pct"]);
  CHECK_FALSE(j["param_estimate"]["active_vs_stated_pct"]);
  CHECK(j["param_estimate"]["total_params"].as<double>() == j["total_params"].as<double>());
  CHECK_THAT(j["total_params"].as<double>(), WithinRel(671e9, 0.005));
  const CliResult table = run_tpnet({"models", "show", kHf + "/deepseek-v3"});
  CHECK_THAT(table.out, ContainsSubstring("total parameters (estimated)"));
  CHECK_THAT(table.out, !ContainsSubstring("total parameters (stated)"));
  CHECK_THAT(table.out, ContainsSubstring("(nothing stated to compare)"));
  CHECK_THAT(table.out, !ContainsSubstring("+0.00%"));
}

TEST_CASE("tpnet models show renders in every format and the table shows the difference", "[cli]") {
  for (const char* format : {"table", "json", "csv", "markdown"}) {
    const CliResult r = run_tpnet({"models", "show", "deepseek-v3", "--format", format});
    INFO(format << "\n" << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("nan") == std::string::npos);
    CHECK(r.out.find("inf") == std::string::npos);
  }
  const CliResult table = run_tpnet({"models", "show", "deepseek-v3"});
  CHECK_THAT(table.out, ContainsSubstring("671.03 B (stated 671.00 B, +0.00%)"));
  CHECK_THAT(table.out, ContainsSubstring("weights per node"));
  const CliResult csv = run_tpnet({"models", "show", "deepseek-v3", "--format", "csv"});
  CHECK(csv.out.rfind("name,tp,weights_per_node_bytes,per_token_bytes,heads_divide\n", 0) == 0);
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 6);
}

TEST_CASE("tpnet models show: a model that does not exist, or none, is bad input",
          "[cli][bad-input]") {
  expect_bad_input(run_tpnet({"models", "show", "glm-53"}), "did you mean glm-5.3");
  expect_bad_input(run_tpnet({"models", "show"}), "model is required");
  expect_bad_input(run_tpnet({"models", "show", "glm-5.3", "extra"}), "extra");
}

TEST_CASE("tpnet models still lists every built-in with its old keys", "[cli]") {
  const YAML::Node j = json_of(run_tpnet({"models", "--format", "json"}));
  std::vector<std::string> names;
  for (const auto& m : j["models"]) {
    names.push_back(m["name"].as<std::string>());
    for (const char* key : {"hidden_size", "num_layers", "vocab_size", "num_attention_heads",
                            "attention", "total_params", "active_params", "bits_per_weight",
                            "description", "source", "assumed_values", "assumed_keys"}) {
      CHECK(m[key].IsDefined());
    }
  }
  for (const char* want : {"qwen3-235b-a22b", "qwen3-next-80b-a3b", "deepseek-v3.2-exp", "glm-4.5",
                           "glm-4.5-air", "gpt-oss-120b", "kimi-k2", "minimax-m2"}) {
    CHECK(std::find(names.begin(), names.end(), want) != names.end());
  }
}
