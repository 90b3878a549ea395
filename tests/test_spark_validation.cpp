// The validation table of docs/prediction.md s.5: every public DGX Spark run
// tpnet can price (tests/data/spark-runs/validation.csv, from RUNS.md),
// priced by `tpnet expect` with nothing measured, against what was measured.
// The table is pinned: each error as it stands on this commit (good or bad),
// so a change to the expected rates or the step model shows in the diff.

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"

using tpnet::test::json_of;
using tpnet::test::run_tpnet;

namespace {

const std::string kSource = TPNET_SOURCE_DIR;

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

struct Row {
  std::vector<std::string> cells;
  const std::vector<std::string>* header = nullptr;
  [[nodiscard]] const std::string& operator[](const std::string& key) const {
    for (std::size_t i = 0; i < header->size(); ++i) {
      if ((*header)[i] == key) return cells.at(i);
    }
    throw std::runtime_error("no column " + key);
  }
};

}  // namespace

TEST_CASE(
    "public DGX Spark runs priced with nothing measured: the errors docs/prediction.md prints",
    "[expect][golden][validation]") {
  std::ifstream in(kSource + "/tests/data/spark-runs/validation.csv");
  REQUIRE(in.good());
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (header.empty()) {
      header = split(line);
    } else {
      rows.push_back(split(line));
    }
  }
  REQUIRE(rows.size() >= 50);
  int priced = 0;
  int within_25 = 0;
  for (const auto& cells : rows) {
    const Row r{cells, &header};
    INFO(r["id"]);
    std::string model = r["model"];
    if (model.find("__") != std::string::npos) model = kSource + "/tests/data/hf/" + model;
    std::vector<std::string> args{
        "expect",           "--model",     model,       "--nodes",       r["nodes"],
        "--link",           r["link"],     "--fabric",  r["fabric"],     "--prompt",
        r["prompt"],        "--output",    r["output"], "--concurrency", r["concurrency"],
        "--kv-cache-dtype", r["kv_dtype"], "--format",  "json"};
    if (!r["precision"].empty()) args.insert(args.end(), {"--quantization", r["precision"]});
    if (r["eager"] == "yes") args.emplace_back("--enforce-eager");
    if (r["nccl_tuned"] == "yes") args.emplace_back("--nccl-tuned");
    const auto result = run_tpnet(args);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    const YAML::Node d = json_of(result);
    YAML::Node layout;
    bool found = false;
    const YAML::Node layouts = d["layouts"];
    for (std::size_t i = 0; i < layouts.size(); ++i) {
      const YAML::Node l = layouts[i];
      if (l["tp"].as<int>() == std::stoi(r["tp"]) && l["pp"].as<int>() == std::stoi(r["pp"]) &&
          l["replicas"].as<int>() == std::stoi(r["replicas"])) {
        layout = l;
        found = true;
      }
    }
    REQUIRE(found);
    const std::string& pinned = r["error_pct"];
    if (pinned == "refused" || pinned == "does_not_fit") {
      const bool refused = !layout["refusal"].as<std::string>().empty();
      CHECK(refused == (pinned == "refused"));
      if (!refused) CHECK_FALSE(layout["fits_memory"].as<bool>());
      continue;
    }
    const std::string quantity = r["quantity"];
    const double prompt = std::stod(r["prompt"]);
    const YAML::Node decode = layout["decode"][0];
    const YAML::Node ttft = layout["ttft"];
    double value = 0.0;
    if (quantity == "decode_per_request") {
      value = decode["per_request_tokens_per_s"].as<double>();
    } else if (quantity == "decode_aggregate") {
      value = decode["aggregate_tokens_per_s"].as<double>();
    } else if (quantity == "ttft_s") {
      value = ttft["ttft_s"].as<double>();
    } else {
      REQUIRE(quantity == "prefill_tokens_per_s");
      value = prompt / ttft["ttft_s"].as<double>();
    }
    const double error = (value / std::stod(r["measured"]) - 1.0) * 100.0;
    CHECK(std::fabs(error - std::stod(pinned)) < 0.1);
    ++priced;
    if (std::fabs(error) <= 25.0) ++within_25;
  }
  // How many land within 25%, as docs/prediction.md s.5 says.
  CHECK(priced == 54);
  CHECK(within_25 == 29);
}
