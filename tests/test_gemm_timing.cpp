// Timed prefill GEMMs (tpnet/measured/gemm_timing.hpp, docs/calibration.md):
// one chunk's GEMM time on a node is sum(count x median), per prompt token
// that over the chunk.

#include "catch.hpp"
#include "tpnet/measured/gemm_timing.hpp"

using namespace tpnet;

namespace {

GemmTiming gemm(const char* name, long long count, double median_s) {
  GemmTiming g;
  g.name = name;
  g.count = count;
  g.median = Seconds(median_s);
  return g;
}

}  // namespace

TEST_CASE("a chunk's GEMM time is each GEMM's median times its runs", "[calibration]") {
  GemmRun run;
  run.chunk_tokens = 2048;
  // 92 x 1.5 ms + 4,608 x 50 us + 1 x 10 ms = 0.138 + 0.2304 + 0.01 = 0.3784 s.
  run.gemms = {gemm("attn.qkv", 92, 1.5e-3), gemm("moe.gate_up", 4608, 50e-6),
               gemm("lm_head", 1, 10e-3)};
  CHECK_THAT(run.forward_time().value(), WithinRel(0.3784, 1e-12));
  // 0.3784 s / 2,048 tokens = 184.765625 us per prompt token.
  CHECK_THAT(run.per_prompt_token().value(), WithinRel(184.765625e-6, 1e-12));
  // A GEMM run no time in the forward adds nothing.
  run.gemms.push_back(gemm("unused", 0, 1.0));
  CHECK_THAT(run.forward_time().value(), WithinRel(0.3784, 1e-12));
  CHECK(GemmRun{}.forward_time().value() == 0.0);
}
