#include "calibration_flags.hpp"

#include <fmt/format.h>

#include "tpnet/io/calibration_yaml.hpp"

namespace tpnet::cli {

void add_calibration_options(CLI::App* app, CalibrationFlags& flags) {
  const std::string group = "Calibration (point estimates beside the bounds)";
  app->add_option("--calibration", flags.file,
                  "calibration.yaml from `tpnet calibration`: prices the all-reduces with the "
                  "measured curve at each link, and the network share from measured compute")
      ->group(group);
  app->add_option("--nccl-version", flags.nccl_version,
                  "NCCL version the estimate is for (e.g. 2.28.3); warns when the calibration "
                  "was measured with another")
      ->group(group);
}

std::optional<Calibration> load_calibration(const CalibrationFlags& flags) {
  if (flags.file.empty()) {
    if (!flags.nccl_version.empty()) {
      throw InputError("needs --calibration FILE: it is checked against the file's NCCL version",
                       InputLocation::for_key("--nccl-version"));
    }
    return std::nullopt;
  }
  return load_calibration_yaml(flags.file);
}

std::vector<std::string> point_estimate_notes(bool with_compute) {
  std::vector<std::string> notes{
      "point estimates price every all-reduce with the measured curve at each link and assume "
      "no overlap with compute",
      "a point estimate can exceed the full-rate bound by the measured shortfall from the link "
      "rate (1 / efficiency), and fall below it where latency dominates (small blocks)",
  };
  if (with_compute) {
    notes.emplace_back(
        "compute is the timed GEMMs only: attention scores, norms and the rest are left out, so "
        "the network share is an overestimate");
  }
  return notes;
}

Field calibration_record(const Calibration& c, const CalibrationUse& use) {
  const AllReduceCalibration& a = *use.allreduce;
  const auto& p = c.provenance;
  Record rec{
      text("source", "calibration file", c.origin),
      text("date", "measured", p.date),
      text("nccl_version", "NCCL version", p.nccl_version),
      text("backend", "backend", p.backend),
      json_only(texts("hosts", "hosts", p.hosts)),
      integer("ranks", "sweep ranks", a.ranks),
      text("link", "sweep measured on", a.link),
      json_only(number("link_bps", "link rate", a.link_rate.bits_per_second(), kGbps, 1)),
      number("alpha_s", "alpha (fixed time per all-reduce)", a.alpha.value(), kMicroseconds, 2),
      number("step_latency_s", "latency per ring step", a.step_latency.value(), kMicroseconds, 2),
      number("beta_bps", "beta (rate of bytes sent)", a.beta.bits_per_second(), kGbps, 1),
      number("rms_relative_error_pct", "fit RMS relative error", a.rms_relative_error * 100.0,
             kPercent, 2),
      flag("compute_used", "compute used for the share", use.compute != nullptr),
  };
  if (use.compute != nullptr) {
    rec.push_back(number("compute_per_prompt_token_s", "compute per prompt token per node",
                         use.compute->per_prompt_token.value(), kMilliseconds, 4));
    rec.push_back(text("compute_precision", "compute precision", use.compute->precision));
  }
  rec.push_back(texts("notes", "note", point_estimate_notes(use.compute != nullptr)));
  return record("calibration", "calibration", std::move(rec));
}

void append_decode_points(Document& doc, const Calibration& c, const CalibrationFlags& flags,
                          const ModelArch& model, const EngineConfig& engine, const Link& from,
                          const Link& to, const DecodeReport& r) {
  CalibrationRequest request;
  request.tps = {engine.tensor_parallel_size};
  request.from = {from};
  request.nccl_version = flags.nccl_version;
  // Decode has no prompt compute to share with: the compute section is not asked about.
  Calibration without_compute = c;
  without_compute.compute.reset();
  CalibrationUse use = check_calibration(without_compute, model, engine, request);
  const DecodePoint d = point_decode(*use.allreduce, model, engine, r.tokens_per_forward,
                                     r.logits_sent, from.rate, to.rate);
  const double share = d.added_per_forward / r.weight_read_floor;
  doc.fields.push_back(number("point_allreduce_from_s", "point: one all-reduce at " + from.name,
                              d.allreduce_from.value(), kMicroseconds, 1));
  doc.fields.push_back(number("point_allreduce_to_s", "point: one all-reduce at " + to.name,
                              d.allreduce_to.value(), kMicroseconds, 1));
  doc.fields.push_back(number("point_forward_comm_from_s",
                              "point: communication per forward at " + from.name,
                              d.forward_comm_from.value(), kMilliseconds, 2));
  doc.fields.push_back(number("point_forward_comm_to_s",
                              "point: communication per forward at " + to.name,
                              d.forward_comm_to.value(), kMilliseconds, 2));
  doc.fields.push_back(signed_number("point_added_per_forward_s",
                                     "point: " + to.name + " adds per forward",
                                     d.added_per_forward.value(), kMilliseconds, 3));
  doc.fields.push_back(signed_number("point_added_pct_of_floor", "point: as a share of the floor",
                                     share * 100.0, kPercent, 2));
  doc.fields.push_back(calibration_record(without_compute, use));
  for (auto& w : use.warnings) doc.warnings.push_back(std::move(w));
}

}  // namespace tpnet::cli
