// tpnet compare: a grid of layouts x links x prompts, streamed for large grids.

#include <memory>
#include <ostream>

#include "baseline_flags.hpp"
#include "calibration_flags.hpp"
#include "charts.hpp"
#include "common.hpp"
#include "compare_inputs.hpp"
#include "compare_writer.hpp"
#include "exit_codes.hpp"
#include "side_by_side_flags.hpp"
#include "svg_output.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/usecase/compare.hpp"

namespace tpnet::cli {
namespace {

struct CompareOptions {
  CompareRequest request;  ///< the fields a flag sets as they are (--requests)
  EngineOptions engine;
  std::vector<int> tps{2, 4, 8, 16};
  std::vector<int> pps{1};
  std::vector<int> eps{1};
  std::vector<std::string> from{"200G"};
  std::vector<std::string> to{"100G"};
  std::vector<std::string> prompts;
  int reference_tp = 0;
  TtftBaselineFlags baseline;
  std::string node = std::string(kDefaultNodeName);
  MemoryOptions memory;
  std::string reserved_memory;   ///< refused: the memory fit prices NCCL's buffers itself
  std::string memory_bandwidth;  ///< empty: the node's
  BudgetOptions budgets;
  CalibrationFlags calibration;
  std::string fabric;  ///< empty: no predicted column
  AcceptedTokensFlag accepted_tokens;
  std::string svg;
  SideBySideOptions side_by_side;
  std::string format = "table";
};

CompareRequest to_request(const CompareOptions& o) {
  refuse_reserved_memory(o.reserved_memory);
  CompareRequest request = o.request;
  request.model = load_model(o.engine);
  EngineOptions engine_options = o.engine;
  engine_options.tp = o.tps.empty() ? 0 : o.tps.front();
  request.engine = to_engine(engine_options);
  request.layouts = grid_layouts(o.tps, o.pps, o.eps);
  const std::vector<Link> from = to_links(o.from, "--from");
  const std::vector<Link> to = to_links(o.to, "--to");
  const CollectiveSettings settings = to_collective_settings(o.engine);
  request.prompts = prompt_scenarios(o.prompts);
  request.projection = to_ttft_baseline(o.baseline, from.front());
  if (o.reference_tp != 0) request.reference = ParallelLayout{o.reference_tp, 1, 1};
  request.node = load_node(o.node);
  request.memory = to_memory_settings(o.memory);
  if (!o.memory_bandwidth.empty()) {
    request.memory_bandwidth =
        parse_bit_rate(o.memory_bandwidth, InputLocation::for_key("--mem-bw"));
  }
  request.budgets = to_budgets(o.budgets);
  request.calibration = load_calibration(o.calibration);
  if (o.fabric.empty()) {
    request.from = without_profiles(from);
    request.to = without_profiles(to);
  } else {
    request.from = with_fabrics({o.fabric}, from, settings, request.node.name);
    request.to = with_fabrics({o.fabric}, to, settings, request.node.name);
    request.accepted_tokens = o.accepted_tokens.given();
  }
  apply_side_by_side_options(request, o.side_by_side, settings);
  return request;
}

Outcome run_compare(const CompareOptions& o) {
  const Format format = parse_format(o.format);
  check_svg_path(o.svg);
  auto report = std::make_shared<const CompareReport>(tpnet::run_compare(to_request(o)));
  Document doc = compare_document(*report, o.baseline.prompt);
  for (auto& w : doc.warnings) w = name_fields(w, FieldNames::flags);

  // Drawn before the rows stream: the chart is a second pass over the grid.
  write_svg(o.svg, compare_figure(*report), doc);
  if (format == Format::csv || format == Format::json) {
    return Outcome{doc, compare_grid_writer(report, doc, format), 0};
  }
  const bool every_row_within_budgets = add_compare_table(doc, *report) == 0;
  return Outcome{std::move(doc), {}, every_row_within_budgets ? 0 : 1};
}

}  // namespace

Command setup_compare(CLI::App& app) {
  auto options = std::make_shared<CompareOptions>();
  CLI::App* sub = app.add_subcommand(
      "compare", "Grid of TP/PP/EP layouts x links x prompts: bytes, bounds, projections, fit");
  add_engine_options(sub, options->engine, false);
  const std::string grid = "Grid";
  add_list_option(sub, "--tp", options->tps, "TP sizes, e.g. 2,4,8,16", grid);
  add_list_option(sub, "--pp", options->pps, "Pipeline stages, e.g. 1,2", grid);
  add_list_option(sub, "--ep", options->eps, "Expert-parallel sizes (MoE), e.g. 1,8", grid);
  add_list_option(sub, "--from", options->from, "Baseline links", grid);
  add_list_option(sub, "--to", options->to, "Links to estimate", grid);
  add_list_option(sub, "--prompt", options->prompts,
                  "Prompt scenarios (default: the study's P1-P6)", grid);
  sub->add_option("--reference-tp", options->reference_tp,
                  "TP the ratios compare against (default: the baseline's, else 8 or the first)")
      ->group(grid);
  const std::string baseline = "Measured baseline (projects TTFT to other layouts)";
  add_ttft_baseline_flags(sub, options->baseline, baseline, "Measured TTFT, e.g. 6.36s");
  sub->add_option("--baseline-link", options->baseline.link, "Its link (default: the first --from)")
      ->group(baseline);
  add_node_option(sub, options->node);
  add_memory_options(sub, options->memory);
  add_retired_reserved_memory_option(sub, options->reserved_memory);
  sub->add_option("--requests", options->request.decode_requests,
                  "Running requests per decode forward")
      ->capture_default_str();
  sub->add_option("--mem-bw", options->memory_bandwidth,
                  "Memory bandwidth per node (default: the node's memory_bandwidth)");
  add_budget_options(sub, options->budgets, true);
  set_gate_exit_codes(sub, "a row exceeds a budget");
  add_calibration_options(sub, options->calibration);
  sub->add_option("--fabric", options->fabric,
                  "Add each TP row's predicted extra TTFT through the scheduler on the links' "
                  "fabric profiles: auto (the node's measured profile of each preset), nominal, "
                  "a built-in name or a calibration.yaml (one for every link; about 20 us a row)");
  add_accepted_tokens_option(sub, options->accepted_tokens,
                             "With --fabric: output tokens a decode forward yields per request "
                             "(default 1 + drafts)");
  add_svg_option(sub, options->svg, "bytes per node and the TTFT cost by layout");
  add_side_by_side_options(sub, options->side_by_side);
  add_format_option(sub, options->format);
  return Command{sub, [options] { return run_compare(*options); },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
