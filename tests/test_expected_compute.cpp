// The compute models of a node's expected rates (tpnet/sim/expected_compute.hpp).

#include "catch.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/model/quantization.hpp"
#include "tpnet/sim/expected_compute.hpp"

using Catch::Matchers::WithinRel;
using namespace tpnet;

TEST_CASE(
    "expected compute: each rate's inverse at its end, BF16 weights at the 16-bit rate, "
    "CUDA graphs off at the eager overhead",
    "[expected]") {
  const ExpectedRates rates = *builtin_node("dgx-spark").expected;
  ModelArch m = builtin_model("llama-3.1-8b");  // BF16
  const ExpectedCompute slow = expected_compute(rates, m, RateEnd::slow, false);
  CHECK_THAT(slow.prefill.seconds_per_gemm_flop,
             WithinRel(1.0 / rates.prefill.bf16_gemm_flops_per_s.slow, 1e-12));
  CHECK_THAT(*slow.prefill.seconds_per_expert_flop,
             WithinRel(1.0 / rates.prefill.expert_gemm_flops_per_s.slow, 1e-12));
  CHECK(slow.prefill.per_step.value() == rates.prefill.step_overhead_s.slow);
  CHECK(slow.decode.efficiency == rates.decode.bandwidth_share.slow);
  CHECK(slow.decode.per_step.value() == rates.decode.step_overhead_s.slow);
  CHECK(slow.decode.expert_concentration == rates.decode.expert_concentration.slow);
  apply_quantization(m, parse_quantization("fp8", InputLocation::for_key("q")));
  const ExpectedCompute fp8 = expected_compute(rates, m, RateEnd::fast, true);
  CHECK_THAT(fp8.prefill.seconds_per_gemm_flop,
             WithinRel(1.0 / rates.prefill.gemm_flops_per_s.fast, 1e-12));
  CHECK(fp8.decode.per_step.value() == rates.decode.eager_step_overhead_s.fast);
  CHECK_THAT(fp8.decode.seconds_per_flop,
             WithinRel(1.0 / rates.decode.gemm_flops_per_s.fast, 1e-12));
}
