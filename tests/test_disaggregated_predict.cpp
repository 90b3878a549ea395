// xPyD through predict and expect (PredictRequest::disaggregation,
// ExpectRequest::disaggregations; docs/prediction.md "A disaggregated run"):
// a lone request's TTFT is the aggregated prefill plus the hand-off and one
// decode step, decode per request is the same instance's, and what cannot
// run is refused naming the flag.

#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/usecase/expect.hpp"
#include "tpnet/usecase/predict.hpp"

using namespace tpnet;
using tpnet::test::expect_bad_input;
using tpnet::test::run_tpnet;

namespace {

/// qwen3-32b at TP1 on a Spark, one 8k prompt with 64 outputs, at 200G.
PredictRequest lone_request() {
  PredictRequest r;
  r.model = builtin_model("qwen3-32b");
  r.engine.tensor_parallel_size = 1;
  const NodeSpec node = builtin_node("dgx-spark");
  r.memory_bandwidth = node.memory_bandwidth;
  r.expected = node.expected;
  r.memory = MemoryRequest{ParallelLayout{1, 1, 1}, r.engine, node, MemorySettings{}};
  const Link link = parse_link("200G", InputLocation::for_key("link"));
  r.links = {ProfiledLink{link, default_fabric(link, CollectiveSettings{}, node.name)}};
  r.scenarios = {PredictScenario{"1x8k", {ScheduledRequest{0.0, 8192, 64}}}};
  return r;
}

DisaggregationLayout one_p_one_d() {
  DisaggregationLayout d;
  d.prefill_instances = 1;
  d.decode_instances = 1;
  return d;
}

}  // namespace

TEST_CASE("1P1D: a lone request's TTFT is the aggregated one plus its hand-off and a decode step",
          "[disaggregated_predict][golden]") {
  const PredictRequest aggregated = lone_request();
  PredictRequest split = lone_request();
  split.disaggregation = one_p_one_d();
  const PredictReport a = run_predict(aggregated);
  const PredictReport x = run_predict(split);
  const PredictLink& la = a.scenarios.front().links.front();
  const PredictLink& lx = x.scenarios.front().links.front();
  REQUIRE(lx.disaggregated);
  const DisaggregatedLink& d = *lx.disaggregated;
  const DisaggregatedRequest& q = d.run.requests.front();
  // The prefill instance's step is the aggregated prefill, to the bit.
  CHECK(q.prefill_end_s == la.first_token.front().value());
  // qwen3-32b caches 64 layers x 8 KV heads x 128 x (K, V) x 2 bytes a token:
  // 256 KiB, 512 blocks of 16 for the 8,192-token prompt, all to the one rank.
  CHECK(d.longest_transfer.blocks == 512);
  CHECK(d.longest_transfer.per_decode_rank.count() == Approx(8192.0 * 262144.0));
  CHECK(d.longest_transfer_time.host_staged);  // a Spark's unified memory
  CHECK(q.hand_off_s() == Approx(d.longest_transfer_time.total.value()));
  const double decode_step = q.first_token_s - q.hand_off_end_s;
  CHECK(decode_step > 0.0);
  CHECK(decode_step < 0.5);
  CHECK(lx.first_token.front().value() ==
        Approx(la.first_token.front().value() + q.hand_off_s() + decode_step));
  // Decode alone on one node either way: the same speed within 1%.
  CHECK(lx.decode_tokens_per_s == Approx(la.decode_tokens_per_s).epsilon(0.01));
  CHECK(d.run.hand_off_share_of_ttft == Approx(q.hand_off_s() / q.ttft_s()));
  CHECK(std::any_of(x.warnings.begin(), x.warnings.end(), [](const std::string& w) {
    return w.find("not validated on Spark") != std::string::npos;
  }));
  const std::vector<std::string> answer = predict_answer(x);
  REQUIRE(answer.size() >= 3);
  CHECK(answer[2].find("1P1D at 200G") != std::string::npos);
}

TEST_CASE("xPyD decodes are never interrupted: later prompts cost the decoding request nothing",
          "[disaggregated_predict]") {
  // A long decode, then three prompts arriving while it decodes.
  auto staggered = [] {
    PredictRequest r = lone_request();
    r.scenarios = {
        PredictScenario{"staggered",
                        {ScheduledRequest{0.0, 1024, 256}, ScheduledRequest{1.0, 8192, 2},
                         ScheduledRequest{2.0, 8192, 2}, ScheduledRequest{3.0, 8192, 2}}}};
    return r;
  };
  PredictRequest aggregated = staggered();
  PredictRequest split = staggered();
  split.disaggregation = one_p_one_d();
  const PredictLink a = run_predict(aggregated).scenarios.front().links.front();
  const PredictLink x = run_predict(split).scenarios.front().links.front();
  const auto rate_of_first = [](const PredictLink& l) {
    const RequestTimeline& t = l.schedule.requests.front();
    return 255.0 / (t.finished_s - t.first_token_s);
  };
  CHECK(a.schedule.mixed_steps > 0);
  CHECK(x.schedule.mixed_steps == 0);
  CHECK(rate_of_first(x) > rate_of_first(a) * 1.05);
}

