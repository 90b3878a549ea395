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

namespace {

// A grouped file: a plain GEMM, the experts of each MoE layer as one grouped
// GEMM of 256 x 128 rows (uniform), and the same GEMM with skewed routing.
const std::string kGrouped =
    "# tpnet-calibrate gemm date=2026-12-05T10:00:00Z device=NVIDIA H200 experts=grouped "
    "(SYNTHETIC)\n"
    "model,tp,chunk_tokens,precision,device,compute_capability,peak_tflops,gemm,m,n,k,count,"
    "median_s,tflops,groups,routing\n"
    "glm-5.3,8,4096,fp8,NVIDIA H200,9.0,1979,attn.o,4096,6144,2048,78,0.0001,1030.792,1,none\n"
    "glm-5.3,8,4096,fp8,NVIDIA H200,9.0,1979,moe.gate_up,32768,512,6144,75,0.0002,1030.792,256,"
    "uniform\n"
    "glm-5.3,8,4096,fp8,NVIDIA H200,9.0,1979,moe.gate_up,32768,512,6144,75,0.0003,687.195,256,"
    "skewed\n";

}  // namespace

TEST_CASE("gemm CSV grouped rows: the forward counts uniform rows, skewed ones beside it",
          "[calibration]") {
  const GemmRun run = parse_gemm_csv(kGrouped, "grouped.csv");
  REQUIRE(run.gemms.size() == 3);
  CHECK(run.gemms[0].groups == 1);
  CHECK(run.gemms[0].routing == ExpertRouting::none);
  CHECK(run.gemms[1].groups == 256);
  CHECK(run.gemms[1].routing == ExpertRouting::uniform);
  CHECK(run.gemms[2].routing == ExpertRouting::skewed);
  CHECK(run.experts() == ExpertTiming::grouped);
  // 78 x 0.1 ms + 75 x 0.2 ms = 22.8 ms; the skewed row is not part of it.
  CHECK_THAT(run.forward_time().value(), WithinRel(0.0228, 1e-12));
  // Skewed: 78 x 0.1 ms + 75 x 0.3 ms = 30.3 ms.
  REQUIRE(run.skewed_forward_time().has_value());
  CHECK_THAT(run.skewed_forward_time()->value(), WithinRel(0.0303, 1e-12));
  const ComputeCalibration c = make_compute_calibration(run);
  CHECK(c.experts == "grouped");
  CHECK_THAT(c.per_prompt_token.value(), WithinRel(0.0228 / 4096, 1e-12));
  REQUIRE(c.skewed_per_prompt_token.has_value());
  CHECK_THAT(c.skewed_per_prompt_token->value(), WithinRel(0.0303 / 4096, 1e-12));
}

TEST_CASE("gemm CSV without the grouped columns keeps its meaning: separate expert GEMMs",
          "[calibration]") {
  const GemmRun run = parse_gemm_csv(kGemm, "gemm.csv");
  for (const auto& g : run.gemms) {
    CHECK(g.groups == 1);
    CHECK(g.routing == ExpertRouting::none);
  }
  CHECK(run.experts() == ExpertTiming::separate);
  CHECK_FALSE(run.skewed_forward_time().has_value());
  const ComputeCalibration c = make_compute_calibration(run);
  CHECK(c.experts == "separate");
  CHECK_FALSE(c.skewed_per_prompt_token.has_value());
  // A dense model's file has no routed experts at all.
  const std::string dense =
      kGemm.substr(0, kGemm.find("glm-5.3,8,4096,nvfp4,NVIDIA GB10,12.1,0,moe"));
  CHECK(parse_gemm_csv(dense, "dense.csv").experts() == ExpertTiming::none);
}

TEST_CASE("gemm CSV grouped rows: bad input names the file, line and column", "[calibration]") {
  const auto error = [](const std::string& text) {
    try {
      (void)parse_gemm_csv(text, "grouped.csv");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  REQUIRE(error(kGrouped) == "(no error)");
  CHECK_THAT(error(replaced(kGrouped, "tflops,groups,routing", "tflops,groups,route")),
             ContainsSubstring("missing column 'routing'"));
  CHECK_THAT(error(replaced(kGrouped, ",256,uniform\n", ",256,fused\n")),
             ContainsSubstring("grouped.csv:4: column routing: is 'fused'; allowed none, uniform, "
                               "skewed"));
  CHECK_THAT(error(replaced(kGrouped, ",1030.792,1,none", ",1030.792,2,none")),
             ContainsSubstring("grouped.csv:3: column groups: is 2, but routing none is one GEMM "
                               "per run"));
  CHECK_THAT(error(replaced(kGrouped, ",1030.792,1,none", ",1030.792,1,uniform")),
             ContainsSubstring("grouped.csv:3: column routing: is 'uniform', but 'attn.o' is not "
                               "a routed expert's GEMM"));
  CHECK_THAT(error(replaced(kGrouped, ",256,uniform\n", ",0,uniform\n")),
             ContainsSubstring("grouped.csv:4: column groups: is 0; must be at least 1"));
  CHECK_THAT(error(replaced(kGrouped, ",256,uniform\n", ",40000,uniform\n")),
             ContainsSubstring("grouped.csv:4: column groups: is 40000, above the 32768 rows"));
  // The skewed row needs the uniform row of its GEMM, with the same shape.
  CHECK_THAT(error(replaced(kGrouped, "moe.gate_up,32768,512,6144,75,0.0002",
                            "moe.down,32768,6144,256,75,0.0002")),
             ContainsSubstring("grouped.csv:5: column routing: 'moe.gate_up' has a skewed row but "
                               "no uniform row"));
  CHECK_THAT(error(replaced(kGrouped, "moe.gate_up,32768,512,6144,75,0.0003",
                            "moe.gate_up,32768,512,6144,78,0.0003")),
             ContainsSubstring("grouped.csv:5: column m: 'moe.gate_up' skewed is 32768 x 512 x "
                               "6144, 78 runs, but its uniform row (line 4)"));
  // Each GEMM once in the forward, once skewed.
  CHECK_THAT(error(kGrouped +
                   "glm-5.3,8,4096,fp8,NVIDIA H200,9.0,1979,moe.gate_up,32768,512,6144,75,0.0003,"
                   "687.195,256,skewed\n"),
             ContainsSubstring("grouped.csv:6: column gemm: 'moe.gate_up' is timed twice with "
                               "skewed routing, at lines 5 and 6"));
  // Grouped and separate expert rows in one file would count experts twice.
  CHECK_THAT(error(kGrouped +
                   "glm-5.3,8,4096,fp8,NVIDIA H200,9.0,1979,moe.down,128,6144,256,19200,0.00001,"
                   "40.265,1,none\n"),
             ContainsSubstring("grouped.csv:6: column routing: is 'none' but line 4 times a routed "
                               "expert grouped"));
}
