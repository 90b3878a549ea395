// A node's expected rates (tpnet/fabric/expected_rates.hpp): each end of a
// spread, the DGX Spark catalog's as docs/prediction.md s.5 states them, and
// a node file's `expected` block with its errors naming file, line and key.

#include <string>

#include "catch.hpp"
#include "tpnet/fabric/expected_rates.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/node_yaml.hpp"

using namespace tpnet;

namespace {

const std::string kNode = R"(name: box
memory: 64GB
memory_bandwidth: 100GB/s
ports: {count: 1, cage: QSFP56, rate: 200G, speeds: [100G]}
expected:
  source: a test
  decode:
    bandwidth_share: [0.5, 0.6, 0.7]
    step_overhead: [5ms, 3ms, 1ms]
    eager_step_overhead: [20ms, 10ms, 2ms]
    gemm_tflops: [10, 20, 40]
    expert_concentration: [0.9, 0.8, 0.7]
  prefill:
    step_overhead: [60ms, 30ms, 10ms]
    gemm_tflops: [90, 120, 150]
    bf16_gemm_tflops: [45, 60, 75]
    expert_gemm_tflops: [15, 30, 50]
    mixer_tflops: [100, 200, 300]
)";

std::string error_with(const std::string& from, const std::string& to) {
  std::string text = kNode;
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  try {
    (void)parse_node_yaml(text, "node.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a spread gives its slow, typical and fast value", "[expected]") {
  const Spread s{0.5, 0.6, 0.7};
  CHECK(value_at(s, RateEnd::slow) == 0.5);
  CHECK(value_at(s, RateEnd::typical) == 0.6);
  CHECK(value_at(s, RateEnd::fast) == 0.7);
}

TEST_CASE("a node file's expected rates: TFLOP/s as FLOP/s, durations as seconds",
          "[expected][node][yaml]") {
  const NodeSpec n = parse_node_yaml(kNode, "node.yaml");
  REQUIRE(n.expected);
  CHECK(n.expected->source == "a test");
  CHECK(n.expected->decode.bandwidth_share.typical == 0.6);
  CHECK(n.expected->decode.step_overhead_s.slow == 0.005);
  CHECK(n.expected->decode.gemm_flops_per_s.fast == 40e12);
  CHECK(n.expected->prefill.expert_gemm_flops_per_s.typical == 30e12);
  // The built-in Spark carries them (models/nodes/dgx-spark.yaml).
  const NodeSpec spark = builtin_node("dgx-spark");
  REQUIRE(spark.expected);
  CHECK(spark.expected->decode.bandwidth_share.slow < spark.expected->decode.bandwidth_share.fast);
  CHECK(spark.expected->prefill.step_overhead_s.slow >
        spark.expected->prefill.step_overhead_s.fast);
}

TEST_CASE("expected rates out of order, out of range or missing name their key",
          "[expected][node][yaml][bad-input]") {
  CHECK_THAT(error_with("bandwidth_share: [0.5, 0.6, 0.7]", "bandwidth_share: [0.7, 0.6, 0.5]"),
             ContainsSubstring("node.yaml:8: expected.decode.bandwidth_share: expected slow <= "
                               "typical <= fast (a rate rises)"));
  CHECK_THAT(error_with("step_overhead: [5ms, 3ms, 1ms]", "step_overhead: [1ms, 3ms, 5ms]"),
             ContainsSubstring("expected.decode.step_overhead: expected slow >= typical >= fast"));
  CHECK_THAT(error_with("bandwidth_share: [0.5, 0.6, 0.7]", "bandwidth_share: [0.5, 0.6, 1.7]"),
             ContainsSubstring("expected.decode.bandwidth_share: 1.7 is out of range"));
  CHECK_THAT(error_with("gemm_tflops: [90, 120, 150]", "gemm_tflops: [90, 120]"),
             ContainsSubstring("expected.prefill.gemm_tflops: expected [slow, typical, fast]"));
  CHECK_THAT(error_with("    mixer_tflops: [100, 200, 300]\n", ""),
             ContainsSubstring("expected.prefill.mixer_tflops: required key is missing"));
  CHECK_THAT(error_with("  source: a test\n", "  source: a test\n  sources: x\n"),
             ContainsSubstring("sources: unknown key"));
}
