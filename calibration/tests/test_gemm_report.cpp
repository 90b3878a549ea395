// tpnet-calibrate gemm without a GPU: which precision auto runs, the peak
// table, the totals and the gemm CSV of shared/contracts.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "gemm_peak.hpp"
#include "gemm_report.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/gemm_csv.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/output_file.hpp"
#include "tpnet/model/prefill_gemms.hpp"

using namespace tpnet::calibrate;
using tpnet::GemmShape;
using tpnet::InputError;
using tpnet::write_file_atomically;

namespace {

GemmRun two_gemms() {
  GemmRun run;
  run.model = "glm-5.3";
  run.tp = 8;
  run.chunk_tokens = 4096;
  run.precision = GemmPrecision::nvfp4;
  run.device = "NVIDIA GB10";
  run.cc = {12, 1};
  run.peak = dense_peak(run.device, run.cc, run.precision);
  run.date = "2026-11-29T15:04:05Z";
  run.warmup = 10;
  run.repeats = 50;
  GemmShape a;
  a.name = "attn.o";
  a.m = 4096;
  a.n = 6144;
  a.k = 2048;
  a.count = 78;
  GemmShape e;
  e.name = "moe.down";
  e.m = 128;
  e.n = 6144;
  e.k = 256;
  e.count = 19200;
  run.timings = {{a, 500e-6}, {e, 10e-6}};
  return run;
}

/// GLM-5.3 TP8 with grouped experts: attn.o, moe.down grouped under uniform
/// routing (256 experts of 128 rows), and the same GEMM with skewed routing.
GemmRun grouped_run() {
  GemmRun run = two_gemms();
  run.precision = GemmPrecision::fp8;
  run.device = "NVIDIA H200";
  run.cc = {9, 0};
  run.peak = dense_peak(run.device, run.cc, run.precision);
  const auto shapes = tpnet::prefill_gemm_shapes(tpnet::builtin_model("glm-5.3"), 8, 4096,
                                                 tpnet::ExpertRouting::uniform);
  const auto skewed = tpnet::prefill_gemm_shapes(tpnet::builtin_model("glm-5.3"), 8, 4096,
                                                 tpnet::ExpertRouting::skewed);
  const auto find = [](const std::vector<GemmShape>& list, const std::string& name) {
    for (const GemmShape& s : list) {
      if (s.name == name) return s;
    }
    FAIL("no " << name);
    return GemmShape{};
  };
  run.timings = {{find(shapes, "attn.o"), 100e-6},
                 {find(shapes, "moe.down"), 150e-6},
                 {find(skewed, "moe.down"), 250e-6}};
  return run;
}

}  // namespace

TEST_CASE("grouped rows: the forward sums the uniform row, the skewed one is a what-if", "[gemm]") {
  const GemmRun run = grouped_run();
  CHECK(run.experts() == "grouped");
  const GemmTiming& down = run.timings[1];
  CHECK(down.shape.m == 32768);
  CHECK(down.shape.groups == 256);
  CHECK(down.shape.count == 75);
  const GemmTotals t = totals(run);
  // 78 x 100 us + 75 x 150 us = 19.05 ms per chunk; skewed: 78 x 100 + 75 x 250 = 26.55 ms.
  CHECK_THAT(t.seconds_per_chunk, WithinRel(0.01905, 1e-12));
  CHECK_THAT(t.seconds_per_token, WithinRel(0.01905 / 4096, 1e-12));
  CHECK(t.skewed);
  CHECK_THAT(t.skewed_seconds_per_chunk, WithinRel(0.02655, 1e-12));
  CHECK_THAT(t.skewed_seconds_per_token, WithinRel(0.02655 / 4096, 1e-12));
  // FLOPs: 2 x sum(rows) x n x k per grouped run, the skewed row not counted again.
  const double flops = 78 * 2.0 * 4096 * 6144 * 2048 + 75 * 2.0 * 32768 * 6144 * 256;
  CHECK_THAT(t.flops_per_chunk, WithinRel(flops, 1e-12));
  CHECK_THAT(down.tflops(), WithinRel(2.0 * 32768 * 6144 * 256 / 150e-6 / 1e12, 1e-12));
  CHECK_FALSE(totals(two_gemms()).skewed);
}

