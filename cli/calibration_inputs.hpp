#pragma once
// What tpnet calibration reads beside its sweeps: the RDMA counters with the
// model and engine they ran (as tpnet bytes reads them), and the provenance
// the user states (hosts, NAME=VALUE settings, a note, a date).

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "tpnet/usecase/calibration_build.hpp"

namespace tpnet::cli {

/// --counters, --requests, --prompt-tokens and the model and engine the
/// counters ran: --model, --tp, --activation-bytes, --allreduces-per-layer
/// and --extra-allreduces.
struct CounterFlags {
  std::string counters;
  std::string requests;
  std::string prompt_tokens;
  EngineOptions engine;
};

/// Adds those flags to `app` in a "Traffic" group.
void add_counter_flags(CLI::App* app, CounterFlags& flags);

/// The counters to distil, read; nullopt without --counters. Throws
/// InputError naming --counters when the model, TP or prompt tokens are
/// missing.
[[nodiscard]] std::optional<CounterInput> read_counter_input(const CounterFlags& flags);

/// Adds --hosts, --env, --note and --date in a "Provenance" group: hosts,
/// note and date straight into `request`, each --env text into `env`.
void add_provenance_flags(CLI::App* app, CalibrationBuildRequest& request,
                          std::vector<std::string>& env);

/// Each NAME=VALUE of `env` into `request.env`. Throws InputError naming
/// --env for a text without a name and '='.
void record_env(const std::vector<std::string>& env, CalibrationBuildRequest& request);

}  // namespace tpnet::cli
