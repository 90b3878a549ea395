// tpnet doctor's answer as a document: the run, the state found with its
// advice, the bus bandwidth against what a healthy node reaches, the
// alpha-beta fit, the curve and the settings to check (docs/json.md, "doctor").
#include <fmt/format.h>

#include "tpnet/usecase/doctor.hpp"

namespace tpnet {
namespace {

Field doctor_fit_record(const DoctorReport& r) {
  const AllReduceFit& fit = r.fit;
  return record(
      "fit", "alpha-beta fit (ring)",
      {
          number("alpha_s", "alpha (fixed time per call)", fit.alpha.value(), kMicroseconds, 2),
          number("beta_bps", "beta (rate of bytes sent)", fit.beta.bits_per_second(), kGbps, 1),
          number("step_latency_s", "latency per ring step", fit.step_latency.value(), kMicroseconds,
                 2),
          integer("steps", "ring steps", fit.steps),
          number("rms_relative_error_pct", "RMS relative error", fit.rms_relative_error * 100.0,
                 kPercent, 2),
          number("max_relative_error_pct", "largest relative error", fit.max_relative_error * 100.0,
                 kPercent, 2),
          number("min_size_bytes", "smallest size fitted", fit.min_size.count(), kBytesB, 0),
          number("max_size_bytes", "largest size fitted", fit.max_size.count(), kBytesB, 0),
          integer("points", "sizes fitted", fit.points_used),
          flag("fitted", "fitted (2 or more sizes)", r.fitted),
          flag("constrained", "alpha held at 0", fit.constrained),
          flag("poor", "poor fit (RMS above 10%)", fit.poor),
      });
}

Field doctor_curve(const AllReduceFit& fit) {
  std::vector<Record> curve;
  curve.reserve(fit.curve.size());
  for (const auto& p : fit.curve) {
    curve.push_back({
        number("size_bytes", "size", p.size.count(), kBytesB, 0),
        number("time_s", "time", p.measured.value(), kMicroseconds, 2),
        number("fitted_time_s", "fitted", p.fitted.value(), kMicroseconds, 2),
        signed_number("relative_error_pct", "error", p.relative_error * 100.0, kPercent, 1),
        number("algbw_bps", "algbw", p.algbw.bits_per_second(), kGbps, 2),
        number("busbw_bps", "busbw", p.busbw.bits_per_second(), kGbps, 2),
        flag("in_fit", "fitted", p.in_range),
    });
  }
  return records("curve", "busbw vs size", std::move(curve));
}

/// `text` as a sentence: its first letter capitalised and a full stop after.
std::string doctor_sentence(std::string text) {
  if (text.empty()) return text;
  if (text.front() >= 'a' && text.front() <= 'z') {
    text.front() = static_cast<char>(text.front() - 'a' + 'A');
  }
  if (text.back() != '.') text += '.';
  return text;
}

}  // namespace

std::vector<std::string> doctor_answer(const DoctorReport& report) {
  std::vector<std::string> out;
  if (!report.diagnosis.finding.empty()) out.push_back(doctor_sentence(report.diagnosis.finding));
  if (!report.diagnosis.advice.empty()) out.push_back(doctor_sentence(report.diagnosis.advice));
  return out;
}

Document doctor_document(const DoctorRequest& request, const DoctorReport& r) {
  const FabricDiagnosis& d = r.diagnosis;
  const AllReduceSweep& sweep = request.sweep;
  const Link& link = request.link;
  Document doc;
  doc.answer = doctor_answer(r);
  doc.csv = CsvLayout::sections;  // the headline answer is scalars; its lists follow
  doc.warnings = r.warnings;
  doc.title = fmt::format(
      "tpnet doctor: {} ({} ranks{}) against {}", sweep.origin, r.ranks,
      sweep.nccl_version.empty() ? "" : fmt::format(", NCCL {}", sweep.nccl_version), link.name);
  doc.fields = {
      text("source", "file", sweep.origin),
      integer("ranks", "ranks", r.ranks),
      text("nccl_version", "NCCL version", sweep.nccl_version),
      text("collective", "collective", std::string(to_string(sweep.collective))),
      text("collective_from", "collective told by", sweep.collective_from),
      integer("ranks_per_node", "ranks per node (0 = not said)", r.ranks_per_node),
      text("gpu", "GPU", sweep.gpu),
      text("network", "NCCL transport (NCCL INFO 'Using network')", sweep.network),
      text("state", "state", std::string(to_string(d.state))),
      text("finding", "finding", d.finding),
      text("advice", "advice", d.advice),
      number("busbw_bps", "bus bandwidth, largest sizes", r.busbw.bits_per_second(), kGbps, 1),
      number("peak_busbw_bps", "peak bus bandwidth", r.peak_busbw.bits_per_second(), kGbps, 1),
      number("expected_busbw_bps", "expected (what a healthy node reaches)",
             r.healthy_busbw.bits_per_second(), kGbps, 1),
      text("expected_from", "expected from", r.healthy_from),
      number("busbw_share_pct", "share of expected", d.share * 100.0, kPercent, 1),
      number("link_share_pct", "share of the link rate",
             r.busbw.bits_per_second() / link.rate.bits_per_second() * 100.0, kPercent, 1),
      number("reachable_share_pct", "share a healthy link shows at the largest size",
             r.reachable_share * 100.0, kPercent, 1),
      flag("bandwidth_judged", "bandwidth judged (sizes large enough)", r.bandwidth_judged),
      number("small_latency_s", "slowest small all-reduce (0 = not judged)",
             r.small_latency.value(), kMicroseconds, 2),
      number("healthy_latency_max_s", "slowest healthy small all-reduce (0 = not used)",
             r.healthy_latency_max.value(), kMicroseconds, 2),
      doctor_fit_record(r),
      doctor_curve(r.fit),
      texts("checks", "settings to check", r.checks),
  };
  return doc;
}

}  // namespace tpnet
