#pragma once
// `--calibration FILE` (and `--nccl-version`) on penalty, decode and compare:
// loading the file, describing it, and the point-estimate fields beside the
// bounds (docs/calibration.md).

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "document.hpp"
#include "tpnet/analysis/decode.hpp"
#include "tpnet/analysis/point_estimate.hpp"
#include "tpnet/measured/calibration.hpp"

namespace tpnet::cli {

struct CalibrationFlags {
  std::string file;
  std::string nccl_version;
};

/// Adds --calibration FILE and --nccl-version V in a "Calibration" group.
void add_calibration_options(CLI::App* app, CalibrationFlags& flags);

/// The file, or nullopt without --calibration; --nccl-version without it is
/// refused (exit 2).
[[nodiscard]] std::optional<Calibration> load_calibration(const CalibrationFlags& flags);

/// The `calibration` record: file, provenance, the sweep's fit, whether
/// compute is used, and what the point estimates assume.
[[nodiscard]] Field calibration_record(const Calibration& c, const CalibrationUse& use);

/// What every point estimate assumes, for notes beside the numbers.
[[nodiscard]] std::vector<std::string> point_estimate_notes(bool with_compute);

/// decode: appends the point fields (one all-reduce at both links from the
/// curve, comm per forward, added per forward and as a share of the floor)
/// and the calibration record to `doc`, and its warnings.
void append_decode_points(Document& doc, const Calibration& c, const CalibrationFlags& flags,
                          const ModelArch& model, const EngineConfig& engine, const Link& from,
                          const Link& to, const DecodeReport& r);

}  // namespace tpnet::cli
