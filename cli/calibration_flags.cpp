#include "calibration_flags.hpp"

#include <fmt/format.h>

#include <memory>

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

std::optional<CalibrationInput> load_calibration(const CalibrationFlags& flags) {
  if (flags.file.empty()) {
    if (!flags.nccl_version.empty()) {
      throw InputError("needs --calibration FILE: it is checked against the file's NCCL version",
                       InputLocation::for_key("--nccl-version"));
    }
    return std::nullopt;
  }
  return CalibrationInput{std::make_shared<const Calibration>(load_calibration_yaml(flags.file)),
                          flags.nccl_version};
}

Field calibration_record(const CalibrationUse& use) {
  const Calibration& c = *use.file;
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
      tpnet::flag("compute_used", "compute used for the share", use.compute != nullptr),
  };
  if (use.compute != nullptr) {
    rec.push_back(number("compute_per_prompt_token_s", "compute per prompt token per node",
                         use.compute->per_prompt_token.value(), kMilliseconds, 4));
    rec.push_back(text("compute_precision", "compute precision", use.compute->precision));
  }
  rec.push_back(texts("notes", "note", use.notes));
  return record("calibration", "calibration", std::move(rec));
}

}  // namespace tpnet::cli
