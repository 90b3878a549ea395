#include "calibration_inputs.hpp"

#include <fmt/format.h>

#include <utility>

#include "integer_flags.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/io/model_catalog.hpp"

namespace tpnet::cli {

void add_counter_flags(CLI::App* app, CounterFlags& flags) {
  const std::string traffic = "Traffic";
  app->add_option("--counters", flags.counters,
                  "RDMA counter CSV of one node (tpnet-calibrate counters)")
      ->group(traffic);
  app->add_option("--requests", flags.requests,
                  "Request timings CSV: count only the prefill share of the traffic")
      ->group(traffic);
  app->add_option("--prompt-tokens", flags.prompt_tokens,
                  "Prompt tokens prefilled while the counters ran (e.g. 8k)")
      ->group(traffic);
  app->add_option("-m,--model", flags.engine.model, "Model the counters ran (for the formula)")
      ->group(traffic);
  app->add_option("--tp,--tensor-parallel-size", flags.engine.tp, "Its tensor-parallel size")
      ->group(traffic);
  app->add_option("--activation-bytes", flags.engine.activation_bytes,
                  "Bytes per activation value (2 = BF16)")
      ->capture_default_str()
      ->group(traffic);
  app->add_option("--allreduces-per-layer", flags.engine.allreduces_per_layer,
                  "All-reduces per layer (default: one per block of the layer plan)")
      ->check(whole_number_in(0, kMaxAllreducesPerLayer))
      ->group(traffic);
  app->add_option("--extra-allreduces", flags.engine.extra_allreduces,
                  "All-reduces per forward outside the layers")
      ->capture_default_str()
      ->group(traffic);
}

std::optional<CounterInput> read_counter_input(const CounterFlags& flags) {
  if (flags.counters.empty()) return std::nullopt;
  if (flags.engine.model.empty() || flags.engine.tp == 0 || flags.prompt_tokens.empty()) {
    throw InputError(
        "needs --model, --tp and --prompt-tokens: the bytes per prompt token are "
        "compared with that model's formula",
        InputLocation::for_key("--counters"));
  }
  CounterInput traffic;
  traffic.model = resolve_model(flags.engine.model);
  traffic.engine = to_engine(flags.engine);
  traffic.prompt_tokens =
      parse_tokens(flags.prompt_tokens, InputLocation::for_key("--prompt-tokens"));
  traffic.counters = load_counters_csv(flags.counters);
  traffic.source = flags.counters;
  if (!flags.requests.empty()) traffic.requests = load_requests_csv(flags.requests);
  return traffic;
}

void add_provenance_flags(CLI::App* app, CalibrationBuildRequest& request,
                          std::vector<std::string>& env) {
  const std::string provenance = "Provenance";
  app->add_option("--hosts", request.hosts,
                  "Hosts measured, e.g. spark-1,spark-2 (default: from the sweep)")
      ->delimiter(',')
      ->group(provenance);
  app->add_option("--env", env, "A setting of the run to record, NAME=VALUE (repeatable)")
      ->group(provenance);
  app->add_option("--note", request.note, "Free text recorded with the provenance")
      ->group(provenance);
  app->add_option("--date", request.date,
                  "When it was measured, ISO 8601 (default: the sweep's, else now)")
      ->group(provenance);
}

void record_env(const std::vector<std::string>& env, CalibrationBuildRequest& request) {
  for (const auto& entry : env) {
    const auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError(fmt::format("'{}' is not NAME=VALUE", entry),
                       InputLocation::for_key("--env"));
    }
    request.env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
}

}  // namespace tpnet::cli