TEST_CASE("grouped rows: the CSV says groups and routing, and tpnet reads the same figures",
          "[gemm]") {
  const GemmRun run = grouped_run();
  std::ostringstream out;
  write_gemm_csv(out, run);
  const std::string text = out.str();
  CHECK_THAT(text, ContainsSubstring(" experts=grouped grouped_launch=batched "));
  CHECK_THAT(text, ContainsSubstring(",moe.down,32768,6144,256,75,1.500000e-04,"));
  CHECK_THAT(text, ContainsSubstring(",256,uniform\n"));
  CHECK_THAT(text, ContainsSubstring(",moe.down,32768,6144,256,75,2.500000e-04,"));
  CHECK_THAT(text, ContainsSubstring(",256,skewed\n"));
  CHECK_THAT(text, ContainsSubstring(",attn.o,4096,6144,2048,78,1.000000e-04,"));
  const tpnet::GemmRun back = tpnet::parse_gemm_csv(text, "grouped.csv");
  REQUIRE(back.gemms.size() == 3);
  CHECK(back.gemms[1].groups == 256);
  CHECK(back.gemms[1].routing == tpnet::ExpertRouting::uniform);
  CHECK(back.gemms[2].routing == tpnet::ExpertRouting::skewed);
  CHECK(back.experts() == tpnet::ExpertTiming::grouped);
  const GemmTotals t = totals(run);
  CHECK_THAT(back.per_prompt_token().value(), WithinRel(t.seconds_per_token, 1e-6));
  REQUIRE(back.skewed_forward_time().has_value());
  CHECK_THAT(back.skewed_forward_time()->value(), WithinRel(t.skewed_seconds_per_chunk, 1e-6));
  // A file that could not batch says so on its first line.
  GemmRun looped = run;
  looped.grouped_batched = false;
  std::ostringstream looped_out;
  write_gemm_csv(looped_out, looped);
  CHECK_THAT(looped_out.str(), ContainsSubstring(" grouped_launch=per-expert "));
}

TEST_CASE("the grouped table shows groups and routing and the skewed figure", "[gemm]") {
  std::ostringstream out;
  print_gemm_table(out, grouped_run());
  const std::string text = out.str();
  CHECK_THAT(text, ContainsSubstring("groups"));
  CHECK_THAT(text, ContainsSubstring("uniform"));
  CHECK_THAT(text, ContainsSubstring("skewed"));
  CHECK_THAT(text, ContainsSubstring("compute per prompt token per node: 4.651 us"));
  // 26.55 ms / 4,096 = 6.482 us, 39.4% above 4.651.
  CHECK_THAT(text, ContainsSubstring("with skewed routing (1 expert in 8 at 4x the mean rows): "
                                     "compute per prompt token per node: 6.482 us (+39.4%)"));
}

TEST_CASE("auto runs NVFP4 on Blackwell, FP8 on Hopper and Ada, BF16 before", "[gemm]") {
  const PrecisionChoice gb10 = choose_precision({12, 1}, true, true);
  CHECK(gb10.precision == GemmPrecision::nvfp4);
  CHECK_THAT(gb10.reason, ContainsSubstring("12.1"));
  const PrecisionChoice h200 = choose_precision({9, 0}, false, true);
  CHECK(h200.precision == GemmPrecision::fp8);
  CHECK_THAT(h200.reason, ContainsSubstring("10.0 or later"));
  CHECK(choose_precision({8, 9}, false, true).precision == GemmPrecision::fp8);
  const PrecisionChoice a100 = choose_precision({8, 0}, false, false);
  CHECK(a100.precision == GemmPrecision::bf16);
  CHECK_THAT(a100.reason, ContainsSubstring("FP8 needs 8.9"));
  const PrecisionChoice no_lt = choose_precision({10, 0}, false, true);
  CHECK(no_lt.precision == GemmPrecision::fp8);
  CHECK_THAT(no_lt.reason, ContainsSubstring("offers no NVFP4"));
  CHECK(parse_precision("fp8") == GemmPrecision::fp8);
  CHECK_FALSE(parse_precision("auto").has_value());
  CHECK_FALSE(parse_precision("FP4").has_value());
}

