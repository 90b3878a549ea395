// tpnet plan: rank the layouts of a cluster with switch plans and reasons.

#include <fmt/format.h>

#include <memory>

#include "capacity_flags.hpp"
#include "common.hpp"
#include "price_flags.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/usecase/plan_search.hpp"

namespace tpnet::cli {
namespace {

struct PlanOptions {
  EngineOptions engine;
  ClusterOptions cluster;
  PriceOptions prices;
  int baseline_tp = 0;
  std::string baseline_ttft;
  std::string baseline_prompt;
  CapacityFlags capacity;
  std::string format = "table";
};

PlanSearchRequest to_request(const PlanOptions& o) {
  PlanSearchRequest in = to_plan_request(o.engine, o.cluster);
  apply_price_options(in, o.prices);
  const bool any_baseline =
      o.baseline_tp != 0 || !o.baseline_ttft.empty() || !o.baseline_prompt.empty();
  if (any_baseline) {
    if (o.baseline_tp == 0 || o.baseline_ttft.empty() || o.baseline_prompt.empty()) {
      throw InputError(
          "a baseline needs --baseline-tp, --baseline-ttft and --baseline-prompt together",
          InputLocation::for_key("--baseline-tp"));
    }
    in.baseline =
        TtftBaseline{ParallelLayout{o.baseline_tp, 1, 1},
                     parse_duration(o.baseline_ttft, InputLocation::for_key("--baseline-ttft")),
                     parse_prompt(o.baseline_prompt, InputLocation::for_key("--baseline-prompt")),
                     {}};
  }
  in.capacity = load_capacity_request(o.capacity, std::nullopt, in.model.name);
  return in;
}

Outcome run_plan(const PlanOptions& o) {
  const PlanSearchRequest in = to_request(o);
  const PlanSearchReport report = search_plans(in);
  return Outcome{plan_document(in, report), {}, 0};
}

}  // namespace

Command setup_plan(CLI::App& app) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* sub = app.add_subcommand(
      "plan", "Rank cluster layouts (instances x TP) with switch plans, memory fit and TTFT cost");
  add_engine_options(sub, o->engine, false);
  add_cluster_options(sub, o->cluster);
  const std::string baseline = "Measured baseline (projects TTFT shares)";
  sub->add_option("--baseline-tp", o->baseline_tp, "TP the TTFT was measured at")->group(baseline);
  sub->add_option("--baseline-ttft", o->baseline_ttft, "Measured TTFT at the fastest speed")
      ->group(baseline);
  sub->add_option("--baseline-prompt", o->baseline_prompt, "Its prompt, e.g. 8k")->group(baseline);
  add_capacity_flags(
      sub, o->capacity, "Served users (measured sweeps, as tpnet capacity reads them)",
      "A sweep CSV, a vllm bench serve result, or a folder: rank by users per dollar");
  add_memory_options(sub, o->cluster.memory);
  add_price_file_options(sub, o->prices);
  add_objective_option(sub, o->prices);
  add_format_option(sub, o->format);
  return Command{sub, [o] { return run_plan(*o); },
                 std::shared_ptr<const std::string>(o, &o->format)};
}

}  // namespace tpnet::cli
