// tpnet penalty: the TTFT cost of a slower link, per prompt scenario.

#include <fmt/format.h>

#include <memory>

#include "calibration_flags.hpp"
#include "common.hpp"
#include "exit_codes.hpp"
#include "tpnet/analysis/penalty.hpp"
#include "tpnet/io/baseline_csv.hpp"
#include "tpnet/quantity.hpp"

namespace tpnet::cli {
namespace {

struct PenaltyOptions {
  EngineOptions engine;
  std::string from = "200G";
  std::string to = "100G";
  std::vector<std::string> prompts;
  std::string baseline;
  std::string measured_bytes;
  BudgetOptions budgets;
  CalibrationFlags calibration;
  std::string format = "table";
};

/// The gate: every budget against every scenario it applies to.
std::vector<Verdict> penalty_verdicts(const PenaltyReport& r, const Budgets& budgets) {
  std::vector<Verdict> verdicts;
  if (budgets.max_extra_ttft_per_1k) {
    check_budget(verdicts, "max_extra_ttft_per_1k_tokens", "per 1,000 prompt tokens",
                 r.extra_per_1k_tokens.value(), budgets.max_extra_ttft_per_1k->value());
  }
  for (const auto& s : r.scenarios) {
    if (budgets.max_extra_ttft) {
      check_budget(verdicts, "max_extra_ttft", s.scenario.name, s.extra_ttft_bound.value(),
                   budgets.max_extra_ttft->value());
    }
    if (budgets.max_ttft_increase) {
      if (!s.ttft_increase_bound) {
        throw InputError("needs a measured TTFT per scenario: give --baseline FILE.csv",
                         InputLocation::for_key("--max-ttft-increase"));
      }
      check_budget(verdicts, "max_ttft_increase", s.scenario.name, *s.ttft_increase_bound,
                   *budgets.max_ttft_increase);
    }
  }
  return verdicts;
}

std::vector<PrefillScenario> scenarios_from(const PenaltyOptions& o) {
  if (!o.baseline.empty()) {
    if (!o.prompts.empty()) {
      throw InputError("use either --prompt or --baseline (whose rows name the prompts), not both",
                       InputLocation::for_key("--prompt"));
    }
    return load_baseline_csv(o.baseline);
  }
  if (o.prompts.empty()) return study_scenarios();
  std::vector<PrefillScenario> out;
  for (const auto& text : o.prompts) {
    out.push_back(
        PrefillScenario{text, parse_prompt(text, InputLocation::for_key("--prompt")), {}});
  }
  return out;
}

/// A calibration's point estimate for one scenario, with the bound's
/// baseline TTFT when there is one.
struct ScenarioPoint {
  PrefillPoint point;
  std::optional<Seconds> baseline_ttft;
};

void append_point_fields(Record& rec, const ScenarioPoint& p, const Link& from, const Link& to) {
  const PrefillPoint& pt = p.point;
  rec.push_back(json_only(number("point_comm_from_s", "point comm at " + from.name,
                                 pt.comm_from.value(), kSeconds, 2)));
  rec.push_back(json_only(
      number("point_comm_to_s", "point comm at " + to.name, pt.comm_to.value(), kSeconds, 2)));
  rec.push_back(signed_number("point_extra_ttft_s", "point extra", pt.extra.value(), kSeconds, 2));
  if (p.baseline_ttft) {
    rec.push_back(json_only(number("point_ttft_at_to_s", "point TTFT at " + to.name,
                                   (*p.baseline_ttft + pt.extra).value(), kSeconds, 2)));
  }
  if (pt.compute && pt.network_share && pt.ttft_increase) {
    rec.push_back(
        json_only(number("point_compute_s", "measured compute", pt.compute->value(), kSeconds, 2)));
    rec.push_back(
        number("point_network_share_pct", "point share", *pt.network_share * 100.0, kPercent, 1));
    rec.push_back(signed_number("point_ttft_increase_pct", "point TTFT increase",
                                *pt.ttft_increase * 100.0, kPercent, 1));
  }
}

Record scenario_record(const ScenarioPenalty& s, const Link& from, const Link& to,
                       const std::optional<ScenarioPoint>& point) {
  Record rec{
      text("name", "test", s.scenario.name),
      integer("requests", "requests", static_cast<double>(s.scenario.prompt.requests)),
      json_only(integer("prompt_tokens_each", "tokens each",
                        static_cast<double>(s.scenario.prompt.tokens_each))),
      integer("prompt_tokens", "prompt tokens", static_cast<double>(s.total_tokens)),
      number("prefill_bytes_per_node", "prefill bytes/node", s.prefill_bytes_per_node.count(),
             kBytesGB, 1),
      json_only(
          integer("prefill_forwards", "prefill forwards", static_cast<double>(s.prefill_forwards))),
      json_only(number("step_block_bytes", "step block", s.step_block.count(), kBytesMB, 1)),
      number("comm_time_from_s", "comm at " + from.name, s.comm_time_from.value(), kSeconds, 2),
      signed_number("extra_ttft_bound_s", "extra TTFT bound", s.extra_ttft_bound.value(), kSeconds,
                    2),
  };
  if (point) append_point_fields(rec, *point, from, to);
  if (s.scenario.baseline_ttft) {
    rec.push_back(
        number("baseline_ttft_s", "baseline TTFT", s.scenario.baseline_ttft->value(), kSeconds, 2));
    rec.push_back(number("network_share_pct", "net share", *s.network_share * 100.0, kPercent, 1));
    rec.push_back(signed_number("ttft_increase_bound_pct", "TTFT increase bound",
                                *s.ttft_increase_bound * 100.0, kPercent, 1));
    rec.push_back(number("ttft_bound_s", "TTFT bound at " + to.name, s.ttft_bound_at_to->value(),
                         kSeconds, 2));
  }
  rec.push_back(texts("notes", "notes", s.notes));
  return rec;
}

Outcome run_penalty(const PenaltyOptions& o) {
  const ModelArch model = load_model(o.engine);
  const EngineConfig engine = to_engine(o.engine);
  const Link from = to_link(o.from, "--from", o.engine);
  const Link to = to_link(o.to, "--to", o.engine);
  std::optional<Bytes> measured;
  if (!o.measured_bytes.empty()) {
    measured = parse_bytes(o.measured_bytes, InputLocation::for_key("--bytes-per-token"));
  }
  const auto scenarios = scenarios_from(o);
  const PenaltyReport r = analyze_penalty(model, engine, from, to, scenarios, measured);

  const std::optional<Calibration> calibration = load_calibration(o.calibration);
  std::optional<CalibrationUse> use;
  if (calibration) {
    CalibrationRequest request;
    request.tps = {engine.tensor_parallel_size};
    request.from = {from};
    request.nccl_version = o.calibration.nccl_version;
    use = check_calibration(*calibration, model, engine, request);
  }
  const ParallelLayout layout{engine.tensor_parallel_size, 1, 1};
  std::vector<Record> rows;
  for (const auto& s : r.scenarios) {
    std::optional<ScenarioPoint> point;
    if (use) {
      std::optional<Seconds> compute;
      if (use->compute != nullptr) compute = compute_per_token_for(*use->compute, layout);
      point = ScenarioPoint{point_prefill(*use->allreduce, model, engine, layout, s.scenario.prompt,
                                          from.rate, to.rate, compute),
                            s.scenario.baseline_ttft};
    }
    rows.push_back(scenario_record(s, from, to, point));
  }

  Document doc;
  doc.title = fmt::format("tpnet penalty: {}, {} -> {}; upper bounds (no overlap, full rate){}",
                          describe(model, engine), from.name, to.name,
                          calibration ? "; point estimates from " + calibration->origin : "");
  doc.fields = {
      text("model", "model", model.name),
      integer("tp", "tensor-parallel size", engine.tensor_parallel_size),
      text("algorithm", "all-reduce algorithm", std::string(to_string(engine.algorithm))),
      integer("chunk_tokens", "prefill chunk", static_cast<double>(engine.max_num_batched_tokens)),
      link_summary("from link", from),
      link_summary("to link", to),
      link_record("from", "from link", from),
      link_record("to", "to link", to),
      number("per_token_bytes", "bytes per prompt token per node", r.per_token_bytes.count(),
             kBytesMB, 2),
      text("per_token_source", "bytes per token from",
           r.per_token_measured ? "measured (--bytes-per-token)" : "formula"),
      signed_number("extra_s_per_1k_tokens", "extra time per 1,000 prompt tokens",
                    r.extra_per_1k_tokens.value(), kSeconds, 3),
      records("scenarios", "scenarios", std::move(rows)),
  };
  doc.warnings = r.warnings;
  if (calibration) {
    doc.fields.push_back(calibration_record(*calibration, *use));
    for (const auto& w : use->warnings) doc.warnings.push_back(w);
  }
  Outcome out{std::move(doc), {}, 0};
  const Budgets budgets = to_budgets(o.budgets);
  if (budgets.any()) {
    const auto verdicts = penalty_verdicts(r, budgets);
    out.doc.fields.push_back(verdict_records(verdicts));
    out.doc.fields.push_back(flag("gate_passed", "all budgets hold", all_within(verdicts)));
    out.exit_code = all_within(verdicts) ? 0 : 1;
  }
  return out;
}

}  // namespace

Command setup_penalty(CLI::App& app) {
  auto options = std::make_shared<PenaltyOptions>();
  CLI::App* sub = app.add_subcommand(
      "penalty", "Upper bound on extra time-to-first-token when the link changes");
  add_engine_options(sub, options->engine);
  sub->add_option("--from", options->from, "Link the baseline runs on (preset or rate)")
      ->default_str("200G");
  sub->add_option("--to", options->to, "Link to estimate (preset or rate)")->default_str("100G");
  sub->add_option("--prompt", options->prompts,
                  "Prompt scenarios, e.g. 1k,8k,4x8k (default: the GLM-5.3 study's P1-P6)")
      ->delimiter(',');
  sub->add_option("--baseline", options->baseline,
                  "CSV of measured TTFT at --from (columns requests, prompt_tokens_each, ttft_s)");
  sub->add_option("--bytes-per-token", options->measured_bytes,
                  "Measured bytes per prompt token per node (e.g. 3.57MB) instead of the formula");
  add_budget_options(sub, options->budgets, false);
  set_gate_exit_codes(sub, "a budget is exceeded");
  add_calibration_options(sub, options->calibration);
  add_format_option(sub, options->format);
  return Command{sub, [options] { return run_penalty(*options); },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
