// calibration.yaml and the point estimates: the curve's interpolation and
// its scaling to other links and rank counts by hand-computed numbers, the
// YAML round trip, every bad input named by file and line, the gemm CSV, and
// the nccl-tests additions (tpnet-calibrate provenance, --partial, counts).

#include <algorithm>
#include <cmath>
#include <string>

#include "catch.hpp"
#include "golden.hpp"
#include "tpnet/io/calibration_yaml.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/io/gemm_csv.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/measured/calibration.hpp"
#include "tpnet/measured/point_estimate.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/transfer_time.hpp"
#include "tpnet/usecase/calibration_use.hpp"
#include "tpnet/usecase/penalty.hpp"

using namespace tpnet;

namespace {

CalibrationPoint point(double size, double time_us) {
  const Seconds t(time_us / 1e6);
  return CalibrationPoint{Bytes(size), t, Bytes(size) / t, Bytes(size) / t * 1.5};
}

/// 4 ranks on 200G: alpha 10 us, beta 120 Gb/s; measured 100 us at 1 MB,
/// 400 us at 4 MB, 1000 us at 16 MB.
AllReduceCalibration four_ranks() {
  AllReduceCalibration c;
  c.source = "sweep.txt";
  c.ranks = 4;
  c.link = "200G";
  c.link_rate = BitRate::gigabits_per_second(200.0);
  c.dtype = "bf16";
  c.alpha = Seconds::microseconds(10.0);
  c.beta = BitRate::gigabits_per_second(120.0);
  c.step_latency = c.alpha / 6.0;
  c.rms_relative_error = 0.01;
  c.max_relative_error = 0.02;
  c.min_size = Bytes(1e6);
  c.max_size = Bytes(16e6);
  c.points = 3;
  c.curve = {point(1e6, 100.0), point(4e6, 400.0), point(16e6, 1000.0)};
  return c;
}

double us(Seconds t) { return t.value() * 1e6; }

}  // namespace

TEST_CASE("the measured curve: exact at measured sizes, log-log between them",
          "[calibration][golden]") {
  const AllReduceCalibration c = four_ranks();
  CHECK_THAT(us(measured_allreduce_time(c, Bytes(1e6))), WithinRel(100.0, 1e-12));
  CHECK_THAT(us(measured_allreduce_time(c, Bytes(16e6))), WithinRel(1000.0, 1e-12));
  // 2 MB is halfway in log size between 1 and 4 MB: 100 x (400/100)^0.5 = 200 us.
  CHECK_THAT(us(measured_allreduce_time(c, Bytes(2e6))), WithinRel(200.0, 1e-12));
  // 8 MB: 400 x (1000/400)^0.5 = 632.456 us.
  CHECK_THAT(us(measured_allreduce_time(c, Bytes(8e6))), WithinRel(400.0 * std::sqrt(2.5), 1e-12));
}

TEST_CASE("outside the measured sizes the fitted alpha-beta line applies",
          "[calibration][golden]") {
  const AllReduceCalibration c = four_ranks();
  // 32 MB: 10 us + 1.5 x 32e6 x 8 / 120e9 = 10 + 3200 us.
  CHECK_THAT(us(measured_allreduce_time(c, Bytes(32e6))), WithinRel(3210.0, 1e-12));
  // 100 kB: 10 us + 1.5 x 1e5 x 8 / 120e9 = 10 + 10 us.
  CHECK_THAT(us(measured_allreduce_time(c, Bytes(1e5))), WithinRel(20.0, 1e-12));
  // A negative fitted alpha makes the line useless for tiny blocks: the
  // smallest measured time stands in.
  AllReduceCalibration negative = c;
  negative.alpha = Seconds::microseconds(-5.0);
  CHECK_THAT(us(measured_allreduce_time(negative, Bytes(100.0))), WithinRel(100.0, 1e-12));
}