TEST_CASE("predict refuses an xPyD layout that cannot run, naming the flag",
          "[disaggregated_predict][cli]") {
  const std::vector<std::string> base{"predict", "--model", "qwen3-32b", "--tp",
                                      "1",       "--links", "200G"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_tpnet(args);
  };
  expect_bad_input(with({"--prefill-tp", "2"}), "--prefill-tp");
  expect_bad_input(with({"--disaggregate", "2X1D"}), "--disaggregate");
  // 64 heads do not split over 3 ranks.
  expect_bad_input(with({"--disaggregate", "1P1D", "--decode-tp", "3"}), "--decode-tp");
  expect_bad_input(with({"--disaggregate", "1P1D", "--timeline", "/tmp/tpnet-never.csv"}),
                   "--timeline");
  const auto r = with({"--disaggregate", "2P1D", "--prefill-tp", "2", "--format", "json"});
  const YAML::Node d = tpnet::test::json_of(r);
  const YAML::Node row = d["disaggregation"][0];
  CHECK(row["layout"].as<std::string>() == "2P1D (P TP2, D TP1)");
  CHECK(row["busiest_pool"].IsDefined());
  CHECK(row["kv_bytes_per_decode_rank"].as<double>() > 0.0);
  CHECK(row["hand_off_share_of_ttft_pct"].as<double>() > 0.0);
  CHECK(row["hand_off_share_of_ttft_pct"].as<double>() < 100.0);
}

TEST_CASE("expect prices xPyD beside the layouts: its decode is a decode instance's",
          "[disaggregated_predict][expect]") {
  ExpectRequest r;
  r.model = builtin_model("qwen3-32b");
  r.engine.tensor_parallel_size = 1;
  r.node = builtin_node("dgx-spark");
  r.nodes = 4;
  r.fabric = default_fabric(parse_link("200G", InputLocation::for_key("link")),
                            CollectiveSettings{}, "dgx-spark");
  r.prompt_tokens = 1024;
  r.output_tokens = 128;
  r.concurrency = {1, 32};
  r.layouts = {ParallelLayout{1, 1, 1}};
  DisaggregationLayout three = one_p_one_d();
  three.prefill_instances = 2;  // 3 nodes: not a divisor of 4
  r.disaggregations = {one_p_one_d(), three};
  const ExpectReport report = run_expect(r);
  REQUIRE(report.layouts.size() == 2);
  const ExpectLayout& tp1 = report.layouts[0];
  const ExpectLayout& x = report.layouts[1];
  REQUIRE(x.disaggregation);
  CHECK(x.replicas == 2);
  CHECK(x.fits);
  CHECK(x.refusal.empty());
  // One request alone decodes on one TP1 instance either way.
  CHECK(x.decode.front().per_request.typical == Approx(tp1.decode.front().per_request.typical));
  // At 32 requests, 2 decode instances serve what 4 replicas share.
  CHECK(x.decode.back().batch == 16);
  CHECK(tp1.decode.back().batch == 8);
  CHECK(x.ttft_s.typical > tp1.ttft_s.typical);
  CHECK(x.ttft_s.slow >= x.ttft_s.typical);
  CHECK(std::any_of(report.warnings.begin(), report.warnings.end(), [](const std::string& w) {
    return w.find("2P1D takes 3 nodes") != std::string::npos;
  }));
  CHECK(std::any_of(report.notes.begin(), report.notes.end(), [](const std::string& n) {
    return n.find("1P1D: a 1024-token prompt hands") != std::string::npos;
  }));
  const Document doc = expect_document(r, report);
  const auto cli = run_tpnet({"expect", "--model", "qwen3-32b", "--nodes", "4", "--disaggregate",
                              "1P1D,2P2D", "--format", "json"});
  const YAML::Node d = tpnet::test::json_of(cli);
  bool named = false;
  for (const auto& row : d["layouts"]) {
    if (row["layout"].as<std::string>() == "2 x 1P1D") {
      named = true;
      CHECK(row["disaggregation"]["decode_instances"].as<int>() == 1);
    }
  }
  CHECK(named);
  CHECK_FALSE(doc.fields.empty());
}

TEST_CASE("predict refuses xPyD with data-parallel instances, naming the flag",
          "[predict][disaggregation][bad-input]") {
  const auto r =
      tpnet::test::run_tpnet({"predict", "--model", "qwen3-235b-a22b", "--quantization", "fp8",
                              "--tp", "1", "--data-parallel-size", "2", "--enable-expert-parallel",
                              "--disaggregate", "1P1D", "--links", "200G", "--prompt", "8k"});
  tpnet::test::expect_bad_input(r, "--disaggregate");
}
