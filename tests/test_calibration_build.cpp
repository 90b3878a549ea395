// `tpnet calibration` as a use case (tpnet/usecase/calibration_build.hpp,
// docs/calibration.md): a sweep fitted and its provenance reconciled with
// what the caller states, the GEMMs summed, and what looked doubtful warned.

#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/usecase/calibration_build.hpp"

using namespace tpnet;

namespace {

/// A tpnet-calibrate sweep on 2 ranks (SYNTHETIC): 20 us at 1 KiB, 120 us at 1 MiB,
/// run with NCCL's tree algorithm.
const std::string kSweep =
    "# tpnet-calibrate allreduce backend=nccl date=2026-11-29T15:04:05Z hosts=h1,h2 ranks=2 "
    "nccl=2.28.3 algo=Tree proto=Simple dtype=bf16 op=sum\n"
    "#  Rank  0 Group  0 Pid 1234 on h1 device  0 [0x01] NVIDIA GB10\n"
    "#  Rank  1 Group  0 Pid 1235 on h2 device  0 [0x01] NVIDIA GB10\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
    "time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
    "(us)  (GB/s)  (GB/s)\n"
    "        1024           512  bfloat16     sum      -1    20.00    0.05    0.05       0    "
    "20.10    0.05    0.05       0\n"
    "     1048576        524288  bfloat16     sum      -1    120.0    8.74    8.74       0    "
    "121.0    8.67    8.67       0\n"
    "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 4.4\n";

SweepInput sweep_input() {
  SweepInput in;
  in.sweep = parse_nccl_tests(kSweep, "ar.txt");
  in.link = parse_link("200G", InputLocation::for_key("link"));
  return in;
}

bool warned(const CalibrationBuildReport& r, const std::string& text) {
  return std::any_of(r.warnings.begin(), r.warnings.end(),
                     [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("a sweep is fitted and its own provenance kept where the caller states none",
          "[calibration]") {
  CalibrationBuildRequest request;
  request.allreduce = sweep_input();
  request.tool = "tpnet calibration";
  request.fallback_date = "2000-01-01";
  const CalibrationBuildReport r = build_calibration(request);
  REQUIRE(r.calibration.allreduce);
  const AllReduceCalibration& a = *r.calibration.allreduce;
  CHECK(a.ranks == 2);
  CHECK(a.link == "200G");
  CHECK(a.dtype == "bf16");
  CHECK(a.source == "ar.txt");
  // Two sizes fix the line: at 2 ranks each sends the block once, so
  // 100 us more for 1,047,552 B more is beta = 1,047,552 x 8 / 100e-6 = 83.80 Gb/s,
  // and alpha = 20 us - 1,024 x 8 / beta = 19.902 us.
  CHECK_THAT(a.beta.bits_per_second(), WithinRel(1047552.0 * 8 / 100e-6, 1e-6));
  CHECK_THAT(a.alpha.value(), WithinRel(20e-6 - 8192.0 / (1047552.0 * 8 / 100e-6), 1e-6));
  CHECK_THAT(a.step_latency.value(), WithinRel(a.alpha.value() / 2, 1e-12));
  const CalibrationProvenance& p = r.calibration.provenance;
  CHECK(p.backend == "nccl");
  CHECK(p.date == "2026-11-29T15:04:05Z");  // the sweep's, not the fallback
  CHECK(p.hosts == std::vector<std::string>{"h1", "h2"});
  CHECK(p.nccl_version == "2.28.3");
  CHECK(p.env.at("NCCL_ALGO") == "Tree");
  CHECK(p.env.at("NCCL_PROTO") == "Simple");
  CHECK(p.tool == "tpnet calibration");
  // The ring's fit and curve were measured on another algorithm: said, not hidden.
  CHECK(warned(r, "ar.txt ran with algo=Tree: the ring fit and curve assume NCCL_ALGO=Ring"));
}

TEST_CASE("what the caller states wins over the files, and the fallback date fills the gap",
          "[calibration]") {
  CalibrationBuildRequest request;
  request.allreduce = sweep_input();
  request.date = "2026-12-01";
  request.hosts = {"spark-1", "spark-2"};
  request.env = {{"NCCL_ALGO", "Ring"}};
  request.note = "SYNTHETIC";
  const CalibrationBuildReport r = build_calibration(request);
  CHECK(r.calibration.provenance.date == "2026-12-01");
  CHECK(r.calibration.provenance.hosts == std::vector<std::string>{"spark-1", "spark-2"});
  CHECK(r.calibration.provenance.env.at("NCCL_ALGO") == "Ring");
  CHECK(r.calibration.provenance.note == "SYNTHETIC");

  // GEMMs alone: no date anywhere but the fallback's.
  GemmRun run;
  run.model = "glm-5.3";
  run.tp = 8;
  run.chunk_tokens = 4096;
  run.precision = "fp8";
  run.origin = "gemm.csv";
  GemmTiming g;
  g.name = "attn.o";
  g.count = 78;
  g.median = Seconds(0.002);
  run.gemms = {g};
  CalibrationBuildRequest gemms;
  gemms.compute = GemmInput{run, std::string("qwen3.6-27b")};
  gemms.fallback_date = "2026-12-04";
  const CalibrationBuildReport c = build_calibration(gemms);
  REQUIRE(c.calibration.compute);
  CHECK_FALSE(c.calibration.allreduce);
  // 78 x 2 ms = 0.156 s a 4,096-token forward.
  CHECK_THAT(c.calibration.compute->forward_time.value(), WithinRel(0.156, 1e-12));
  CHECK(c.calibration.provenance.date == "2026-12-04");
  CHECK(warned(c, "gemm.csv times glm-5.3, not the `model` qwen3.6-27b"));
  CHECK(warned(c, "ran fp8 GEMMs, not NVFP4"));
}

TEST_CASE("a calibration needs a measurement, and an all_reduce sweep",
          "[calibration][bad-input]") {
  try {
    (void)build_calibration(CalibrationBuildRequest{});
    FAIL("built a calibration of nothing");
  } catch (const InputError& e) {
    CHECK(e.where().key == "allreduce");
  }
  CalibrationBuildRequest gather;
  gather.allreduce = sweep_input();
  gather.allreduce->sweep.collective = Collective::all_gather;
  CHECK_THROWS_WITH(build_calibration(gather),
                    ContainsSubstring("a calibration fits all_reduce sweeps"));
}

TEST_CASE("calibration's document: the provenance, then a record per measurement given",
          "[calibration]") {
  CalibrationBuildRequest request;
  request.allreduce = sweep_input();
  request.tool = "tpnet calibration";
  const CalibrationBuildReport r = build_calibration(request);
  const Document doc = calibration_build_document(r);
  CHECK(doc.title == "tpnet calibration");
  CHECK(doc.answer.empty());
  CHECK(doc.warnings == r.warnings);
  std::vector<std::string> keys;
  for (const Field& f : doc.fields) keys.push_back(f.key);
  // No compute or traffic was measured: no record for them. The file it is
  // written to is the caller's to add.
  CHECK(keys == std::vector<std::string>{"date", "hosts", "nccl_version", "backend", "allreduce"});
  CHECK(doc.fields[0].text == "2026-11-29T15:04:05Z");
  CHECK(doc.fields[1].texts == std::vector<std::string>{"h1", "h2"});
  const Record& fit = doc.fields.back().records.at(0);
  std::vector<std::string> fit_keys;
  for (const Field& f : fit) fit_keys.push_back(f.key);
  CHECK(fit_keys == std::vector<std::string>{"source", "ranks", "link", "complete", "alpha_s",
                                             "beta_bps", "step_latency_s", "efficiency_pct",
                                             "rms_relative_error_pct", "max_relative_error_pct",
                                             "min_size_bytes", "max_size_bytes", "points",
                                             "curve_points"});
  CHECK(fit[1].number == 2.0);
  // beta 83.80 Gb/s on a 200 Gb/s link: 41.9% of it.
  CHECK_THAT(fit[7].number, WithinRel(1047552.0 * 8 / 100e-6 / 200e9 * 100.0, 1e-9));
}

TEST_CASE("an all-to-all sweep alone makes a calibration with its fit", "[calibration]") {
  CalibrationBuildRequest request;
  NcclTestsReadOptions read;
  read.collective = Collective::alltoall;
  // SYNTHETIC: made from 25 us and 160 Gb/s (tests/data/nccl-tests/SOURCES)
  request.alltoall =
      SweepInput{load_nccl_tests(std::string(TPNET_SOURCE_DIR) +
                                     "/tests/data/nccl-tests/synthetic-4rank-alltoall-bf16.txt",
                                 read),
                 parse_link("200G", InputLocation::for_key("link")),
                 std::nullopt,
                 {},
                 false};
  const CalibrationBuildReport r = build_calibration(request);
  REQUIRE(r.calibration.alltoall);
  const AllToAllCalibration& a = *r.calibration.alltoall;
  CHECK(a.ranks == 4);
  CHECK(a.link == "200G");
  CHECK(a.alpha.value() == Approx(25e-6).epsilon(0.01));
  CHECK(a.rate.bits_per_second() == Approx(160e9).epsilon(0.01));
  CHECK_FALSE(r.calibration.allreduce);
  const Document doc = calibration_build_document(r);
  CHECK(doc.fields.back().key == "alltoall");
}
