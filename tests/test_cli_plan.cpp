// tpnet plan end to end.

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"

using tpnet::test::expect_bad_input;
using tpnet::test::json_of;
using tpnet::test::run_tpnet;

TEST_CASE("tpnet plan --model glm-5.3 --nodes 16 recommends two TP8 instances and says why",
          "[cli][plan]") {
  const YAML::Node j = json_of(run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "16", "--speeds",
                                          "100G,200G", "--format", "json"}));
  const YAML::Node best = j["options"][0];
  CHECK(best["instances"].as<int>() == 2);
  CHECK(best["tp"].as<int>() == 8);
  CHECK(best["usable"].as<bool>());
  CHECK(j["options"][1]["tp"].as<int>() == 16);
  CHECK_THAT(j["recommendation"].as<std::string>(),
             ContainsSubstring("2 x TP8 on 1 x crs804 at 100G"));
}

TEST_CASE("tpnet plan prints a markdown table for a design review", "[cli][plan]") {
  const auto r = run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "8", "--workload", "long-docs",
                            "--format", "markdown"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("| rank | layout |"));
  CHECK_THAT(r.out, ContainsSubstring("1 x TP8"));
}

TEST_CASE("tpnet plan: bad input exits 2 with one line", "[cli][plan][bad-input]") {
  expect_bad_input(run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "0"}), "--nodes");
  expect_bad_input(
      run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "16", "--workload", "podcasts"}),
      "--workload");
  expect_bad_input(run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "16", "--switch", "crs999"}),
                   "crs999");
  expect_bad_input(run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "16", "--speeds", "100Q"}),
                   "--speeds");
}

TEST_CASE("tpnet plan --nodes 4 prices a ring and a switch side by side", "[cli][plan][fabric]") {
  const YAML::Node j = json_of(run_tpnet({"plan", "--model", "llama-3.1-70b", "--nodes", "4",
                                          "--speeds", "200G", "--format", "json"}));
  CHECK(j["reference_profile"].as<std::string>().find("dgx-spark-200g-switch") == 0);
  double ring = -1.0;
  double sw = -1.0;
  for (const auto& row : j["options"]) {
    if (row["tp"].as<int>() != 4) continue;
    const auto profile = row["fabric_profile"].as<std::string>();
    if (profile == "dgx-spark-200g-ring") {
      CHECK(row["topology"].as<std::string>() == "ring");
      CHECK(row["switches"].as<int>() == 0);
      ring = row["worst_predicted_extra_ttft_s"].as<double>();
    }
    if (profile == "dgx-spark-200g-switch") {
      CHECK(row["topology"].as<std::string>() == "switch");
      sw = row["worst_predicted_extra_ttft_s"].as<double>();
    }
  }
  CHECK(sw == 0.0);
  CHECK(ring > 0.1);
}

TEST_CASE("tpnet plan for a model that fits one node buys no fabric", "[cli][plan][fabric]") {
  for (const char* nodes : {"1", "2", "4"}) {
    CAPTURE(nodes);
    const YAML::Node j = json_of(
        run_tpnet({"plan", "--model", "qwen3.6-27b", "--nodes", nodes, "--format", "json"}));
    const YAML::Node best = j["options"][0];
    CHECK(best["tp"].as<int>() == 1);
    CHECK(best["topology"].as<std::string>() == "none");
    CHECK(best["switches"].as<int>() == 0);
    CHECK(j["recommendation"].as<std::string>().find("no fabric to buy") != std::string::npos);
  }
}

TEST_CASE("tpnet penalty refuses a direct cable's profile for eight ranks, naming --fabric",
          "[cli][fabric][bad-input]") {
  expect_bad_input(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--to", "emulated-100G",
                              "--fabric", "dgx-spark-200g-direct,dgx-spark-one-half-direct"}),
                   "--fabric");
}

TEST_CASE("tpnet plan --layouts all ranks TP, PP, EP and xPyD by expected tokens/s per dollar",
          "[cli][plan][families]") {
  const YAML::Node j = json_of(run_tpnet(
      {"plan", "--model", "minimax-m2", "--nodes", "4", "--layouts", "all", "--format", "json"}));
  CHECK(j["objective"].as<std::string>() == "tokens-per-dollar");
  bool saw_ep = false;
  bool saw_pd = false;
  for (const auto& option : j["options"]) {
    const auto family = option["family"].as<std::string>();
    saw_ep = saw_ep || family == "ep";
    saw_pd = saw_pd || family == "pd";
  }
  CHECK(saw_ep);
  CHECK(saw_pd);
  CHECK(j["options"][0]["usable"].as<bool>());
  CHECK(j["options"][0]["tokens_per_s_per_cost"].as<double>() > 0.0);
  const auto table =
      run_tpnet({"plan", "--model", "minimax-m2", "--nodes", "4", "--layouts", "all"});
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, StartsWith("Buy "));
  CHECK_THAT(table.out, ContainsSubstring("Expected from public runs on the node: TTFT"));
}

TEST_CASE("tpnet plan --layouts: an unknown kind exits 2 naming the flag",
          "[cli][plan][bad-input]") {
  expect_bad_input(
      run_tpnet({"plan", "--model", "minimax-m2", "--nodes", "4", "--layouts", "tp,dp"}),
      "--layouts");
}

TEST_CASE("tpnet compare --nodes sets the layouts side by side with their expected tokens/s",
          "[cli][compare][side-by-side]") {
  const YAML::Node j =
      json_of(run_tpnet({"compare", "--model", "minimax-m2", "--tp", "4", "--ep", "1,8", "--prompt",
                         "8k", "--nodes", "8", "--disaggregate", "1P1D", "--format", "json"}));
  REQUIRE(j["side_by_side"].size() >= 4);
  CHECK(j["side_by_side"][0]["expected_aggregate_tokens_per_s"].as<double>() > 0.0);
  CHECK(j["side_by_side"][0]["nodes_cost"].as<double>() > 0.0);
  bool replicas = false;
  for (const auto& row : j["side_by_side"])
    replicas = replicas || row["kind"].as<std::string>() == "replicas";
  CHECK(replicas);
  tpnet::test::expect_bad_input(
      run_tpnet({"compare", "--model", "minimax-m2", "--tp", "4", "--disaggregate", "2X1D"}),
      "--disaggregate");
  tpnet::test::expect_bad_input(
      run_tpnet({"compare", "--model", "minimax-m2", "--tp", "4", "--prices", "x.yaml"}),
      "--prices");
}
