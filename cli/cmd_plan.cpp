// tpnet plan: rank the layouts of a cluster with switch plans and reasons.

#include <fmt/format.h>

#include <memory>

#include "baseline_flags.hpp"
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
  TtftBaselineFlags baseline;
  CapacityFlags capacity;
  std::string format = "table";
};

PlanSearchRequest to_request(const PlanOptions& o) {
  PlanSearchRequest in = to_plan_request(o.engine, o.cluster);
  apply_price_options(in, o.prices);
  in.baseline = to_ttft_baseline(o.baseline);
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
  add_ttft_baseline_flags(sub, o->baseline, baseline, "Measured TTFT at the fastest speed");
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
