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
  expect_bad_input(run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "1"}), "--nodes");
  expect_bad_input(
      run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "16", "--workload", "podcasts"}),
      "--workload");
  expect_bad_input(run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "16", "--switch", "crs999"}),
                   "crs999");
  expect_bad_input(run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "16", "--speeds", "100Q"}),
                   "--speeds");
}
