// tpnet plan: rank the layouts of a cluster with switch plans and reasons.

#include <fmt/format.h>

#include <memory>

#include "common.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/usecase/plan_search.hpp"

namespace tpnet::cli {
namespace {

struct PlanOptions {
  EngineOptions engine;
  ClusterOptions cluster;
  int baseline_tp = 0;
  std::string baseline_ttft;
  std::string baseline_prompt;
  std::string format = "table";
};

PlanSearchRequest to_request(const PlanOptions& o) {
  PlanSearchRequest in = to_plan_request(o.engine, o.cluster);
  const bool any_baseline =
      o.baseline_tp != 0 || !o.baseline_ttft.empty() || !o.baseline_prompt.empty();
  if (any_baseline) {
    if (o.baseline_tp == 0 || o.baseline_ttft.empty() || o.baseline_prompt.empty()) {
      throw InputError(
          "a baseline needs --baseline-tp, --baseline-ttft and --baseline-prompt together",
          InputLocation::for_key("--baseline-tp"));
    }
    in.baseline =
        MeasuredTtft{ParallelLayout{o.baseline_tp, 1, 1},
                     parse_duration(o.baseline_ttft, InputLocation::for_key("--baseline-ttft")),
                     parse_prompt(o.baseline_prompt, InputLocation::for_key("--baseline-prompt"))};
  }
  return in;
}

Outcome run_plan(const PlanOptions& o) {
  const PlanSearchRequest in = to_request(o);
  const PlanSearchReport report = search_plans(in);
  const ModelArch& model = in.model;

  std::vector<Record> rows;
  for (const auto& r : report.options) {
    Record rec{
        integer("rank", "rank", r.rank),
        text("layout", "layout", fmt::format("{} x TP{}", r.instances, r.tp)),
        json_only(integer("instances", "instances", r.instances)),
        json_only(integer("tp", "tp", r.tp)),
        text("speed", "speed", r.speed.name),
        json_only(number("speed_bps", "speed", r.speed.rate.bits_per_second(), kGbps, 0)),
        text("fabric", "switches", r.fabric ? r.fabric->description : "none carries it"),
        json_only(integer("switches", "switch count", r.fabric ? r.fabric->switches : -1)),
        json_only(flag("fits_memory", "fits", r.fits_memory)),
        table_only(text("", "fits", r.fits_memory ? "yes" : "NO")),
        number("weights_per_node_bytes", "weights/node", r.memory.weights_bytes.count(), kBytesGB,
               1),
        number("kv_cache_bytes", "KV cache/node", r.memory.kv_cache_bytes.count(), kBytesGB, 1),
        signed_number("worst_extra_ttft_s", "worst extra TTFT", r.worst_extra_ttft.value(),
                      kSeconds, 2),
        json_only(
            number("mean_extra_ttft_s", "mean extra TTFT", r.mean_extra_ttft.value(), kSeconds, 3)),
    };
    if (in.baseline) {
      rec.push_back(signed_number("worst_ttft_increase_pct", "TTFT increase",
                                  r.worst_ttft_increase.value_or(0.0) * 100.0, kPercent, 1));
    }
    rec.push_back(json_only(flag("within_budget", "within budget", r.within_budget)));
    rec.push_back(flag("usable", "usable", r.usable));
    rec.push_back(text("reason", "why", r.reason));
    rows.push_back(std::move(rec));
  }
  std::string prompts;
  for (const auto& p : in.workload.prompts) prompts += (prompts.empty() ? "" : ", ") + p.name;

  Outcome out;
  Document& doc = out.doc;
  doc.title = fmt::format("tpnet plan: {} on {} x {} ({} workload: {})", model.name, in.nodes,
                          in.node.name, in.workload.name, prompts);
  doc.fields = {text("model", "model", model.name), integer("nodes", "nodes", in.nodes),
                text("node", "node", in.node.name), text("workload", "workload", in.workload.name),
                text("reference", "extra TTFT against", report.reference.name)};
  if (!report.options.empty() && report.options.front().usable) {
    doc.fields.push_back(text("recommendation", "recommended", report.options.front().reason));
  }
  doc.fields.push_back(records("options", "options, best first", std::move(rows)));
  doc.warnings = report.warnings;
  return out;
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
  add_memory_options(sub, o->cluster.memory);
  add_format_option(sub, o->format);
  return Command{sub, [o] { return run_plan(*o); },
                 std::shared_ptr<const std::string>(o, &o->format)};
}

}  // namespace tpnet::cli
