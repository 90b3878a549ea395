// Every key a subcommand prints with --format json is documented in
// docs/json.md, and every key documented there is printed by some run below:
// CI pipelines read these keys, so neither side may drift.

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_runner.hpp"

using tpnet::test::CliResult;
using tpnet::test::run_tpnet;
using tpnet::test::slurp;

namespace {

const std::string kSource = TPNET_SOURCE_DIR;
std::string ex(const std::string& path) { return kSource + "/examples/" + path; }

/// Keys documented in docs/json.md: every backticked name in the first column
/// of a table row; a dotted or `[]` path (`fit.alpha_s`, `curve[].size_bytes`)
/// documents each of its parts.
std::set<std::string> documented_keys() {
  std::set<std::string> keys;
  std::istringstream in(slurp(kSource + "/docs/json.md"));
  std::string line;
  const std::regex code("`([^`]+)`");
  while (std::getline(in, line)) {
    if (line.rfind("| `", 0) != 0) continue;
    const std::string first = line.substr(1, line.find('|', 1) - 1);
    for (std::sregex_iterator it(first.begin(), first.end(), code), end; it != end; ++it) {
      const std::string path = (*it)[1];
      if (path.empty() || path[0] == '_') continue;  // unit suffixes in the rules' table
      std::string part;
      for (const char c : path + ".") {
        if (c == '.' || c == '[' || c == ']') {
          if (!part.empty()) keys.insert(part);
          part.clear();
        } else {
          part += c;
        }
      }
    }
  }
  return keys;
}

/// Maps whose keys are names from the input (a model's assumed keys, recorded
/// settings), not schema keys: their own keys are not collected, their
/// values' keys are.
bool names_are_data(const std::string& parent) {
  return parent == "assumptions" || parent == "env";
}

void collect(const YAML::Node& node, const std::string& parent, std::set<std::string>& keys) {
  if (node.IsMap()) {
    for (const auto& item : node) {
      const std::string key = item.first.as<std::string>();
      if (!names_are_data(parent)) keys.insert(key);
      collect(item.second, key, keys);
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) collect(item, parent, keys);
  }
}

struct Run {
  std::vector<std::string> args;
  int exit_code = 0;
};

/// Runs that between them print every documented key: each subcommand over
/// the examples, with the options that add keys (baselines, budgets,
/// calibration, overrides, none-fits).
std::vector<Run> runs(const std::string& tmp) {
  const std::string cal = ex("calibration/calibration_glm53_tp8_200g_synthetic.yaml");
  const std::string sweep = ex("nccl-tests/all_reduce_perf_8ranks_synthetic.txt");
  return {
      {{"bytes", "--model", "glm-5.3", "--tp", "8"}},
      {{"bytes", "--model", "glm-5.3", "--tp", "8", "--base-latency", "10us"}},
      {{"penalty", "--model", "glm-5.3", "--tp", "8", "--baseline", ex("data/glm53_tp8_200g.csv"),
        "--calibration", cal, "--max-extra-ttft", "10s", "--max-ttft-increase", "25%"}},
      {{"penalty", "--model", "glm-5.3", "--tp", "8", "--bytes-per-token", "3.57MB"}},
      {{"decode", "--model", "glm-5.3", "--tp", "8", "--spec-tokens", "4", "--calibration", cal}},
      {{"link"}},
      {{"predict",
        "--model",
        kSource + "/calibration/models/glm-5.3-shapes.yaml",
        "--tp",
        "8",
        "--links",
        "200G,emulated-100G",
        "--prompt",
        "1k,4x8k",
        "--output",
        "64",
        "--spec-tokens",
        "4",
        "--accepted-tokens",
        "2.5",
        "--long-prefill-token-threshold",
        "2048",
        "--baseline",
        ex("data/glm53_tp8_200g.csv"),
        "--timeline",
        tmp + "/timeline.csv",
        "--traffic",
        tmp + "/traffic.csv",
        "--requests",
        tmp + "/requests.csv"}},
      {{"link", "--pcie-gen", "5", "--lanes", "4"}},
      {{"link", "--allreduce-size", "61440", "--tp", "8"}},
      {{"models"}},
      {{"models", "show", "glm-5.3"}},
      {{"models", "show", "qwen3-next-80b-a3b"}},
      {{"compare", "--model", "glm-5.3", "--tp", "8,16", "--prompt", "8k", "--baseline-tp", "8",
        "--baseline-ttft", "6.36s", "--baseline-prompt", "8k", "--calibration", cal,
        "--max-ttft-increase", "25%"},
       1},
      {{"check", ex("glm53-study-plan.yaml")}},
      {{"check", ex("glm53-tp16-plan.yaml")}, 1},
      {{"switch", "--nodes", "16", "--speed", "100G"}},
      {{"switch", "--nodes", "40", "--speed", "100G", "--switch", "crs804"}},
      {{"switch", "--nodes", "3", "--speed", "100G"}},
      {{"memory", "--model", "glm-5.3", "--tp", "8"}},
      {{"memory", "--model", "glm-5.3", "--min-tp"}},
      {{"memory", "--model", "glm-5.3", "--min-tp", "--node-memory", "20GB"}},
      {{"memory", "--model", "deepseek-v4.1-flash", "--tp", "8", "--nccl-tuned"}},
      {{"memory", "--model", "glm-5.3", "--tp", "4", "--pp", "2"}},
      {{"memory", "--model", "llama-3.1-70b", "--tp", "16"}},
      {{"capacity", "--sweep", ex("data/qwen36_27b_sweep.csv")}},
      {{"capacity", "--sweep", "TP2=" + ex("vllm-bench/qwen36-tp2"), "--sweep",
        "TP4=" + ex("vllm-bench/qwen36-tp4")}},
      {{"capacity", "--sweep",
        std::string(TPNET_SOURCE_DIR) +
            "/tests/data/vllm-bench/l40s-4x-llama3.2-3b-llmd-rates-jsonlines.json",
        "--config-key", "deployment", "--tp", "1"}},
      {{"plan", "--model", "glm-5.3", "--nodes", "16", "--baseline-tp", "8", "--baseline-ttft",
        "6.36s", "--baseline-prompt", "8k"}},
      {{"doctor", "--nccl-tests", sweep}},
      {{"calibration", "--nccl-tests", sweep, "--gemm",
        ex("calibration/gemm_glm53_tp8_synthetic.csv"), "--counters",
        ex("traffic/counters_synthetic.csv"), "--model", "glm-5.3", "--tp", "8", "--prompt-tokens",
        "8k", "--out", tmp + "/cal.yaml"}},
      {{"traffic", "--samples", ex("traffic/counters_synthetic.csv"), "--requests",
        ex("traffic/requests_synthetic.csv"), "--series", "--svg", tmp + "/traffic.svg"}},
  };
}

}  // namespace

