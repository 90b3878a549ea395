#pragma once
// `--calibration FILE` (and `--nccl-version`) on penalty, decode and compare:
// reading the file into the request (docs/calibration.md). How a use case
// applied it is tpnet/usecase/shared_fields.hpp's calibration_record.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "terminal.hpp"
#include "tpnet/usecase/calibration_use.hpp"

namespace tpnet::cli {

struct CalibrationFlags {
  std::string file;
  std::string nccl_version;
};

/// Adds --calibration FILE and --nccl-version V in a "Calibration" group.
void add_calibration_options(CLI::App* app, CalibrationFlags& flags);

/// The file for the request, or nullopt without --calibration; --nccl-version
/// without it is refused (exit 2).
[[nodiscard]] std::optional<CalibrationInput> load_calibration(const CalibrationFlags& flags);

}  // namespace tpnet::cli
