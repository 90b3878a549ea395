// The NCCL latency model end to end: decode, bytes and link say which
// algorithm and protocol priced each all-reduce (docs/formulas.md s.20;
// the numbers are worked by hand in test_nccl_model.cpp).

#include <yaml-cpp/yaml.h>

#include <string>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"

namespace {
/// Text output with its wrapped lines joined again (a line break and the
/// hanging indent become one space), for checks of a phrase.
[[maybe_unused]] std::string unwrapped(const std::string& text) {
  std::string out;
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (text[at] == '\n' && at + 1 < text.size() && text[at + 1] == ' ') {
      while (at + 1 < text.size() && text[at + 1] == ' ') ++at;
      out += ' ';
    } else {
      out += text[at];
    }
  }
  return out;
}
}  // namespace

using tpnet::test::expect_bad_input;
using tpnet::test::json_of;
using tpnet::test::run_tpnet;

namespace {

double get(const YAML::Node& j, const char* key) { return j[key].as<double>(); }
std::string str(const YAML::Node& j, const char* key) { return j[key].as<std::string>(); }

}  // namespace

TEST_CASE("tpnet decode prices GLM-5.3 TP8 all-reduces as ring/LL and names tree/LL unpinned",
          "[cli][nccl][golden]") {
  const YAML::Node j = json_of(run_tpnet(
      {"decode", "--model", "glm-5.3", "--tp", "8", "--spec-tokens", "4", "--format", "json"}));
  CHECK(str(j, "latency_model") == "nccl");
  CHECK(str(j, "nccl_algorithm") == "ring");
  CHECK(str(j, "nccl_protocol") == "LL");
  CHECK_THAT(get(j, "allreduce_latency_s"), WithinRel(76.6e-6, 1e-9));  // 6.6 + 14 x 5.0
  CHECK_THAT(get(j, "nccl_time_s"), WithinRel(85.2016e-6, 1e-9));
  CHECK(str(j, "nccl_unpinned_algorithm") == "tree");
  CHECK(str(j, "nccl_unpinned_protocol") == "LL");
  CHECK_THAT(get(j, "nccl_unpinned_latency_s"), WithinRel(36.8e-6, 1e-9));
  // Logits all-gather, 1,292,800 B: ring/LL128, 14 + 7 x 8.5 = 73.5 us.
  CHECK_THAT(get(j, "gather_latency_s"), WithinRel(73.5e-6, 1e-9));
  // 157 x 76.6 + 73.5 = 12,099.7 us.
  CHECK_THAT(get(j, "latency_per_forward_s"), WithinRel(12099.7e-6, 1e-9));
  CHECK(str(j, "regime") == "latency-bound");
  REQUIRE(j["nccl_candidates"].size() == 6);
  int chosen = 0;
  for (const auto& c : j["nccl_candidates"]) {
    const bool tree = c["algorithm"].as<std::string>() == "tree";
    CHECK(c["enabled"].as<bool>() == !tree);  // only --algorithm ring is allowed
    if (c["chosen"].as<bool>()) ++chosen;
  }
  CHECK(chosen == 1);
  CHECK(str(j["from"], "latency_model") == "nccl");
  CHECK(str(j["from"], "nccl_algorithms") == "engine");
  CHECK(get(j["from"], "nccl_channels") == 2);
  // The study's background numbers do not move.
  CHECK(get(j, "allreduce_sent_bytes") == 107520);
  CHECK_THAT(get(j, "max_added_per_forward_s"), WithinRel(0.0007204736, 1e-9));

  const auto table = run_tpnet({"decode", "--model", "glm-5.3", "--tp", "8", "--spec-tokens", "4"});
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, ContainsSubstring("ring/LL (NCCL model)"));
  CHECK_THAT(table.out, ContainsSubstring("NCCL left alone would pick"));
  CHECK_THAT(table.out, ContainsSubstring("tree/LL: 36.8 us latency, 65.8 us"));
}

TEST_CASE("tpnet decode --nccl-algo auto lets the tuner take tree/LL", "[cli][nccl]") {
  const YAML::Node j =
      json_of(run_tpnet({"decode", "--model", "glm-5.3", "--tp", "8", "--spec-tokens", "4",
                         "--nccl-algo", "auto", "--format", "json"}));
  CHECK(str(j, "nccl_algorithm") == "tree");
  CHECK(str(j, "nccl_protocol") == "LL");
  CHECK_THAT(get(j, "allreduce_latency_s"), WithinRel(36.8e-6, 1e-9));
  CHECK(str(j["from"], "nccl_algorithms") == "tree,ring");
  const auto table = run_tpnet(
      {"decode", "--model", "glm-5.3", "--tp", "8", "--nccl-algo", "auto", "--spec-tokens", "4"});
  CHECK_THAT(table.out, ContainsSubstring("tree/LL, as assumed"));
}