TEST_CASE("a slower link stretches only the transfer part: 10 + (200 - 10) x 2 = 390 us",
          "[calibration][golden]") {
  const AllReduceCalibration c = four_ranks();
  const BitRate g200 = BitRate::gigabits_per_second(200.0);
  const BitRate g100 = BitRate::gigabits_per_second(100.0);
  CHECK_THAT(us(calibrated_allreduce_time(c, Bytes(2e6), 4, g200)), WithinRel(200.0, 1e-12));
  CHECK_THAT(us(calibrated_allreduce_time(c, Bytes(2e6), 4, g100)), WithinRel(390.0, 1e-12));
  // The fitted beta moves with the link: 120 Gb/s x 100/200.
  CHECK_THAT(calibrated_rate(c, g100).bits_per_second(), WithinRel(60e9, 1e-12));
  // A negative alpha counts as 0: all of the measured time is transfer.
  AllReduceCalibration negative = c;
  negative.alpha = Seconds::microseconds(-5.0);
  CHECK_THAT(us(calibrated_allreduce_time(negative, Bytes(2e6), 4, g100)), WithinRel(400.0, 1e-12));
}

TEST_CASE("another rank count keeps the latency per step and the bytes each rank sends",
          "[calibration][golden]") {
  const AllReduceCalibration c = four_ranks();
  const BitRate g200 = BitRate::gigabits_per_second(200.0);
  // TP8 from a 4-rank sweep: alpha x 14/6 = 23.333 us; the 2 MB block sends
  // as much per rank as 2 MB x 1.75/1.5 = 2.333 MB did on 4 ranks, measured
  // (t proportional to size between 1 and 4 MB) 233.333 us; 233.333 - 10 =
  // 223.333 us of transfer. Total 246.667 us.
  CHECK_THAT(us(calibrated_allreduce_time(c, Bytes(2e6), 8, g200)),
             WithinRel(10.0 * 14.0 / 6.0 + (700.0 / 3.0 - 10.0), 1e-12));
  CHECK_THAT(us(calibrated_allreduce_time(c, Bytes(2e6), 8, g200)), WithinRel(246.6667, 1e-6));
  CHECK_THROWS_AS(calibrated_allreduce_time(c, Bytes(2e6), 1, g200), InputError);
}

namespace {

/// glm-5.3 TP8 on 200G, measured at exactly the blocks of 1,024 and 4,096
/// tokens (S = t x 6,144 x 2): 1,000 us and 3,800 us; alpha 20 us.
AllReduceCalibration glm_tp8() {
  AllReduceCalibration c = four_ranks();
  c.ranks = 8;
  c.alpha = Seconds::microseconds(20.0);
  c.beta = BitRate::gigabits_per_second(190.0);
  c.curve = {point(1e3, 30.0), point(12582912.0, 1000.0), point(50331648.0, 3800.0),
             point(1e9, 75000.0)};
  return c;
}

}  // namespace

TEST_CASE("prefill point: 157 all-reduces per forward, a full chunk and a partial one",
          "[calibration][golden]") {
  const ModelArch model = resolve_model("glm-5.3");
  EngineConfig engine;
  engine.tensor_parallel_size = 8;
  const AllReduceCalibration c = glm_tp8();
  const BitRate g200 = BitRate::gigabits_per_second(200.0);
  const BitRate g100 = BitRate::gigabits_per_second(100.0);
  // 5,120 tokens = one 4,096-token forward and one of 1,024.
  const PrefillPoint p = point_prefill(c, model, engine, ParallelLayout{8, 1, 1},
                                       PromptSpec{1, 5120}, g200, g100, Seconds(0.5e-3));
  CHECK(p.forwards == 2);
  CHECK(p.last_tokens == 1024);
  // 157 x (3,800 + 1,000) us at 200G; at 100G the transfer doubles:
  // 157 x ((20 + 2 x 3,780) + (20 + 2 x 980)) us.
  CHECK_THAT(p.comm_from.value(), WithinRel(157 * 4800e-6, 1e-12));
  CHECK_THAT(p.comm_to.value(), WithinRel(157 * 9560e-6, 1e-12));
  CHECK_THAT(p.extra.value(), WithinRel(157 * 4760e-6, 1e-12));
  // Compute 0.5 ms x 5,120 = 2.56 s: share 0.7536 / 3.3136, increase 0.74732 / 3.3136.
  REQUIRE(p.compute);
  CHECK_THAT(p.compute->value(), WithinRel(2.56, 1e-12));
  CHECK_THAT(*p.network_share, WithinRel(0.7536 / 3.3136, 1e-12));
  CHECK_THAT(*p.ttft_increase, WithinRel(0.74732 / 3.3136, 1e-12));
  // Without compute: no share.
  const PrefillPoint bare =
      point_prefill(c, model, engine, ParallelLayout{8, 1, 1}, PromptSpec{1, 5120}, g200, g100);
  CHECK_FALSE(bare.network_share);
}

