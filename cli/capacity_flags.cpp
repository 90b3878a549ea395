#include "capacity_flags.hpp"

#include <utility>

#include "common.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/sweep_io.hpp"

namespace tpnet::cli {

void add_capacity_flags(CLI::App* app, CapacityFlags& flags, const std::string& group,
                        const std::string& sweep_help) {
  app->add_option("--sweep", flags.sweeps, sweep_help)->group(group);
  app->add_option("--config-key", flags.config_key, "The vLLM result key that names each config")
      ->group(group)
      ->default_str("config");
  app->add_option("--ttft-slo", flags.ttft_slo, "Most time to first token")
      ->group(group)
      ->default_str("1000ms");
  app->add_option("--tps-slo", flags.tps_slo, "Least decode rate per request in tokens/s")
      ->group(group)
      ->default_str("15");
}

std::optional<CapacityRequest> load_capacity_request(const CapacityFlags& flags,
                                                     std::optional<int> tp,
                                                     const std::string& model) {
  if (flags.sweeps.empty()) return std::nullopt;
  SloSpec slo;
  slo.ttft = parse_duration(flags.ttft_slo, InputLocation::for_key("--ttft-slo"));
  slo.tps = parse_token_rate(flags.tps_slo, InputLocation::for_key("--tps-slo"));
  BenchNaming naming;
  naming.config_key = flags.config_key;
  if (tp) naming.tp = *tp;
  std::vector<SweepSet> sets;
  for (const auto& sweep : flags.sweeps) sets.push_back(load_sweep_argument(sweep, naming));
  SweepSet all = merge_sweep_sets(sets);
  std::vector<std::string> warnings = model_id_warnings(all, model);
  for (auto& w : all.warnings) warnings.push_back(std::move(w));
  return CapacityRequest{std::move(all.sweeps), std::move(warnings), slo, CapacityOptions{}};
}

}  // namespace tpnet::cli
