// tpnet capacity: C_max and users under TTFT and decode-rate SLOs, from
// measured concurrency sweeps (CSV or vllm bench serve results).

#include <filesystem>
#include <memory>
#include <string_view>

#include "capacity_flags.hpp"
#include "charts.hpp"
#include "common.hpp"
#include "integer_flags.hpp"
#include "svg_output.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/sweep_io.hpp"
#include "tpnet/usecase/capacity.hpp"

namespace tpnet::cli {
namespace {

struct CapacityCliOptions {
  std::vector<std::string> sweeps;
  std::string ttft_slo = "1000ms";
  std::string tps_slo = "15";
  std::string slo_statistic = "mean";
  std::string config_key = "config";
  int tp = 0;
  std::string think = "45s";
  int fleet = 0;
  std::string edge = "2%";
  std::vector<std::string> think_values;
  std::vector<std::string> ttft_values;
  std::vector<std::string> tps_values;
  std::string svg;
  std::string format = "table";
};

}  // namespace

SweepSet load_sweep_argument(const std::string& value, const BenchNaming& naming) {
  std::error_code ec;
  const auto eq = value.find('=');
  if (eq == std::string::npos || std::filesystem::exists(value, ec)) {
    return load_sweeps(value, std::nullopt, naming);
  }
  return load_sweeps(value.substr(eq + 1), value.substr(0, eq), naming);
}

namespace {

/// A list flag's values read by `parse`, replacing the defaults in `out` when given.
template <class T>
void parse_values(const std::vector<std::string>& given, const char* flag,
                  T (*parse)(std::string_view, const InputLocation&), std::vector<T>& out) {
  if (given.empty()) return;
  out.clear();
  for (const auto& value : given) out.push_back(parse(value, InputLocation::for_key(flag)));
}

Outcome run_capacity(const CapacityCliOptions& o) {
  check_svg_path(o.svg);
  SloSpec slo;
  slo.ttft = parse_duration(o.ttft_slo, InputLocation::for_key("--ttft-slo"));
  slo.tps = parse_token_rate(o.tps_slo, InputLocation::for_key("--tps-slo"));
  slo.statistic = parse_slo_statistic(o.slo_statistic);
  CapacityOptions options;
  options.think = parse_duration(o.think, InputLocation::for_key("--think"));
  options.edge = parse_percent(o.edge, InputLocation::for_key("--edge"));
  options.fleet_nodes = o.fleet;
  parse_values(o.think_values, "--think-values", parse_duration, options.think_values);
  parse_values(o.ttft_values, "--ttft-values", parse_duration, options.ttft_values);
  parse_values(o.tps_values, "--tps-values", parse_token_rate, options.tps_values);
  if (o.config_key.empty()) {
    throw InputError("must name a result key, e.g. deployment",
                     InputLocation::for_key("--config-key"));
  }
  BenchNaming naming;
  naming.config_key = o.config_key;
  if (o.tp > 0) naming.tp = o.tp;
  std::vector<SweepSet> sets;
  for (const auto& s : o.sweeps) sets.push_back(load_sweep_argument(s, naming));
  SweepSet all = merge_sweep_sets(std::move(sets));
  const CapacityReport r = tpnet::run_capacity(
      CapacityRequest{std::move(all.sweeps), std::move(all.warnings), slo, options});

  // JSON and CSV drop the table's own text columns: build the points without them.
  Document doc = capacity_document(r, o.format == "json" || o.format == "csv");
  if (!o.svg.empty()) write_svg(o.svg, capacity_figure(r), doc);  // 100,000 points: only when asked
  return Outcome{std::move(doc), {}, 0};
}

}  // namespace

Command setup_capacity(CLI::App& app) {
  auto options = std::make_shared<CapacityCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "capacity", "Concurrency and users under TTFT and decode-rate SLOs, from measured sweeps");
  sub->add_option("--sweep", options->sweeps,
                  "A sweep CSV (config,tp,concurrency,ttft_ms,itl_ms,tps,latency_s), a vllm bench "
                  "serve result JSON (one object, or one per line as --append-result writes), or "
                  "a folder of them; NAME=PATH names the config of JSON results. Repeat for more")
      ->required();
  sub->add_option("--config-key", options->config_key,
                  "The vLLM result key that names each config, e.g. deployment for results run "
                  "with --metadata deployment=NAME (default config, then vLLM's label)")
      ->default_str("config");
  sub->add_option("--tp", options->tp,
                  "The TP size of vLLM results that record none (no tp key, no TP<N> name)")
      ->check(whole_number_in(1, kMaxTp));
  const std::string slo = "SLOs";
  sub->add_option("--ttft-slo", options->ttft_slo, "Most time to first token, e.g. 1000ms")
      ->group(slo)
      ->default_str("1000ms");
  sub->add_option("--tps-slo", options->tps_slo,
                  "Least decode rate per request in tokens/s, e.g. 15")
      ->group(slo)
      ->default_str("15");
  add_slo_statistic_option(sub, options->slo_statistic, slo);
  sub->add_option("--think", options->think, "Think time between a user's requests, e.g. 45s")
      ->group(slo)
      ->default_str("45s");
  sub->add_option("--edge", options->edge,
                  "A measured point this close to a threshold is flagged as on its edge")
      ->group(slo)
      ->default_str("2%");
  sub->add_option("--fleet", options->fleet,
                  "Nodes to split into replicas (default: the largest measured TP)")
      ->check(whole_number_in(1, kMaxClusterNodes));
  const std::string sensitivity = "Sensitivity tables";
  sub->add_option("--think-values", options->think_values,
                  "Think times to tabulate (default 15s,30s,45s,60s,90s,120s)")
      ->delimiter(',')
      ->group(sensitivity);
  sub->add_option("--ttft-values", options->ttft_values,
                  "TTFT thresholds to tabulate (default 500ms,750ms,1000ms,1500ms,2000ms)")
      ->delimiter(',')
      ->group(sensitivity);
  sub->add_option("--tps-values", options->tps_values,
                  "TPS thresholds to tabulate (default 10,12,15,18,20)")
      ->delimiter(',')
      ->group(sensitivity);
  add_svg_option(sub, options->svg,
                 "TPS and TTFT against load per config, with the SLOs and C_max");
  add_format_option(sub, options->format);
  return Command{sub, [options] { return run_capacity(*options); },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
