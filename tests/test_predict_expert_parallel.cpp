// predict with expert parallelism and data-parallel attention
// (docs/prediction.md s.7, docs/formulas.md s.31.2): the requests dealt to
// the DP ranks round robin, each rank's steps priced by the EP step, and the
// refusals naming vLLM's flags.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/usecase/predict.hpp"

using Catch::Matchers::WithinRel;
using namespace tpnet;
using tpnet::test::expect_bad_input;
using tpnet::test::json_of;
using tpnet::test::run_tpnet;

namespace {

/// gpt-oss-120b (128 experts, 4 a token) at TP1 on a 200G switch, `requests`
/// 1k prompts at once, given compute.
PredictRequest gpt_oss(int requests, int data_parallel) {
  PredictRequest r;
  r.model = builtin_model("gpt-oss-120b");
  r.engine.tensor_parallel_size = 1;
  const Link link = parse_link("200G", InputLocation::for_key("link"));
  r.links.push_back(ProfiledLink{link, nominal_fabric(link, CollectiveSettings{})});
  PredictScenario s;
  s.name = "1k";
  for (int i = 0; i < requests; ++i) s.requests.push_back(ScheduledRequest{0.0, 1024, 16});
  r.scenarios.push_back(s);
  r.compute =
      GivenCompute{PrefillComputeModel{Seconds(0.02), 1e-14, 1e-14, std::nullopt}, "given", {}};
  r.memory_bandwidth = BitRate::gigabytes_per_second(273);
  r.data_parallel_size = data_parallel;
  r.enable_expert_parallel = data_parallel > 1;
  return r;
}

bool says(const std::vector<std::string>& lines, const std::string& what) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(what) != std::string::npos; });
}

}  // namespace

TEST_CASE(
    "three requests over two DP ranks: the first and third share rank 0, the second runs alone",
    "[predict][expert-parallel]") {
  const PredictReport r = run_predict(gpt_oss(3, 2));
  const PredictLink& l = r.scenarios.front().links.front();
  REQUIRE(l.first_token.size() == 3);
  CHECK(l.first_token[0].value() == l.first_token[2].value());
  CHECK(l.first_token[1].value() < l.first_token[0].value());
  CHECK(l.last_first_token.value() == l.first_token[0].value());
  // At TP1 every byte on the fabric is the all-to-all.
  REQUIRE(l.alltoall_share.has_value());
  CHECK_THAT(*l.alltoall_share, WithinRel(1.0, 1e-12));
  CHECK(l.sent_per_node.count() > 0.0);
  CHECK(says(r.notes, "not validated on Spark"));
  CHECK(says(r.notes, "round robin"));
  CHECK(r.decode_model.data_parallel == 2);
}

TEST_CASE("a request alone costs more on an EP layout than on one node: the all-to-alls",
          "[predict][expert-parallel]") {
  const PredictLink one = run_predict(gpt_oss(1, 1)).scenarios.front().links.front();
  const PredictLink ep = run_predict(gpt_oss(1, 4)).scenarios.front().links.front();
  CHECK(!one.alltoall_share.has_value());
  CHECK(one.sent_per_node.count() == 0.0);
  CHECK(ep.last_first_token.value() > one.last_first_token.value());
  // Decode reads only the experts a rank holds: faster than one node's.
  CHECK(ep.decode_tokens_per_s > 0.0);
}

TEST_CASE("predict refuses DP without EP, EP on a dense model and a ring EP cannot use",
          "[predict][expert-parallel][bad-input]") {
  PredictRequest no_ep = gpt_oss(2, 2);
  no_ep.enable_expert_parallel = false;
  CHECK_THROWS_WITH(run_predict(no_ep), ContainsSubstring("shards the experts by TP"));
  PredictRequest dense = gpt_oss(2, 2);
  dense.model = builtin_model("llama-3.1-8b");
  CHECK_THROWS_WITH(run_predict(dense), ContainsSubstring("is dense"));
  PredictRequest ring = gpt_oss(4, 4);
  ring.links.front().fabric->topology = FabricTopology::ring;
  CHECK_THROWS_WITH(run_predict(ring), ContainsSubstring("every pair"));

  const std::vector<std::string> base{"predict", "--model", "gpt-oss-120b", "--tp", "1",
                                      "--links", "200G",    "--prompt",     "1k"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_tpnet(args);
  };
  expect_bad_input(with({"--data-parallel-size", "2"}), "--data-parallel-size");
  expect_bad_input(run_tpnet({"predict", "--model", "llama-3.1-8b", "--tp", "1", "--links", "200G",
                              "--data-parallel-size", "2", "--enable-expert-parallel"}),
                   "--enable-expert-parallel");
}

TEST_CASE("tpnet predict runs an EP layout by vLLM's flags, or read from --vllm-args",
          "[predict][expert-parallel][cli]") {
  for (const std::vector<std::string>& layout :
       {std::vector<std::string>{"--data-parallel-size", "2", "--enable-expert-parallel"},
        std::vector<std::string>{"--vllm-args",
                                 "vllm serve --data-parallel-size 2 --enable-expert-parallel"}}) {
    std::vector<std::string> args{"predict", "--model",  "gpt-oss-120b", "--tp", "1",
                                  "--links", "200G",     "--prompt",     "2x1k", "--output",
                                  "16",      "--format", "json"};
    args.insert(args.end(), layout.begin(), layout.end());
    const auto r = run_tpnet(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find("--data-parallel-size 2 (tpnet sizes one instance") == std::string::npos);
    CHECK(r.err.find("is not used by tpnet predict") == std::string::npos);
    const YAML::Node d = json_of(r);
    CHECK(d["data_parallel_size"].as<int>() == 2);
    CHECK(d["expert_parallel_size"].as<int>() == 2);
    CHECK(d["all2all_backend"].as<std::string>() == "allgather_reducescatter");
    const YAML::Node link = d["scenarios"][0]["links"][0];
    CHECK(link["alltoall_share_pct"].as<double>() == 100.0);
    const auto firsts = link["first_token_s"];
    CHECK(firsts[0].as<double>() == firsts[1].as<double>());
  }
  // Plain TP keeps its keys.
  const auto tp = run_tpnet({"predict", "--model", "gpt-oss-120b", "--tp", "1", "--links", "200G",
                             "--prompt", "1k", "--format", "json"});
  REQUIRE(tp.exit_code == 0);
  CHECK(!json_of(tp)["data_parallel_size"].IsDefined());
}
