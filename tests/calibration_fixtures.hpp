#pragma once
// A calibration built by hand, shared by the tests of what reads, writes and
// prices it (test_measured_allreduce, test_point_estimate,
// test_calibration_yaml, test_calibration): 4 ranks on 200G with a curve
// whose interpolations are worked by hand in those tests.

#include <string>

#include "catch.hpp"
#include "tpnet/measured/calibration.hpp"

namespace tpnet::test {

/// A measured size whose busbw is 1.5 x its algbw (4 ranks: 2(N-1)/N).
inline CalibrationPoint point(double size, double time_us) {
  const Seconds t(time_us / 1e6);
  return CalibrationPoint{Bytes(size), t, Bytes(size) / t, Bytes(size) / t * 1.5};
}

/// 4 ranks on 200G: alpha 10 us, beta 120 Gb/s; measured 100 us at 1 MB,
/// 400 us at 4 MB, 1000 us at 16 MB.
inline AllReduceCalibration four_ranks() {
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

/// Every section of a calibration.yaml filled, with values that test the
/// writer's quoting and precision (a third of 1e-5, a '#' in a note).
inline Calibration full_calibration() {
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

/// `text` with its first `from` replaced by `to`; `from` must be there.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace tpnet::test
