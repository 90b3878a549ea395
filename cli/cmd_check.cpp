// tpnet check: evaluate a serving plan's budgets; exit 1 when one is exceeded.

#include <fmt/format.h>

#include <memory>

#include "common.hpp"
#include "exit_codes.hpp"
#include "tpnet/io/plan_yaml.hpp"

namespace tpnet::cli {
namespace {

struct CheckOptions {
  std::string plan;
  std::string format = "table";
};

Outcome run_check(const CheckOptions& o) {
  const ServingPlan plan = load_serving_plan(o.plan);
  const CheckReport result = tpnet::run_check(plan);
  const CompareRequest& request = result.compare.request;
  const LayoutSummary& layout = result.compare.layouts.front();

  std::vector<Record> rows;
  for (const auto& r : result.rows) {
    Record rec{
        text("prompt", "prompt", r.prompt->name),
        integer("prompt_tokens", "prompt tokens",
                static_cast<double>(r.prompt->prompt.total_tokens())),
        text("to", "to", r.to->name),
        number("prefill_bytes_per_node", "prefill bytes/node", r.prefill_bytes.count(), kBytesGB,
               1),
        signed_number("extra_ttft_bound_s", "extra TTFT bound", r.extra_bound.value(), kSeconds, 2),
        signed_number("decode_slowdown_pct", "decode slowdown", r.decode_slowdown * 100.0, kPercent,
                      1)};
    if (r.ttft_increase) {
      rec.push_back(signed_number("ttft_increase_pct", "TTFT increase", *r.ttft_increase * 100.0,
                                  kPercent, 1));
      rec.push_back(text("ttft_source", "TTFT from", r.ttft_measured ? "measured" : "projected"));
    }
    rows.push_back(std::move(rec));
  }
  std::string to_names;
  for (const auto& t : request.to) to_names += (to_names.empty() ? "" : ", ") + t.link.name;

  Outcome out;
  out.exit_code = result.passed() ? 0 : 1;
  Document& doc = out.doc;
  doc.answer = check_answer(result);
  doc.title = fmt::format("tpnet check {}: {} as {}, {} -> {}: {}", o.plan, request.model.name,
                          layout.layout.name(), request.from.front().link.name, to_names,
                          result.passed() ? "all budgets hold" : "BUDGET EXCEEDED");
  // A plan file sets no NCCL settings: NCCL's defaults price its links.
  const CollectiveSettings plan_settings;
  const Link& from = request.from.front().link;
  doc.fields = {text("plan", "plan", o.plan),
                text("model", "model", request.model.name),
                text("layout", "layout", layout.layout.name()),
                integer("nodes", "nodes", layout.layout.nodes()),
                text("node", "node", request.node.name),
                link_summary("from link", from, plan_settings),
                link_record("from", "from link", from, plan_settings),
                text("memory_fit", "memory fit", layout.memory.fit_summary),
                records("scenarios", "scenarios", std::move(rows)),
                verdict_records(result.verdicts),
                flag("gate_passed", "all budgets hold", result.passed())};
  doc.warnings = result.warnings;
  return out;
}

}  // namespace

Command setup_check(CLI::App& app) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* sub = app.add_subcommand(
      "check", "Check a serving plan's budgets (exit 0 all hold, 1 one is exceeded, 2 bad input)");
  sub->add_option("plan", options->plan, "Plan YAML file (docs/plan.md)")->required();
  add_format_option(sub, options->format);
  set_gate_exit_codes(sub, "a budget is exceeded");
  return Command{sub, [options] { return run_check(*options); },
                 std::shared_ptr<const std::string>(options, &options->format),
                 FieldNames::plan_keys};
}

}  // namespace tpnet::cli
