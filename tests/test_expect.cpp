// What N nodes will give (tpnet/usecase/expect.hpp): the layouts of N nodes,
// their memory fit, and a decode step and a prompt priced by hand from the
// node's expected rates as the step model prices them (docs/formulas.md s.23).

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
#include "tpnet/model/mixer_compute.hpp"
#include "tpnet/model/weights.hpp"
#include "tpnet/sim/step_cost.hpp"
#include "tpnet/usecase/expect.hpp"

using Catch::Matchers::StartsWith;
using Catch::Matchers::WithinRel;
using namespace tpnet;
using tpnet::test::expect_bad_input;
using tpnet::test::run_tpnet;

namespace {

ExpectRequest request(const std::string& model, int nodes) {
  ExpectRequest r;
  r.model = builtin_model(model);
  r.engine.tensor_parallel_size = 1;
  r.node = builtin_node("dgx-spark");
  r.nodes = nodes;
  r.fabric = default_fabric(parse_link("200G", InputLocation::for_key("link")),
                            CollectiveSettings{}, "dgx-spark");
  r.prompt_tokens = 1024;
  r.output_tokens = 128;
  r.concurrency = {1, 32};
  return r;
}

const ExpectLayout& layout(const ExpectReport& r, int tp, int pp) {
  for (const auto& l : r.layouts) {
    if (l.layout.tp == tp && l.layout.pp == pp) return l;
  }
  FAIL("no such layout");
  return r.layouts.front();
}

}  // namespace

TEST_CASE("four nodes make six layouts: TP 1, 2, 4 with replicas, and PP of 2 and 4", "[expect]") {
  const ExpectReport r = run_expect(request("llama-3.1-8b", 4));
  REQUIRE(r.layouts.size() == 6);
  CHECK(layout(r, 1, 1).replicas == 4);
  CHECK(layout(r, 2, 1).replicas == 2);
  CHECK(layout(r, 4, 1).replicas == 1);
  CHECK(layout(r, 1, 2).replicas == 2);
  CHECK(layout(r, 2, 2).replicas == 1);
  CHECK(layout(r, 1, 4).replicas == 1);
  for (const auto& l : r.layouts) CHECK(l.fits);
  REQUIRE(r.best_latency >= 0);
  REQUIRE(r.best_throughput >= 0);
  // One request's decode, across stages one after another, is no faster
  // than the same TP without stages: each hop adds to it.
  CHECK(layout(r, 1, 2).decode.front().per_request.typical <
        layout(r, 1, 1).decode.front().per_request.typical);
  // Replicas split the load: at 32 requests four TP1 replicas run 8 each.
  CHECK(layout(r, 1, 1).decode.back().batch == 8);
}

TEST_CASE(
    "a decode step and a prompt, priced by hand from the expected rates: Llama-3.1-8B "
    "on one DGX Spark",
    "[expect][golden]") {
  const ExpectRequest req = request("llama-3.1-8b", 1);
  const ExpectReport r = run_expect(req);
  const ExpectLayout& one = layout(r, 1, 1);
  const ExpectedRates& e = *req.node.expected;
  const double bandwidth = 273e9 * e.decode.bandwidth_share.typical;
  const double weights = decode_weight_reads(req.model).active.count();
  // 32 layers of 8 KV heads of 128, K and V in BF16, for the prompt and half
  // the output.
  const double kv = 1088.0 * 32 * 2 * 8 * 128 * 2;
  const double c1 = 1.0 / (e.decode.step_overhead_s.typical + (weights + kv) / bandwidth);
  CHECK_THAT(one.decode.front().per_request.typical, WithinRel(c1, 1e-9));
  // 32 requests read the weights once and their own caches.
  const double reads = (weights + 32 * kv) / bandwidth;
  const double flops = 32 * gemm_flops_per_token(req.model, 1) / e.decode.gemm_flops_per_s.typical;
  const double c32 = 32.0 / (e.decode.step_overhead_s.typical + std::max(reads, flops));
  CHECK_THAT(one.decode.back().aggregate.typical, WithinRel(c32, 1e-9));
  // A 1,024-token prompt is one step: the fixed cost, the GEMMs at the
  // 16-bit rate (the model is BF16), the attention at the mixing rate.
  const double ttft =
      e.prefill.step_overhead_s.typical +
      1024 * gemm_flops_per_token(req.model, 1) / e.prefill.bf16_gemm_flops_per_s.typical +
      prefill_mixer_flops(req.model, 1, 0, 1024).total() / e.prefill.mixer_flops_per_s.typical;
  CHECK_THAT(one.ttft_s.typical, WithinRel(ttft, 1e-9));
  // The slow end is slower than typical, the fast end faster.
  CHECK(one.ttft_s.slow > one.ttft_s.typical);
  CHECK(one.ttft_s.fast < one.ttft_s.typical);
  CHECK(one.decode.front().per_request.slow < c1);
  CHECK(one.decode.front().per_request.fast > c1);
  // The bound: the active weights at the full bandwidth.
  CHECK_THAT(one.floor_tokens_per_s, WithinRel(273e9 / weights, 1e-9));
  // Decode slows with the context (the KV cache read each token).
  REQUIRE(r.context_slowdown.size() == 3);
  CHECK(r.context_slowdown[0].second > r.context_slowdown[2].second);
}