TEST_CASE("decode point: one all-reduce of the decode block, all of a forward, the gather",
          "[calibration][golden]") {
  const ModelArch model = resolve_model("glm-5.3");
  EngineConfig engine;
  engine.tensor_parallel_size = 8;
  const AllReduceCalibration c = glm_tp8();
  const BitRate g200 = BitRate::gigabits_per_second(200.0);
  const BitRate g100 = BitRate::gigabits_per_second(100.0);
  const Bytes logits(1e6);
  const DecodePoint d = point_decode(c, model, engine, 1, logits, g200, g100);
  CHECK(d.block.count() == 12288.0);
  const Seconds at200 = measured_allreduce_time(c, Bytes(12288.0));
  CHECK_THAT(d.allreduce_from.value(), WithinRel(at200.value(), 1e-12));
  CHECK_THAT(d.allreduce_to.value(), WithinRel(20e-6 + (at200.value() - 20e-6) * 2.0, 1e-12));
  // Gather: 7 steps of 20/14 us plus 1 MB at 190 Gb/s (95 at 100G).
  const double gather200 = 7 * 20e-6 / 14 + 8e6 / 190e9;
  const double gather100 = 7 * 20e-6 / 14 + 8e6 / 95e9;
  CHECK_THAT(d.forward_comm_from.value(), WithinRel(157 * at200.value() + gather200, 1e-12));
  CHECK_THAT(
      d.added_per_forward.value(),
      WithinRel(157 * (d.allreduce_to - d.allreduce_from).value() + gather100 - gather200, 1e-9));
}

TEST_CASE("compute per token divides evenly over another layout's nodes", "[calibration]") {
  ComputeCalibration m;
  m.tp = 8;
  m.per_prompt_token = Seconds(0.6e-3);
  CHECK_THAT(compute_per_token_for(m, ParallelLayout{8, 1, 1}).value(), WithinRel(0.6e-3, 1e-12));
  CHECK_THAT(compute_per_token_for(m, ParallelLayout{16, 1, 1}).value(), WithinRel(0.3e-3, 1e-12));
  CHECK_THAT(compute_per_token_for(m, ParallelLayout{4, 2, 1}).value(), WithinRel(0.6e-3, 1e-12));
}

