// tpnet calibration's summary as a document: the provenance, the all-reduce
// sweep's fit, the compute from timed GEMMs and the traffic from RDMA
// counters (docs/calibration.md, docs/json.md).
#include <fmt/format.h>

#include <string>
#include <utility>

#include "tpnet/usecase/calibration_build.hpp"

namespace tpnet {
namespace {

/// The residuals and the range fitted, which every sweep's fit reports.
template <typename Section>
Record fit_quality_fields(const Section& a) {
  return {
      number("rms_relative_error_pct", "RMS relative error", a.rms_relative_error * 100.0, kPercent,
             2),
      number("max_relative_error_pct", "largest relative error", a.max_relative_error * 100.0,
             kPercent, 2),
      number("min_size_bytes", "smallest size fitted", a.min_size.count(), kBytesB, 0),
      number("max_size_bytes", "largest size fitted", a.max_size.count(), kBytesB, 0),
      integer("points", "sizes fitted", a.points),
  };
}

Field calibration_allreduce_record(const AllReduceCalibration& a) {
  Record fields{
      text("source", "file", a.source),
      integer("ranks", "ranks", a.ranks),
      text("link", "measured on", a.link),
      flag("complete", "complete sweep", a.complete),
      number("alpha_s", "alpha (fixed time per all-reduce)", a.alpha.value(), kMicroseconds, 2),
      number("beta_bps", "beta (rate of bytes sent)", a.beta.bits_per_second(), kGbps, 1),
      number("step_latency_s", "latency per ring step", a.step_latency.value(), kMicroseconds, 2),
      number("efficiency_pct", "beta / link rate", a.beta / a.link_rate * 100.0, kPercent, 1),
  };
  Record quality = fit_quality_fields(a);
  fields.insert(fields.end(), quality.begin(), quality.end());
  fields.push_back(
      integer("curve_points", "sizes in the curve", static_cast<double>(a.curve.size())));
  return record("allreduce", "all-reduce sweep (ring)", std::move(fields));
}

Field calibration_alltoall_record(const AllToAllCalibration& a) {
  Record fields{
      text("source", "file", a.source),
      integer("ranks", "ranks", a.ranks),
      text("link", "measured on", a.link),
      number("alpha_s", "alpha (fixed time of one round)", a.alpha.value(), kMicroseconds, 2),
      number("rate_bps", "rate of the bytes a rank sends", a.rate.bits_per_second(), kGbps, 1),
  };
  Record quality = fit_quality_fields(a);
  fields.insert(fields.end(), quality.begin(), quality.end());
  return record("alltoall", "all-to-all sweep", std::move(fields));
}

Field calibration_compute_record(const ComputeCalibration& c) {
  Record fields{
      text("source", "file", c.source),
      text("model", "model", c.model),
      integer("tp", "tensor-parallel size", c.tp),
      integer("chunk_tokens", "chunk", static_cast<double>(c.chunk_tokens)),
      text("precision", "precision", c.precision),
      text("device", "device", c.device),
      integer("gemms", "GEMM shapes", c.gemms),
      text("experts", "routed experts timed", c.experts),
      number("forward_s", "GEMM time of one chunk forward", c.forward_time.value(), kMilliseconds,
             1),
      number("per_prompt_token_s", "compute per prompt token per node", c.per_prompt_token.value(),
             kMilliseconds, 4),
  };
  if (c.skewed_per_prompt_token) {
    fields.push_back(number("skewed_per_prompt_token_s", "the same, experts routed skewed",
                            c.skewed_per_prompt_token->value(), kMilliseconds, 4));
  }
  return record("compute", "compute (timed prefill GEMMs)", std::move(fields));
}

Field calibration_traffic_record(const TrafficCalibration& t) {
  return record(
      "traffic", "traffic (RDMA counters)",
      {
          text("source", "file", t.source),
          text("model", "model", t.model),
          integer("tp", "tensor-parallel size", t.tp),
          integer("prompt_tokens", "prompt tokens", static_cast<double>(t.prompt_tokens)),
          text("phase", "bytes counted", t.phase),
          integer("devices", "RDMA devices", t.devices),
          number("xmit_bytes", "transmitted", t.xmit_bytes.count(), kBytesGB, 2),
          number("measured_per_token_bytes", "measured per prompt token",
                 t.measured_per_token.count(), kBytesMB, 3),
          number("formula_per_token_bytes", "formula per prompt token", t.formula_per_token.count(),
                 kBytesMB, 3),
          number("ratio", "measured / formula", t.ratio, kTimes, 4),
          signed_number("excess_pct", "above the formula", (t.ratio - 1.0) * 100.0, kPercent, 2),
      });
}

}  // namespace

Document calibration_build_document(const CalibrationBuildReport& report,
                                    const std::string& written_to) {
  const Calibration& cal = report.calibration;
  Document doc;
  doc.title = written_to.empty() ? "tpnet calibration"
                                 : fmt::format("tpnet calibration: wrote {}", written_to);
  doc.warnings = report.warnings;
  doc.fields = {
      text("date", "measured", cal.provenance.date),
      texts("hosts", "hosts", cal.provenance.hosts),
      text("nccl_version", "NCCL version", cal.provenance.nccl_version),
      text("backend", "backend", cal.provenance.backend),
  };
  if (cal.allreduce) doc.fields.push_back(calibration_allreduce_record(*cal.allreduce));
  if (cal.alltoall) doc.fields.push_back(calibration_alltoall_record(*cal.alltoall));
  if (cal.compute) doc.fields.push_back(calibration_compute_record(*cal.compute));
  if (cal.traffic) doc.fields.push_back(calibration_traffic_record(*cal.traffic));
  if (!written_to.empty())
    doc.fields.insert(doc.fields.begin(), text("out", "written to", written_to));
  return doc;
}

}  // namespace tpnet
