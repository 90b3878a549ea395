// tpnet-calibrate gemm end to end: bad input is refused before any GPU call,
// and where there is a GPU the small GEMM matches the CPU reference in every
// precision the device runs.

#include <filesystem>
#include <string>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "run_process.hpp"

using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::run_calibrate;

namespace {

const std::string kGlm53 = "glm-5.3";

}  // namespace

TEST_CASE("gemm bad input exits 2 with one line naming the flag or key", "[calibrate][gemm]") {
  if (!TPNET_HAVE_CUDA) {
    expect_bad_input(run_calibrate({"gemm", "--check-only"}), "built without CUDA");
    return;
  }
  expect_bad_input(run_calibrate({"gemm", "--tp", "8"}), "--model: is required");
  expect_bad_input(run_calibrate({"gemm", "--model", kGlm53}), "--tp: is required");
  expect_bad_input(run_calibrate({"gemm", "--model", kGlm53, "--tp", "6"}),
                   "num_attention_heads: 64 heads do not split evenly over TP 6");
  // A model file that states totals, not its attention or expert shapes.
  const std::string totals_only = TPNET_SOURCE_DIR "/tests/data/models/totals-only.yaml";
  expect_bad_input(run_calibrate({"gemm", "--model", totals_only, "--tp", "8"}),
                   "mla: not stated by the model");
  expect_bad_input(run_calibrate({"gemm", "--model", kGlm53, "--tp", "8", "--chunk", "0"}),
                   "--chunk");
  expect_bad_input(run_calibrate({"gemm", "--model", kGlm53, "--tp", "8", "--precision", "fp4"}),
                   "--precision: 'fp4' is not a precision; allowed auto, nvfp4, fp8, bf16");
  expect_bad_input(run_calibrate({"gemm", "--model", kGlm53, "--tp", "8", "--repeats", "0"}),
                   "--repeats: 0 is out of range");
  expect_bad_input(run_calibrate({"gemm", "--model", kGlm53, "--tp", "8", "--experts", "fused"}),
                   "--experts: 'fused' is not how to run the experts; allowed grouped, separate");
  expect_bad_input(run_calibrate({"gemm", "--model", kGlm53, "--tp", "8", "--out",
                                  "/nonexistent-folder/gemm.csv"}),
                   "--out /nonexistent-folder/gemm.csv: folder /nonexistent-folder does not exist");
}

TEST_CASE("gemm --check-only matches the CPU reference on a GPU", "[calibrate][gemm][gpu]") {
  if (!TPNET_HAVE_CUDA) {
    WARN("SKIPPED: no CUDA device: built without CUDA");
    return;
  }
  const CliResult r = run_calibrate({"gemm", "--check-only"});
  if (r.exit_code == 4 && r.err.find("no CUDA device") != std::string::npos) {
    WARN("SKIPPED: no CUDA device: " << r.err);
    CHECK_THAT(r.err, ContainsSubstring("cudaGetDeviceCount"));
    return;
  }
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("check bf16 256 x 192 x 512 against the CPU reference: "
                                      "passed"));
  // The grouped path: 6 experts in 3 bins, every expert's output against grouped_reference.
  CHECK_THAT(r.out, ContainsSubstring("check bf16 grouped 3 x 64 + 2 x 32 + 1 x 16 rows x 256 x "
                                      "512 (strided-batched) against the CPU reference: passed"));
  CHECK_THAT(r.out, ContainsSubstring("auto precision: "));
}

TEST_CASE("gemm times GLM-5.3 TP8 shapes on a GPU and writes the CSV", "[calibrate][gemm][gpu]") {
  if (!TPNET_HAVE_CUDA) {
    WARN("SKIPPED: no CUDA device: built without CUDA");
    return;
  }
  const auto out = tpnet::test::fresh_dir("gemm") / "gemm.csv";
  const CliResult r = run_calibrate({"gemm", "--model", kGlm53, "--tp", "8", "--warmup", "1",
                                     "--repeats", "3", "--out", out.string()});
  if (r.exit_code == 4 && r.err.find("no CUDA device") != std::string::npos) {
    WARN("SKIPPED: no CUDA device: " << r.err);
    CHECK_FALSE(std::filesystem::exists(out));  // nothing half-written
    return;
  }
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("compute per prompt token per node: "));
  const std::string csv = tpnet::test::slurp(out);
  CHECK_THAT(csv, ContainsSubstring("model,tp,chunk_tokens,precision,device,compute_capability,"));
  // Each MoE layer's 256 experts as one grouped GEMM of 4,096 x 8 rows, uniform and skewed.
  CHECK_THAT(csv, ContainsSubstring(",moe.gate_up,32768,512,6144,75,"));
  CHECK_THAT(csv, ContainsSubstring(",256,uniform\n"));
  CHECK_THAT(csv, ContainsSubstring(",256,skewed\n"));
  CHECK_THAT(r.out, ContainsSubstring("grouped 3 x 64 + 2 x 32 + 1 x 16 rows"));
  CHECK_THAT(r.out, ContainsSubstring("with skewed routing (1 expert in 8 at 4x the mean rows)"));
  // tpnet reads it back: the grouped experts and the skewed figure.
  const CliResult cal = tpnet::test::run_program(
      {tpnet::test::tpnet_program(), "calibration", "--gemm", out.string(), "--model", "glm-5.3"});
  INFO(cal.out << cal.err);
  CHECK(cal.exit_code == 0);
  CHECK_THAT(cal.out, ContainsSubstring("experts: \"grouped\""));
  CHECK_THAT(cal.out, ContainsSubstring("skewed_per_prompt_token_s: "));
}

TEST_CASE("gemm --experts separate times one GEMM per expert, as files before grouping",
          "[calibrate][gemm][gpu]") {
  if (!TPNET_HAVE_CUDA) {
    WARN("SKIPPED: no CUDA device: built without CUDA");
    return;
  }
  const auto out = tpnet::test::fresh_dir("gemm-separate") / "gemm.csv";
  const CliResult r =
      run_calibrate({"gemm", "--model", kGlm53, "--tp", "8", "--experts", "separate", "--warmup",
                     "1", "--repeats", "3", "--out", out.string()});
  if (r.exit_code == 4 && r.err.find("no CUDA device") != std::string::npos) {
    WARN("SKIPPED: no CUDA device: " << r.err);
    CHECK_FALSE(std::filesystem::exists(out));
    return;
  }
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string csv = tpnet::test::slurp(out);
  CHECK_THAT(csv, ContainsSubstring(",moe.gate_up,128,512,6144,19200,"));
  CHECK_THAT(csv, ContainsSubstring(" experts=separate "));
  CHECK(csv.find(",uniform") == std::string::npos);
}
