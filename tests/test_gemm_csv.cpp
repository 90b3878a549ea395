// The GEMM timing CSV of `tpnet-calibrate gemm` (tpnet/io/gemm_csv.hpp,
// docs/calibration.md): its rows read into a GemmRun, and bad cells are
// named by file, line and column.

#include <string>

#include "calibration_fixtures.hpp"
#include "catch.hpp"
#include "tpnet/io/gemm_csv.hpp"
#include "tpnet/measured/calibration.hpp"

using namespace tpnet;
using tpnet::test::replaced;

namespace {

const std::string kGemm =
    "# tpnet-calibrate gemm date=2026-11-29T15:04:05Z device=NVIDIA GB10 (SYNTHETIC)\n"
    "model,tp,chunk_tokens,precision,device,compute_capability,peak_tflops,gemm,m,n,k,count,"
    "median_s,tflops\n"
    "glm-5.3,8,4096,nvfp4,NVIDIA GB10,12.1,0,attn.o,4096,6144,2048,78,0.002,103.079\n"
    "glm-5.3,8,4096,nvfp4,NVIDIA GB10,12.1,0,moe.gate_up,128,384,6144,19200,0.0001,6.04\n";

std::string gemm_error_of(const std::string& text) {
  try {
    (void)parse_gemm_csv(text, "gemm.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("gemm CSV: compute per prompt token is sum(count x median) / chunk", "[calibration]") {
  const GemmRun run = parse_gemm_csv(kGemm, "gemm.csv");
  CHECK(run.model == "glm-5.3");
  CHECK(run.tp == 8);
  CHECK(run.chunk_tokens == 4096);
  CHECK(run.precision == "nvfp4");
  CHECK(run.device == "NVIDIA GB10");
  CHECK(run.compute_capability == "12.1");
  CHECK(run.date == "2026-11-29T15:04:05Z");
  REQUIRE(run.gemms.size() == 2);
  CHECK(run.gemms[1].source.line == 4);
  // 78 x 2 ms + 19,200 x 0.1 ms = 0.156 + 1.92 = 2.076 s; / 4,096 tokens.
  CHECK_THAT(run.forward_time().value(), WithinRel(2.076, 1e-12));
  CHECK_THAT(run.per_prompt_token().value(), WithinRel(2.076 / 4096, 1e-12));
  const ComputeCalibration c = make_compute_calibration(run);
  CHECK(c.gemms == 2);
  CHECK_THAT(c.per_prompt_token.value(), WithinRel(2.076 / 4096, 1e-12));
}

TEST_CASE("gemm CSV bad input names the file, line and column", "[calibration]") {
  CHECK_THAT(gemm_error_of(replaced(kGemm, ",0.0001,", ",0,")),
             ContainsSubstring("gemm.csv:4: column median_s: is 0; a GEMM time must be positive"));
  CHECK_THAT(gemm_error_of(replaced(kGemm, "glm-5.3,8,4096,nvfp4,NVIDIA GB10,12.1,0,moe",
                                    "glm-5.3,16,4096,nvfp4,NVIDIA GB10,12.1,0,moe")),
             ContainsSubstring("gemm.csv:4: column tp: is '16' but the first row's is '8'"));
  CHECK_THAT(gemm_error_of(replaced(kGemm, ",nvfp4,NVIDIA GB10,12.1,0,attn",
                                    ",fp4,NVIDIA "
                                    "GB10,12.1,0,attn")),
             ContainsSubstring("gemm.csv:3: column precision: is 'fp4'; allowed nvfp4, fp8, bf16"));
  CHECK_THAT(gemm_error_of(replaced(kGemm, ",128,384,", ",0,384,")),
             ContainsSubstring("gemm.csv:4: column m: is 0; must be at least 1"));
  CHECK_THAT(gemm_error_of(replaced(kGemm, "median_s", "median")),
             ContainsSubstring("missing column 'median_s'"));
}
