// tpnet penalty: the TTFT cost of a slower link, per prompt scenario.

#include <fmt/format.h>

#include <memory>

#include "calibration_flags.hpp"
#include "charts.hpp"
#include "common.hpp"
#include "exit_codes.hpp"
#include "svg_output.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/baseline_csv.hpp"
#include "tpnet/usecase/penalty.hpp"

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
  std::vector<std::string> fabrics;
  std::string node = std::string(kDefaultNodeName);
  AcceptedTokensFlag accepted_tokens;
  std::string svg;
  std::string format = "table";
};

std::vector<PrefillScenario> scenarios_from(const PenaltyOptions& o) {
  if (!o.baseline.empty()) {
    if (!o.prompts.empty()) {
      throw InputError("use either --prompt or --baseline (whose rows name the prompts), not both",
                       InputLocation::for_key("--prompt"));
    }
    return load_baseline_csv(o.baseline);
  }
  std::vector<PrefillScenario> out;
  for (const auto& text : o.prompts) {
    out.push_back(
        PrefillScenario{text, parse_prompt(text, InputLocation::for_key("--prompt")), {}});
  }
  return out;
}

Outcome run_penalty(const PenaltyOptions& o) {
  check_svg_path(o.svg);
  PenaltyRequest request;
  request.model = load_model(o.engine);
  request.engine = to_engine(o.engine);
  if (!o.measured_bytes.empty()) {
    request.measured_per_token =
        parse_bytes(o.measured_bytes, InputLocation::for_key("--bytes-per-token"));
  }
  request.scenarios = scenarios_from(o);
  request.budgets = to_budgets(o.budgets);
  request.calibration = load_calibration(o.calibration);
  const std::vector<Link> from_to{to_link(o.from, "--from"), to_link(o.to, "--to")};
  request.collective = to_collective_settings(o.engine);
  std::vector<ProfiledLink> links = with_fabrics(o.fabrics, from_to, request.collective,
                                                 load_node(o.node).name, request.calibration);
  request.from = std::move(links[0]);
  request.to = std::move(links[1]);
  request.accepted_tokens = o.accepted_tokens.given();
  request.decode_node = load_node(o.node);
  request.measured_per_token_origin = "--bytes-per-token";
  const PenaltyReport r = tpnet::run_penalty(request);
  Document doc = penalty_document(request, r);
  if (r.calibration) doc.fields.push_back(calibration_record(*r.calibration));
  write_svg(o.svg,
            penalty_figure(r, request.from.link, request.to.link,
                           describe(request.model, request.engine)),
            doc);
  Outcome out{std::move(doc), {}, 0};
  if (r.gated) {
    out.doc.fields.push_back(verdict_records(r.verdicts));
    out.doc.fields.push_back(flag("gate_passed", "all budgets hold", r.passed()));
    out.exit_code = r.passed() ? 0 : 1;
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
      ->capture_default_str();
  sub->add_option("--to", options->to, "Link to estimate (preset or rate)")->capture_default_str();
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
  sub->add_option("--fabric", options->fabrics,
                  "Fabric profiles of --from and --to for the predicted column: auto (the "
                  "node's measured profile of each preset; the --calibration file when one is "
                  "given), nominal, a built-in name or a calibration.yaml; one, or two")
      ->delimiter(',');
  add_node_option(sub, options->node);
  add_accepted_tokens_option(sub, options->accepted_tokens,
                             "Output tokens a decode forward yields per request (default 1 + "
                             "drafts)");
  add_svg_option(sub, options->svg, "the extra TTFT per scenario (bound and prediction)");
  add_format_option(sub, options->format);
  return Command{sub, [options] { return run_penalty(*options); },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
