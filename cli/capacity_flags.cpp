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
  add_slo_statistic_option(app, flags.slo_statistic, group);
}

void add_slo_statistic_option(CLI::App* app, std::string& statistic, const std::string& group) {
  app->add_option("--slo-statistic", statistic,
                  "What the SLOs judge over each run's requests: mean, median, p90 or p99 (vLLM "
                  "writes median and p99; p90 with --metric-percentiles 90,99)")
      ->check(CLI::IsMember({"mean", "median", "p90", "p99"}))
      ->group(group)
      ->default_str("mean");
}

SloStatistic parse_slo_statistic(const std::string& text) {
  for (const SloStatistic s :
       {SloStatistic::mean, SloStatistic::median, SloStatistic::p90, SloStatistic::p99}) {
    if (to_string(s) == text) return s;
  }
  throw InputError("'" + text + "' is not a statistic; use mean, median, p90 or p99",
                   InputLocation::for_key("--slo-statistic"));
}

std::optional<CapacityRequest> load_capacity_request(const CapacityFlags& flags,
                                                     std::optional<int> tp,
                                                     const std::string& model) {
  if (flags.sweeps.empty()) return std::nullopt;
  SloSpec slo;
  slo.ttft = parse_duration(flags.ttft_slo, InputLocation::for_key("--ttft-slo"));
  slo.tps = parse_token_rate(flags.tps_slo, InputLocation::for_key("--tps-slo"));
  slo.statistic = parse_slo_statistic(flags.slo_statistic);
  BenchNaming naming;
  naming.config_key = flags.config_key;
  if (tp) naming.tp = *tp;
  std::vector<SweepSet> sets;
  for (const auto& sweep : flags.sweeps) sets.push_back(load_sweep_argument(sweep, naming));
  SweepSet all = merge_sweep_sets(std::move(sets));
  std::vector<std::string> warnings = model_id_warnings(all, model);
  for (auto& w : all.warnings) warnings.push_back(std::move(w));
  return CapacityRequest{std::move(all.sweeps), std::move(warnings), slo, CapacityOptions{}};
}

}  // namespace tpnet::cli