TEST_CASE("tpnet decode with --base-latency/--step-latency says user override", "[cli][nccl]") {
  const YAML::Node j = json_of(
      run_tpnet({"decode", "--model", "glm-5.3", "--tp", "8", "--spec-tokens", "4",
                 "--base-latency", "6.6us", "--step-latency", "2.7us", "--format", "json"}));
  CHECK(str(j, "latency_model") == "user override");
  CHECK_FALSE(j["nccl_algorithm"].IsDefined());
  CHECK_THAT(get(j, "allreduce_latency_s"), WithinRel(44.4e-6, 1e-9));  // 6.6 + 14 x 2.7
  // 157 x 44.4 + (6.6 + 7 x 2.7) = 6,996.3 us: the former default.
  CHECK_THAT(get(j, "latency_per_forward_s"), WithinRel(6996.3e-6, 1e-9));
  CHECK(str(j["from"], "latency_model") == "user override");
  CHECK_THAT(get(j["from"], "base_latency_s"), WithinRel(6.6e-6, 1e-9));
  // What NCCL would pick is still reported.
  CHECK(str(j, "nccl_unpinned_algorithm") == "tree");
  const auto table =
      run_tpnet({"decode", "--model", "glm-5.3", "--tp", "8", "--step-latency", "3us"});
  CHECK_THAT(unwrapped(table.out),
             ContainsSubstring("latency: user override, 6.6 us + 3 us per step"));
}

TEST_CASE("tpnet bytes prices the GLM-5.3 TP8 prefill chunk as ring/Simple",
          "[cli][nccl][golden]") {
  const YAML::Node j =
      json_of(run_tpnet({"bytes", "--model", "glm-5.3", "--tp", "8", "--format", "json"}));
  const YAML::Node a = j["allreduce"];
  CHECK(str(a, "latency_model") == "nccl");
  CHECK(str(a, "nccl_algorithm") == "ring");
  CHECK(str(a, "nccl_protocol") == "Simple");
  CHECK_THAT(get(a, "latency_s"), WithinRel(286.16e-6, 1e-9));  // (8.4 + 14 x 14) x 1.4
  CHECK_THAT(get(a, "nccl_time_s"), WithinRel(3809.37536e-6, 1e-9));
  CHECK(str(a, "regime") == "bandwidth-bound");
  CHECK(j["per_token_bytes"].as<double>() == 3376128.0);

  const YAML::Node ll128 = json_of(run_tpnet(
      {"bytes", "--model", "glm-5.3", "--tp", "8", "--nccl-proto", "ll128", "--format", "json"}));
  CHECK(str(ll128["allreduce"], "nccl_protocol") == "LL128");
  CHECK_THAT(get(ll128["allreduce"], "latency_s"), WithinRel(133e-6, 1e-9));
  CHECK(str(ll128["link"], "nccl_protocols") == "LL128");
}

TEST_CASE("tpnet link --allreduce-size shows NCCL's pick and every candidate", "[cli][nccl]") {
  const YAML::Node j =
      json_of(run_tpnet({"link", "--allreduce-size", "61440B", "--tp", "8", "--format", "json"}));
  CHECK(str(j, "nccl_algorithm") == "tree");
  CHECK(str(j, "nccl_protocol") == "LL");
  CHECK_THAT(get(j, "latency_s"), WithinRel(36.8e-6, 1e-9));
  CHECK_THAT(get(j, "time_s"), WithinRel(65.80273292e-6, 1e-8));
  CHECK(j["candidates"].size() == 6);
  CHECK(str(j, "source") == "NCCL 2.28.3, src/graph/tuning.cc");

  const YAML::Node two =
      json_of(run_tpnet({"link", "--allreduce-size", "1MB", "--tp", "2", "--format", "json"}));
  CHECK(str(two, "nccl_algorithm") == "ring");
  CHECK(str(two, "nccl_protocol") == "LL128");
  CHECK_THAT(get(two, "time_s"), WithinRel((31.0 + 1e6 / 23000.0) * 1e-6, 1e-9));

  const YAML::Node presets = json_of(run_tpnet({"link", "--format", "json"}));
  CHECK_THAT(str(presets, "latency_model"), ContainsSubstring("NCCL 2.28.3"));
}

TEST_CASE("bad NCCL latency flags are refused naming the flag", "[cli][nccl][bad-input]") {
  expect_bad_input(
      run_tpnet({"decode", "--model", "glm-5.3", "--tp", "8", "--nccl-proto", "LL256"}),
      "--nccl-proto");
  expect_bad_input(
      run_tpnet({"bytes", "--model", "glm-5.3", "--tp", "8", "--nccl-algo", "collnet"}),
      "--nccl-algo");
  expect_bad_input(
      run_tpnet({"bytes", "--model", "glm-5.3", "--tp", "8", "--nccl-proto", "^LL,LL128,Simple"}),
      "--nccl-proto");
  expect_bad_input(run_tpnet({"decode", "--model", "glm-5.3", "--tp", "8", "--nccl-proto", "LL",
                              "--base-latency", "5us"}),
                   "excludes");
  expect_bad_input(run_tpnet({"link", "--allreduce-size", "1MB", "--tp", "8", "--nodes", "3"}),
                   "--nodes");
  expect_bad_input(run_tpnet({"link", "--allreduce-size", "0"}), "--allreduce-size");
  expect_bad_input(run_tpnet({"link", "--allreduce-size", "1MB", "--tp", "0"}), "--tp");
  expect_bad_input(run_tpnet({"link", "--allreduce-size", "1MB", "--nccl-channels", "0"}),
                   "--nccl-channels");
  expect_bad_input(run_tpnet({"link", "--allreduce-size", "1MB", "--pcie-gen", "5"}),
                   "--allreduce-size");
}