TEST_CASE("dense peaks: H100/H200 from datasheets, GB10 FP4 approximate, others unknown",
          "[gemm]") {
  CHECK(dense_peak("NVIDIA H200", {9, 0}, GemmPrecision::fp8).tflops == 1979.0);
  CHECK(dense_peak("NVIDIA H200", {9, 0}, GemmPrecision::bf16).tflops == 989.0);
  CHECK(dense_peak("NVIDIA H100 80GB HBM3", {9, 0}, GemmPrecision::bf16).tflops == 989.0);
  CHECK(dense_peak("NVIDIA H100 PCIe", {9, 0}, GemmPrecision::fp8).tflops == 1513.0);
  const DevicePeak gb10 = dense_peak("NVIDIA GB10", {12, 1}, GemmPrecision::nvfp4);
  CHECK(gb10.tflops == 500.0);
  CHECK(gb10.approximate);
  const DevicePeak gb10_bf16 = dense_peak("NVIDIA GB10", {12, 1}, GemmPrecision::bf16);
  CHECK(gb10_bf16.tflops == 0.0);
  CHECK_THAT(gb10_bf16.source, ContainsSubstring("unknown"));
  CHECK(dense_peak("NVIDIA H200", {9, 0}, GemmPrecision::nvfp4).tflops == 0.0);
  const DevicePeak other = dense_peak("NVIDIA RTX 6000 Ada Generation", {8, 9}, GemmPrecision::fp8);
  CHECK(other.tflops == 0.0);
  CHECK_THAT(other.source, ContainsSubstring("not in"));
}

TEST_CASE("gemm totals: compute per prompt token is sum(count x median) / chunk", "[gemm]") {
  const GemmRun run = two_gemms();
  const GemmTotals t = totals(run);
  const double chunk_s = 78 * 500e-6 + 19200 * 10e-6;
  CHECK_THAT(t.seconds_per_chunk, WithinRel(chunk_s, 1e-12));
  CHECK_THAT(t.seconds_per_token, WithinRel(chunk_s / 4096, 1e-12));
  const double flops = 78 * 2.0 * 4096 * 6144 * 2048 + 19200 * 2.0 * 128 * 6144 * 256;
  CHECK_THAT(t.tflops, WithinRel(flops / chunk_s / 1e12, 1e-12));
  CHECK_THAT(t.share_of_peak, WithinRel(t.tflops / 500.0, 1e-12));
  CHECK_THAT(run.timings[0].tflops(), WithinRel(2.0 * 4096 * 6144 * 2048 / 500e-6 / 1e12, 1e-12));
}

TEST_CASE("the gemm CSV has the contract's header and one row per GEMM", "[gemm]") {
  std::ostringstream out;
  write_gemm_csv(out, two_gemms());
  std::istringstream in(out.str());
  std::string line;
  std::getline(in, line);
  CHECK(line.rfind("# tpnet-calibrate gemm date=2026-11-29T15:04:05Z device=NVIDIA GB10", 0) == 0);
  CHECK_THAT(line, ContainsSubstring(" experts=separate "));
  std::getline(in, line);
  CHECK(line ==
        "model,tp,chunk_tokens,precision,device,compute_capability,peak_tflops,gemm,m,n,k,count,"
        "median_s,tflops,groups,routing");
  std::getline(in, line);
  CHECK(line ==
        "glm-5.3,8,4096,nvfp4,NVIDIA GB10,12.1,500,attn.o,4096,6144,2048,78,5.000000e-04,"
        "206.158,1,none");
  std::getline(in, line);
  CHECK(line.rfind("glm-5.3,8,4096,nvfp4,NVIDIA GB10,12.1,500,moe.down,128,6144,256,19200,", 0) ==
        0);
  CHECK_THAT(line, EndsWith(",1,none"));
  CHECK_FALSE(std::getline(in, line));
}