TEST_CASE("a layout that does not fit gets no numbers, and none fitting is said", "[expect]") {
  // GLM-5.3 (753B at 4.5 bits) on two Sparks: neither TP2 nor two TP1 holds it.
  const ExpectReport r = run_expect(request("glm-5.3", 2));
  for (const auto& l : r.layouts) {
    CHECK_FALSE(l.fits);
    CHECK(l.decode.empty());
  }
  CHECK(r.best_latency == -1);
  bool said = false;
  for (const auto& w : r.warnings) said = said || w.find("no layout") != std::string::npos;
  CHECK(said);
}

TEST_CASE("expect refuses a node without expected rates and out-of-range asks, naming the field",
          "[expect][bad-input]") {
  ExpectRequest r = request("llama-3.1-8b", 1);
  r.node.expected.reset();
  CHECK_THROWS_WITH(run_expect(r), ContainsSubstring("no expected rates"));
  r = request("llama-3.1-8b", 1);
  r.concurrency = {0};
  CHECK_THROWS_WITH(run_expect(r), ContainsSubstring("0 is out of range"));
  expect_bad_input(
      run_tpnet({"expect", "--model", "llama-3.1-8b", "--nodes", "2", "--concurrency", "0"}),
      "--concurrency: 0 is out of range");
  expect_bad_input(run_tpnet({"expect", "--model", "llama-3.1-8b", "--nodes", "0"}),
                   "--nodes: 0 is out of range");
}

TEST_CASE(
    "every built-in model predicts with only its name, a TP size and a link, expected "
    "from public runs with a range",
    "[expect][predict][cli]") {
  for (const auto& name : builtin_model_names()) {
    INFO(name);
    const auto r =
        run_tpnet({"predict", "--model", name, "--tp", "8", "--links", "200G", "--format", "json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const YAML::Node d = tpnet::test::json_of(r);
    CHECK(d["fit"]["source"].as<std::string>() == "expected from public runs on the node");
    CHECK(d["decode"]["source"].as<std::string>() == "expected from public runs on the node");
    const YAML::Node link = d["scenarios"][0]["links"][0];
    const YAML::Node range = link["expected_range"];
    REQUIRE(range.IsDefined());
    CHECK(range["decode_tokens_per_s_slow"].as<double>() <=
          link["decode_tokens_per_s"].as<double>());
    CHECK(range["decode_tokens_per_s_fast"].as<double>() >=
          link["decode_tokens_per_s"].as<double>());
  }
}

TEST_CASE("predict says first that a layout does not fit: GLM-5 in BF16 at TP8",
          "[expect][predict][cli]") {
  // 744B at 16 bits: about 190 GB a node at TP8, over a Spark's 109 GB budget.
  const auto r = run_tpnet({"predict", "--model",
                            std::string(TPNET_SOURCE_DIR) + "/tests/data/hf/zai-org__GLM-5", "--tp",
                            "8", "--links", "200G", "--quantization", "bf16"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, StartsWith("tpnet: warning: does not fit in memory (weights)"));
}

TEST_CASE("expect's document: the cluster, the best layouts, each layout's row, the context",
          "[expect]") {
  const ExpectRequest req = request("llama-3.1-8b", 2);
  const ExpectReport r = run_expect(req);
  const Document doc = expect_document(req, r);
  CHECK(doc.title == "tpnet expect: " + req.model.name +
                         " on 2 x dgx-spark at 200G, 1024-token prompts, 128 outputs");
  std::vector<std::string> keys;
  for (const Field& f : doc.fields) keys.push_back(f.key);
  CHECK(keys == std::vector<std::string>{
                    "model", "nodes", "node", "link", "fabric", "prompt_tokens", "output_tokens",
                    "accepted_tokens_per_decode", "best_latency", "best_throughput", "source",
                    "layouts", "context_slowdown", "notes"});
  REQUIRE(r.best_latency >= 0);
  const ExpectLayout& best = r.layouts[static_cast<std::size_t>(r.best_latency)];
  const std::string best_name = best.replicas > 1
                                    ? std::to_string(best.replicas) + " x " + best.layout.name()
                                    : best.layout.name();
  CHECK(doc.fields[8].text == best_name);
  CHECK(doc.fields[10].text == r.source);
  // The layouts' label names no flag: the CLI words it.
  CHECK(doc.fields[11].label.find("--") == std::string::npos);
  REQUIRE(doc.fields[11].records.size() == r.layouts.size());
  const Record& row = doc.fields[11].records[static_cast<std::size_t>(r.best_latency)];
  CHECK(row.front().text == best_name);
  CHECK(row[4].text == "yes");
  CHECK(row[7].number == best.ttft_s.typical);
  CHECK(doc.fields[12].records.size() == r.context_slowdown.size());
  CHECK(doc.warnings == r.warnings);
}

namespace {

bool notes_say(const std::vector<std::string>& lines, const std::string& what) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(what) != std::string::npos; });
}

}  // namespace

