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

}  // namespace tpnet::cli