TEST_CASE("tpnet reads the gemm CSV back with the same compute per prompt token", "[gemm]") {
  const GemmRun run = two_gemms();
  std::ostringstream out;
  write_gemm_csv(out, run);
  const tpnet::GemmRun back = tpnet::parse_gemm_csv(out.str(), "gemm.csv");
  CHECK(back.model == "glm-5.3");
  CHECK(back.tp == 8);
  CHECK(back.chunk_tokens == 4096);
  CHECK(back.precision == "nvfp4");
  CHECK(back.device == "NVIDIA GB10");
  CHECK(back.compute_capability == "12.1");
  CHECK(back.peak_tflops == 500.0);
  CHECK(back.date == "2026-11-29T15:04:05Z");
  REQUIRE(back.gemms.size() == 2);
  CHECK(back.gemms[1].name == "moe.down");
  CHECK(back.gemms[1].count == 19200);
  CHECK_THAT(back.per_prompt_token().value(), WithinRel(totals(run).seconds_per_token, 1e-6));
}

TEST_CASE("the gemm CSV is written whole or not at all, into an existing folder", "[gemm]") {
  // cmd_gemm writes --out through the shared tpnet::write_file_atomically.
  const auto dir = std::filesystem::temp_directory_path();
  const auto path = dir / "tpnet_gemm_report_test.csv";
  write_file_atomically(path.string(), "a,b\n1,2\n", "--out");
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  CHECK(text.str() == "a,b\n1,2\n");
  std::filesystem::remove(path);
  const std::string missing = (dir / "no_such_folder" / "x.csv").string();
  CHECK_THROWS_AS(write_file_atomically(missing, "x", "--out"), InputError);
  CHECK_THROWS_WITH(write_file_atomically(missing, "x", "--out"),
                    ContainsSubstring("--out " + missing + ": folder"));
}

TEST_CASE("the gemm CSV replaces a symlink's target and keeps a file's mode", "[gemm]") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("tpnet_gemm_report_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto real = dir / "real.csv";
  { std::ofstream(real) << "old\n"; }
  std::filesystem::permissions(real, std::filesystem::perms(0640));
  std::filesystem::create_symlink("real.csv", dir / "link.csv");
  write_file_atomically((dir / "link.csv").string(), "a,b\n", "--out");
  CHECK(std::filesystem::is_symlink(dir / "link.csv"));
  std::ifstream file(real);
  std::stringstream text;
  text << file.rdbuf();
  CHECK(text.str() == "a,b\n");
  CHECK(std::filesystem::status(real).permissions() == std::filesystem::perms(0640));
  CHECK_THROWS_WITH(write_file_atomically(dir.string(), "x", "--out"),
                    "--out " + dir.string() +
                        ": is a directory, not a regular file; give a file "
                        "path");
  CHECK(std::distance(std::filesystem::directory_iterator(dir),
                      std::filesystem::directory_iterator()) == 2);  // no temporary file left
  std::filesystem::remove_all(dir);
}

TEST_CASE("the gemm table prints every GEMM with units and the totals", "[gemm]") {
  std::ostringstream out;
  print_gemm_table(out, two_gemms());
  const std::string text = out.str();
  CHECK_THAT(text, ContainsSubstring("(us)"));
  CHECK_THAT(text, ContainsSubstring("(TFLOP/s)"));
  CHECK_THAT(text, ContainsSubstring("attn.o"));
  CHECK_THAT(text, ContainsSubstring("moe.down"));
  CHECK_THAT(text, ContainsSubstring("compute per prompt token per node: 56.396 us"));
  CHECK_THAT(text, ContainsSubstring("dense NVFP4 peak (approximate)"));
}
