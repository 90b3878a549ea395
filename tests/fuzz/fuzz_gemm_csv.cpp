// Prefill GEMM timings (`tpnet-calibrate gemm` CSV) through parse_gemm_csv,
// then the compute calibration made of them.

#include <cstddef>
#include <cstdint>

#include "fuzz_check.hpp"
#include "tpnet/io/gemm_csv.hpp"
#include "tpnet/measured/calibration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpnet;
  using namespace tpnet::fuzz;
  contract(Origin::file, [&] {
    const GemmRun run = parse_gemm_csv(text_of(data, size), "fuzz/gemm.csv");
    within(run.tp, 1.0, 1e6, "tp");
    within(static_cast<double>(run.chunk_tokens), 1.0, 1e9, "chunk_tokens");
    non_negative(run.peak_tflops, "peak_tflops");
    for (const auto& g : run.gemms) {
      for (const long long d : {g.m, g.n, g.k, g.count}) {
        within(static_cast<double>(d), 1.0, 9.2e18, "gemm dimension or count");
      }
      positive(g.median, "median_s");
      non_negative(g.tflops, "tflops");
    }
    positive(run.forward_time(), "forward_time");
    positive(run.per_prompt_token(), "per_prompt_token");
    contract(Origin::any, [&] {
      const ComputeCalibration c = make_compute_calibration(run);
      positive(c.forward_time, "calibration forward_time");
      positive(c.per_prompt_token, "calibration per_prompt_token");
    });
  });
  return 0;
}
