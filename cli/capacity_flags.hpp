#pragma once
// Flags shared by the commands that judge measured sweeps against SLOs
// beside their own question (plan ranks by users per dollar with them,
// report draws capacity): the sweeps, the result key naming each config,
// and the two SLOs, read into the capacity use case's request.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "tpnet/usecase/capacity.hpp"

namespace tpnet::cli {

struct CapacityFlags {
  std::vector<std::string> sweeps;  ///< --sweep, each a CSV, a vllm bench result or a folder
  std::string config_key = "config";
  std::string ttft_slo = "1000ms";
  std::string tps_slo = "15";
  std::string slo_statistic = "mean";
};

/// --slo-statistic: which statistic over a run's requests the SLOs judge.
void add_slo_statistic_option(CLI::App* app, std::string& statistic, const std::string& group);
[[nodiscard]] SloStatistic parse_slo_statistic(const std::string& text);

/// --sweep (described by `sweep_help`), --config-key, --ttft-slo and
/// --tps-slo, in a help group titled `group`.
void add_capacity_flags(CLI::App* app, CapacityFlags& flags, const std::string& group,
                        const std::string& sweep_help);

/// The sweeps read and merged, with the readers' warnings and those of a
/// result whose model_id is not `model` first. `tp` is what results that
/// record no TP were run at. Absent when no --sweep was given.
[[nodiscard]] std::optional<CapacityRequest> load_capacity_request(const CapacityFlags& flags,
                                                                   std::optional<int> tp,
                                                                   const std::string& model);

}  // namespace tpnet::cli