TEST_CASE(
    "every JSON key printed is documented in docs/json.md, and every documented key is "
    "printed",
    "[cli][json]") {
  const auto tmp = std::filesystem::temp_directory_path() / "tpnet_json_keys";
  std::filesystem::create_directories(tmp);
  std::set<std::string> printed;
  for (Run run : runs(tmp.string())) {
    run.args.insert(run.args.end(), {"--format", "json"});
    std::string command;
    for (const auto& a : run.args) command += a + " ";
    INFO(command);
    const CliResult r = run_tpnet(run.args);
    INFO(r.err);
    REQUIRE(r.exit_code == run.exit_code);
    collect(YAML::Load(r.out), "", printed);
  }
  std::filesystem::remove_all(tmp);

  const std::set<std::string> documented = documented_keys();
  std::vector<std::string> undocumented;
  for (const auto& key : printed) {
    if (documented.count(key) == 0) undocumented.push_back(key);
  }
  std::vector<std::string> never_printed;
  for (const auto& key : documented) {
    if (printed.count(key) == 0) never_printed.push_back(key);
  }
  std::string both;
  for (const auto& k : undocumented) both += "printed but not documented: " + k + "\n";
  for (const auto& k : never_printed) both += "documented but never printed: " + k + "\n";
  INFO(both);
  CHECK(undocumented.empty());
  CHECK(never_printed.empty());
}