namespace {

Calibration full_calibration() {
  Calibration c;
  c.provenance.date = "2026-11-29T15:04:05Z";
  c.provenance.tool = "tpnet calibration";
  c.provenance.hosts = {"spark-1", "spark-2", "spark \"3\""};
  c.provenance.nccl_version = "2.28.3";
  c.provenance.backend = "nccl";
  c.provenance.env = {{"NCCL_ALGO", "Ring"}, {"NCCL_IB_HCA", "rocep1s0f0,roceP2p1s0f0"}};
  c.provenance.note = "SYNTHETIC: # not a comment";
  c.allreduce = four_ranks();
  c.allreduce->complete = false;
  c.allreduce->alpha = Seconds(1.0 / 3.0 * 1e-5);
  ComputeCalibration m;
  m.source = "gemm.csv";
  m.model = "glm-5.3";
  m.tp = 8;
  m.chunk_tokens = 4096;
  m.precision = "nvfp4";
  m.device = "NVIDIA GB10";
  m.compute_capability = "12.1";
  m.gemms = 11;
  m.forward_time = Seconds(2.4576);
  m.per_prompt_token = Seconds(2.4576 / 4096);
  c.compute = m;
  TrafficCalibration t;
  t.source = "counters.csv";
  t.model = "glm-5.3";
  t.tp = 8;
  t.prompt_tokens = 8192;
  t.phase = "prefill";
  t.devices = 2;
  t.xmit_bytes = Bytes(29e9 + 0.25);
  t.measured_per_token = t.xmit_bytes / 8192.0;
  t.formula_per_token = Bytes(3376128.0);
  t.ratio = t.measured_per_token / t.formula_per_token;
  c.traffic = t;
  return c;
}

std::string error_of(const std::string& text) {
  try {
    (void)parse_calibration_yaml(text, "cal.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("calibration.yaml round trip: every value reads back exactly", "[calibration][yaml]") {
  const Calibration c = full_calibration();
  const std::string text = write_calibration_yaml(c);
  const Calibration r = parse_calibration_yaml(text, "cal.yaml");
  CHECK(r.origin == "cal.yaml");
  CHECK(r.provenance.date == c.provenance.date);
  CHECK(r.provenance.tool == c.provenance.tool);
  CHECK(r.provenance.hosts == c.provenance.hosts);
  CHECK(r.provenance.nccl_version == c.provenance.nccl_version);
  CHECK(r.provenance.backend == c.provenance.backend);
  CHECK(r.provenance.env == c.provenance.env);
  CHECK(r.provenance.note == c.provenance.note);
  REQUIRE(r.allreduce);
  const auto& a = *r.allreduce;
  const auto& e = *c.allreduce;
  CHECK(a.source == e.source);
  CHECK(a.ranks == e.ranks);
  CHECK(a.link == e.link);
  CHECK(a.link_rate == e.link_rate);
  CHECK(a.dtype == e.dtype);
  CHECK(a.complete == e.complete);
  CHECK(a.alpha == e.alpha);
  CHECK(a.beta == e.beta);
  CHECK(a.step_latency == e.step_latency);
  CHECK(a.rms_relative_error == e.rms_relative_error);
  CHECK(a.max_relative_error == e.max_relative_error);
  CHECK(a.min_size == e.min_size);
  CHECK(a.max_size == e.max_size);
  CHECK(a.points == e.points);
  REQUIRE(a.curve.size() == e.curve.size());
  for (std::size_t i = 0; i < a.curve.size(); ++i) {
    CHECK(a.curve[i].size == e.curve[i].size);
    CHECK(a.curve[i].time == e.curve[i].time);
    CHECK(a.curve[i].algbw == e.curve[i].algbw);
    CHECK(a.curve[i].busbw == e.curve[i].busbw);
  }
  REQUIRE(r.compute);
  CHECK(r.compute->model == "glm-5.3");
  CHECK(r.compute->tp == 8);
  CHECK(r.compute->chunk_tokens == 4096);
  CHECK(r.compute->precision == "nvfp4");
  CHECK(r.compute->device == "NVIDIA GB10");
  CHECK(r.compute->compute_capability == "12.1");
  CHECK(r.compute->gemms == 11);
  CHECK(r.compute->forward_time == c.compute->forward_time);
  CHECK(r.compute->per_prompt_token == c.compute->per_prompt_token);
  REQUIRE(r.traffic);
  CHECK(r.traffic->phase == "prefill");
  CHECK(r.traffic->devices == 2);
  CHECK(r.traffic->prompt_tokens == 8192);
  CHECK(r.traffic->xmit_bytes == c.traffic->xmit_bytes);
  CHECK(r.traffic->measured_per_token == c.traffic->measured_per_token);
  CHECK(r.traffic->formula_per_token == c.traffic->formula_per_token);
  CHECK(r.traffic->ratio == c.traffic->ratio);
  // Written again, the text is the same.
  CHECK(write_calibration_yaml(r) == text);
}

TEST_CASE("calibration.yaml bad input names the file, line and key", "[calibration][yaml]") {
  const std::string good = write_calibration_yaml(full_calibration());
  REQUIRE(error_of(good) == "(no error)");
  CHECK_THAT(error_of(replaced(good, "tpnet_calibration: 1", "tpnet_calibration: 2")),
             ContainsSubstring("cal.yaml:3: tpnet_calibration: is '2'; this tpnet reads "
                               "calibration schema version 1"));
  CHECK_THAT(error_of(replaced(good, "tpnet_calibration: 1\n", "")),
             ContainsSubstring("tpnet_calibration: has no 'tpnet_calibration: 1' line"));
  CHECK_THAT(error_of(good + "extra: 1\n"),
             ContainsSubstring("extra: unknown key; allowed keys are tpnet_calibration, "
                               "provenance, allreduce, compute, traffic"));
  CHECK_THAT(error_of(replaced(good, "  ranks: 4", "  ranks: 4\n  rnaks: 5")),
             ContainsSubstring("allreduce.rnaks: unknown key"));
  CHECK_THAT(error_of(replaced(good, "time_s: 0.0004,", "time_s: -0.0004,")),
             ContainsSubstring("allreduce.curve[1].time_s: is -0.0004; must be positive"));
  CHECK_THAT(error_of(replaced(good, "{size_bytes: 1000000,", "{size_bytes: 0,")),
             ContainsSubstring("allreduce.curve[0].size_bytes: is 0; a size of 0"));
  CHECK_THAT(error_of(replaced(good, "{size_bytes: 4000000,", "{size_bytes: 1000000,")),
             ContainsSubstring("curve sizes must be strictly increasing"));
  CHECK_THAT(error_of(replaced(good, "  ranks: 4", "  ranks: 1")),
             ContainsSubstring("allreduce.ranks: 1 is out of range; allowed 2 to"));
  CHECK_THAT(error_of(replaced(good, "    beta_bps: 120000000000\n", "")),
             ContainsSubstring("allreduce.fit.beta_bps: required key is missing"));
  CHECK_THAT(error_of(replaced(good, "  per_prompt_token_s:", "  per_prompt_token_s: -1\n  x:")),
             ContainsSubstring("compute.x: unknown key"));
  CHECK_THAT(error_of(replaced(good, "  phase: \"prefill\"", "  phase: \"decode\"")),
             ContainsSubstring("traffic.phase: is 'decode'; allowed all, prefill"));
  // Line numbers: the negative time sits on the curve's second line.
  const std::string negative = replaced(good, "time_s: 0.0004,", "time_s: -0.0004,");
  const std::string before = negative.substr(0, negative.find("-0.0004"));
  const auto line = 1 + std::count(before.begin(), before.end(), '\n');
  CHECK_THAT(error_of(negative), ContainsSubstring("cal.yaml:" + std::to_string(line) + ":"));
  // Sections: provenance is required, and at least one measurement.
  CHECK_THAT(error_of("tpnet_calibration: 1\nprovenance:\n  date: \"2026-01-01\"\n"),
             ContainsSubstring("cal.yaml: has no measurement"));
  CHECK_THAT(error_of("tpnet_calibration: 1\n"),
             ContainsSubstring("provenance: required section is missing"));
  CHECK_THAT(error_of("tpnet_calibration: 1\nprovenance: [1]\n"),
             ContainsSubstring("cal.yaml:2: provenance: expected a mapping"));
  CHECK_THAT(error_of("tpnet_calibration: [1\n"), ContainsSubstring("not valid YAML"));
}

TEST_CASE("check_calibration warns on another TP, link, NCCL version or backend, and drops compute",
          "[calibration]") {
  const ModelArch model = resolve_model("glm-5.3");
  EngineConfig engine;
  engine.tensor_parallel_size = 16;
  Calibration c = full_calibration();
  c.origin = "cal.yaml";
  c.allreduce->ranks = 8;
  c.allreduce->complete = true;
  c.provenance.backend = "mpi";
  CalibrationAsk request;
  request.tps = {16};
  request.from = {parse_link("100G", InputLocation::for_key("--from"))};
  auto input = [&] { return CalibrationInput{std::make_shared<const Calibration>(c), "2.21.5"}; };
  const CalibrationInput given = input();
  const CalibrationUse use = check_calibration(given, model, engine, request);
  CHECK(use.allreduce == &*given.file->allreduce);
  CHECK(use.compute == nullptr);
  std::string all;
  for (const auto& w : use.warnings) all += w + "\n";
  CHECK_THAT(all, ContainsSubstring("cal.yaml: the all-reduce sweep ran on 8 ranks, not TP16"));
  CHECK_THAT(all, ContainsSubstring("measured on 200G (200 Gb/s), not on 100G"));
  CHECK_THAT(all, ContainsSubstring("measured with NCCL 2.28.3, not the 2.21.5 asked"));
  CHECK_THAT(all, ContainsSubstring("MPI backend"));
  CHECK_THAT(all, ContainsSubstring("compute section is not used for the network share: it was "
                                    "measured at TP8, not TP16"));
  // compare projects compute over layouts instead.
  request.project_compute = true;
  const CalibrationUse projected = check_calibration(given, model, engine, request);
  CHECK(projected.compute == &*given.file->compute);
  // The same TP, link and version: nothing to say but the backend.
  engine.tensor_parallel_size = 8;
  c.allreduce->ranks = 8;
  c.provenance.backend = "nccl";
  request = CalibrationAsk{{8}, {parse_link("200G", InputLocation::for_key("--from"))}, false};
  const CalibrationInput same{std::make_shared<const Calibration>(c), "2.28.3"};
  const CalibrationUse clean = check_calibration(same, model, engine, request);
  CHECK(clean.warnings.empty());
  CHECK(clean.compute == &*same.file->compute);
  // No sweep: refused.
  c.allreduce.reset();
  CHECK_THROWS_WITH(check_calibration(CalibrationInput{std::make_shared<const Calibration>(c), ""},
                                      model, engine, request),
                    ContainsSubstring("cal.yaml: allreduce: has no allreduce section"));
}

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

const std::string kSweepHead =
    "# tpnet-calibrate allreduce backend=mpi date=2026-11-29T15:04:05Z hosts=h1,h2 ranks=2 "
    "nccl=none algo=Ring proto=Simple dtype=bf16 op=sum\n"
    "#  Rank  0 Group  0 Pid 1234 on h1 device  0 [0x01] CPU\n"
    "#  Rank  1 Group  0 Pid 1235 on h2 device  0 [0x01] CPU\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
    "time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
    "(us)  (GB/s)  (GB/s)\n";
const std::string kSweepRows =
    "        1024           512  bfloat16     sum      -1    20.00    0.05    0.05       0    "
    "20.10    0.05    0.05       0\n"
    "     1048576        524288  bfloat16     sum      -1    120.0    8.74    8.74       0    "
    "121.0    8.67    8.67       0\n";
const std::string kSweepFoot = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 4.4\n";

std::string sweep_error_of(const std::string& text, bool partial = false) {
  try {
    NcclTestsReadOptions options;
    options.allow_truncated = partial;
    (void)parse_nccl_tests(text, "ar.txt", options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a tpnet-calibrate sweep: provenance line, hosts from the Rank lines", "[nccl-tests]") {
  const AllReduceSweep s = parse_nccl_tests(kSweepHead + kSweepRows + kSweepFoot, "ar.txt");
  CHECK(s.ranks == 2);
  CHECK(s.hosts == std::vector<std::string>{"h1", "h2"});
  CHECK(s.provenance.at("backend") == "mpi");
  CHECK(s.provenance.at("date") == "2026-11-29T15:04:05Z");
  CHECK(s.provenance.at("hosts") == "h1,h2");
  CHECK(s.provenance.at("algo") == "Ring");
  CHECK(s.provenance.at("dtype") == "bf16");
  CHECK(s.nccl_version.empty());  // nccl=none: the MPI backend
  CHECK(s.complete);
  const AllReduceSweep nccl = parse_nccl_tests(
      replaced(kSweepHead, "nccl=none", "nccl=2.28.3") + kSweepRows + kSweepFoot, "ar.txt");
  CHECK(nccl.nccl_version == "2.28.3");
}

TEST_CASE("a killed sweep read with allow_truncated: no footer, a cut-off last row",
          "[nccl-tests]") {
  const std::string killed = kSweepHead + kSweepRows + "    4194304     2097152  bfloat16  sum";
  CHECK_THAT(sweep_error_of(killed), ContainsSubstring("ar.txt:8: has 4 cells"));
  CHECK_THAT(sweep_error_of(kSweepHead + kSweepRows),
             ContainsSubstring("ends without the '# Avg bus bandwidth' footer"));
  NcclTestsReadOptions options;
  options.allow_truncated = true;
  const AllReduceSweep s = parse_nccl_tests(killed, "ar.txt", options);
  CHECK_FALSE(s.complete);
  CHECK(s.samples.size() == 2);
  REQUIRE(s.notes.size() == 2);
  CHECK_THAT(s.notes[0], ContainsSubstring("ar.txt:8: has 4 cells"));
  CHECK_THAT(s.notes[1], ContainsSubstring("a partial sweep of 2 size(s), up to 1048576 B"));
  // A cut-off row that is not the last one is still an error.
  CHECK_THAT(
      sweep_error_of(kSweepHead + "    4194304     2097152  bfloat16  sum\n" + kSweepRows, true),
      ContainsSubstring("ar.txt:6: has 4 cells"));
}

TEST_CASE("a size that is not count x the element size is refused", "[nccl-tests]") {
  CHECK_THAT(
      sweep_error_of(kSweepHead + replaced(kSweepRows, "1024           512", "1023           512") +
                     kSweepFoot),
      ContainsSubstring("ar.txt:6: size: size 1023 B is not count 512 x 2 B (bfloat16)"));
  CHECK_THAT(
      sweep_error_of(kSweepHead + replaced(kSweepRows, "1024           512", "1023           512") +
                     kSweepFoot),
      ContainsSubstring("not a multiple of 2 B"));
  CHECK_THAT(
      sweep_error_of(kSweepHead + replaced(kSweepRows, "1024           512", "1024           256") +
                     kSweepFoot),
      ContainsSubstring("is not count 256 x 2 B"));
}

TEST_CASE("measured traffic per prompt token against the formula", "[calibration]") {
  const ModelArch model = resolve_model("glm-5.3");
  EngineConfig engine;
  engine.tensor_parallel_size = 8;
  // Two devices, 1 s apart, each 14.5 GB in 4-byte units: 29 GB over 8,192 tokens.
  const std::string csv =
      "time_s,device,port,port_xmit_data,port_rcv_data\n"
      "0.000000,rocep1s0f0,1,0,0\n"
      "0.000000,roceP2p1s0f0,1,0,0\n"
      "1.000000,rocep1s0f0,1,3625000000,3625000000\n"
      "1.000000,roceP2p1s0f0,1,3625000000,3625000000\n";
  const CounterSeries series = parse_counters_csv(csv, "counters.csv");
  const TrafficCalibration t = measure_traffic(series, nullptr, 8192, model, engine, "c.csv");
  CHECK(t.phase == "all");
  CHECK(t.devices == 2);
  CHECK_THAT(t.xmit_bytes.count(), WithinRel(29e9, 1e-12));
  CHECK_THAT(t.measured_per_token.count(), WithinRel(29e9 / 8192, 1e-12));
  CHECK(t.formula_per_token.count() == 3376128.0);
  CHECK_THAT(t.ratio, WithinRel(29e9 / 8192 / 3376128.0, 1e-12));
  // Request timings: only the prefill half of the second counts.
  const std::vector<RequestTiming> requests{{"r1", Seconds(0.0), Seconds(0.5), Seconds(1.0)}};
  const TrafficCalibration p = measure_traffic(series, &requests, 8192, model, engine, "c.csv");
  CHECK(p.phase == "prefill");
  CHECK_THAT(p.xmit_bytes.count(), WithinRel(14.5e9, 1e-12));
  CHECK_THROWS_AS(measure_traffic(series, nullptr, 0, model, engine, "c.csv"), InputError);
}

TEST_CASE("GLM-5.3 P2 from the synthetic calibration: +1.13 s and 18.8% beside the +1.11 s bound",
          "[calibration][golden]") {
  const Calibration c =
      load_calibration_yaml(std::string(TPNET_SOURCE_DIR) +
                            "/examples/calibration/calibration_glm53_tp8_200g_synthetic.yaml");
  REQUIRE(c.allreduce);
  REQUIRE(c.compute);
  const ModelArch model = resolve_model("glm-5.3");
  EngineConfig engine;
  engine.tensor_parallel_size = 8;
  const BitRate g200 = BitRate::gigabits_per_second(200.0);
  const BitRate g100 = BitRate::gigabits_per_second(100.0);
  const Bytes block(50331648.0);
  // formulas.md s.19's worked example, to its printed precision.
  CHECK(test::prints_as(calibrated_allreduce_time(*c.allreduce, block, 8, g200).value() * 1e6,
                        3635.21, 2));
  CHECK(test::prints_as(calibrated_allreduce_time(*c.allreduce, block, 8, g100).value() * 1e6,
                        7232.62, 2));
  const PrefillPoint p =
      point_prefill(*c.allreduce, model, engine, ParallelLayout{8, 1, 1}, PromptSpec{1, 8192}, g200,
                    g100, compute_per_token_for(*c.compute, ParallelLayout{8, 1, 1}));
  CHECK(p.forwards == 2);
  CHECK(test::prints_as(p.comm_from.value(), 1.1415, 4));
  CHECK(test::prints_as(p.comm_to.value(), 2.2710, 4));
  CHECK(test::prints_as(p.extra.value(), 1.1296, 4));
  CHECK(test::prints_as(p.compute->value(), 4.9153, 4));
  CHECK(test::prints_as(*p.network_share * 100.0, 18.85, 2));
  CHECK(test::prints_as(*p.ttft_increase * 100.0, 18.65, 2));
  // The bound it stands beside: 27,657,240,576 B x 8 / 200 Gb/s.
  const Seconds bound = extra_transfer_time(Bytes(27657240576.0), g200, g100);
  CHECK(test::prints_as(bound.value(), 1.1063, 4));
  CHECK(p.extra > bound);
}