TEST_CASE("expect lists an MoE model's TP x EP layouts of four nodes, and none of a dense one",
          "[expect][expert-parallel]") {
  const ExpectReport r = run_expect(request("gpt-oss-120b", 4));
  std::vector<std::string> names;
  for (const auto& l : r.layouts) {
    if (l.layout.data_parallel() > 1) names.push_back(l.layout.name());
  }
  // TP1 x DP2 (two replicas), TP1 x DP4, TP2 x DP2.
  CHECK(names == std::vector<std::string>{"TP1xEP2", "TP1xEP4", "TP2xEP4"});
  for (const auto& l : r.layouts) {
    if (l.layout.data_parallel() < 2) continue;
    INFO(l.layout.name());
    CHECK(l.replicas == 4 / l.layout.nodes());
    CHECK(l.fits);
    CHECK(l.ttft_s.typical > 0.0);
    // 32 requests over the replicas, then the DP ranks: the busiest rank's batch.
    CHECK(l.decode.back().batch == 32 / l.replicas / l.layout.data_parallel());
  }
  CHECK(notes_say(r.notes, "not validated on Spark"));
  const ExpectReport dense = run_expect(request("llama-3.1-8b", 4));
  for (const auto& l : dense.layouts) CHECK(l.layout.ep == 1);
  CHECK(!notes_say(dense.notes, "not validated on Spark"));
}

TEST_CASE("expect prices a given EP layout and leaves one out that a ring cannot join",
          "[expect][expert-parallel]") {
  ExpectRequest r = request("gpt-oss-120b", 4);
  r.layouts = {ParallelLayout{1, 1, 4}};
  const ExpectReport given = run_expect(r);
  REQUIRE(given.layouts.size() == 1);
  CHECK(given.layouts.front().replicas == 1);
  CHECK(given.best_latency == 0);
  ExpectRequest ring = request("gpt-oss-120b", 4);
  ring.fabric.topology = FabricTopology::ring;
  const ExpectReport left = run_expect(ring);
  for (const auto& l : left.layouts) CHECK(l.layout.ep <= 2);
  CHECK(notes_say(left.notes, "left out"));
  ring.layouts = {ParallelLayout{1, 1, 4}};
  CHECK_THROWS_WITH(run_expect(ring), ContainsSubstring("every pair"));
}

TEST_CASE("every layout row has every concurrency's columns, a first row that does not fit too",
          "[expect]") {
  // MiniMax-M2 does not fit one Spark: the first row (8 x TP1) has no decode
  // numbers, and the table takes its columns from the first row.
  const auto r = tpnet::test::run_tpnet({"expect", "--model", "minimax-m2", "--nodes", "8"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("C=64 tok/s"));
  const std::size_t at = r.out.find("\n  TP8 ");
  REQUIRE(at != std::string::npos);
  const std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
  INFO(line);
  CHECK_THAT(line, EndsWith("latency"));  // its best-for cell, after four decode columns
  CHECK(std::count(line.begin(), line.end(), ' ') > 20);
}

TEST_CASE("one layout priced alone: its row, a row that does not fit, and a fabric refused",
          "[expect]") {
  ExpectRequest r = request("minimax-m2", 4);
  r.layouts = {ParallelLayout{1, 1, 1}};  // replaced by the one asked
  const SingleLayoutExpectation tp4 = expect_single_layout(r, ParallelLayout{4, 1, 1}, {});
  REQUIRE(tp4.row);
  CHECK_FALSE(tp4.refused);
  CHECK(tp4.row->layout == ParallelLayout{4, 1, 1});
  CHECK(tp4.row->fits);
  // The same as run_expect gives for that layout among the others.
  r.layouts = {ParallelLayout{2, 1, 1}, ParallelLayout{4, 1, 1}};
  const ExpectReport all = run_expect(r);
  CHECK(tp4.row->ttft_s.typical == layout(all, 4, 1).ttft_s.typical);
  // MiniMax-M2 does not fit one Spark: the row says so, nothing is refused.
  const SingleLayoutExpectation tp1 = expect_single_layout(r, ParallelLayout{1, 1, 1}, {});
  REQUIRE(tp1.row);
  CHECK_FALSE(tp1.row->fits);
  // EP over four nodes on a ring: the all-to-all cannot join every pair.
  ExpectRequest ring = r;
  ring.fabric = default_fabric(parse_link("200G", InputLocation::for_key("link")),
                               CollectiveSettings{}, "dgx-spark", FabricTopology::ring);
  const SingleLayoutExpectation ep = expect_single_layout(ring, ParallelLayout{1, 1, 4}, {});
  CHECK_FALSE(ep.row);
  REQUIRE(ep.refused);
  CHECK(ep.refused->where().key == "fabric");
  // An xPyD group is found by its disaggregation.
  const SingleLayoutExpectation pd =
      expect_single_layout(r, ParallelLayout{4, 1, 1}, DisaggregationLayout{1, 1, 2, 2});
  REQUIRE(pd.row);
  CHECK(pd.row->disaggregation.has_value());
}
