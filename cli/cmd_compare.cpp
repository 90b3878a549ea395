// tpnet compare: a grid of layouts x links x prompts, streamed for large grids.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <ostream>

#include "calibration_flags.hpp"
#include "charts.hpp"
#include "common.hpp"
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
  int baseline_tp = 0;
  std::string baseline_ttft;
  std::string baseline_prompt;
  std::string baseline_link;
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
  if (!o.reserved_memory.empty()) {
    throw InputError(
        "is no longer read: NCCL's buffers come from the node's measured footprint "
        "(--nccl-channels and --nccl-buffsize, or --nccl-tuned for the node's tuned pair, "
        "nccl_memory.tuned in its file) and the OS share from the node's reserved_memory",
        InputLocation::for_key("--reserved-memory"));
  }
  CompareRequest request = o.request;
  request.model = load_model(o.engine);
  EngineOptions engine_options = o.engine;
  engine_options.tp = o.tps.empty() ? 0 : o.tps.front();
  request.engine = to_engine(engine_options);
  for (int pp : o.pps) {
    for (int ep : o.eps) {
      for (int tp : o.tps) request.layouts.push_back(ParallelLayout{tp, pp, ep});
    }
  }
  std::vector<Link> from;
  std::vector<Link> to;
  for (const auto& text : o.from) from.push_back(to_link(text, "--from", o.engine));
  for (const auto& text : o.to) to.push_back(to_link(text, "--to", o.engine));
  for (const auto& text : o.prompts) {
    request.prompts.push_back(
        PrefillScenario{text, parse_prompt(text, InputLocation::for_key("--prompt")), {}});
  }
  const bool any_baseline = o.baseline_tp != 0 || !o.baseline_ttft.empty() ||
                            !o.baseline_prompt.empty() || !o.baseline_link.empty();
  if (any_baseline) {
    if (o.baseline_tp == 0 || o.baseline_ttft.empty() || o.baseline_prompt.empty()) {
      throw InputError(
          "a baseline needs --baseline-tp, --baseline-ttft and --baseline-prompt together "
          "(e.g. --baseline-tp 8 --baseline-ttft 6.36s --baseline-prompt 8k)",
          InputLocation::for_key("--baseline-tp"));
    }
    TtftBaseline b;
    b.layout = ParallelLayout{o.baseline_tp, 1, 1};
    b.ttft = parse_duration(o.baseline_ttft, InputLocation::for_key("--baseline-ttft"));
    b.prompt = parse_prompt(o.baseline_prompt, InputLocation::for_key("--baseline-prompt"));
    b.link = o.baseline_link.empty() ? from.front()
                                     : to_link(o.baseline_link, "--baseline-link", o.engine);
    request.projection = b;
  }
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
    request.from = with_fabrics({o.fabric}, from, request.node.name);
    request.to = with_fabrics({o.fabric}, to, request.node.name);
    request.accepted_tokens = o.accepted_tokens.given();
  }
  apply_side_by_side_options(request, o.side_by_side);
  return request;
}

Outcome run_compare(const CompareOptions& o) {
  const Format format = parse_format(o.format);
  check_svg_path(o.svg);
  auto report = std::make_shared<const CompareReport>(tpnet::run_compare(to_request(o)));
  Document doc = compare_document(*report, o.baseline_prompt);
  for (auto& w : doc.warnings) w = name_fields(w, FieldNames::flags);

  // Drawn before the rows stream: the chart is a second pass over the grid.
  write_svg(o.svg, compare_figure(*report), doc);
  Outcome outcome;
  if (format == Format::csv || format == Format::json) {
    outcome.doc = doc;
    outcome.write = [report, doc, format](std::ostream& os) {
      const std::uint64_t failed = write_compare_grid(os, format, *report, doc);
      if (failed == 0) return 0;
      os.flush();
      fmt::print(stderr, "tpnet: warning: gate failed: {} rows exceed a budget\n", failed);
      return 1;
    };
    return outcome;
  }

  const std::uint64_t failures = add_compare_table(doc, *report);
  outcome.doc = std::move(doc);
  outcome.exit_code = failures > 0 ? 1 : 0;
  return outcome;
}

}  // namespace

Command setup_compare(CLI::App& app) {
  auto options = std::make_shared<CompareOptions>();
  CLI::App* sub = app.add_subcommand(
      "compare", "Grid of TP/PP/EP layouts x links x prompts: bytes, bounds, projections, fit");
  add_engine_options(sub, options->engine, false);
  const std::string grid = "Grid";
  // A list's default as it is typed (2,4,8,16), from the options' own value.
  const auto grid_list = [&](const std::string& name, auto& values, const std::string& help) {
    CLI::Option* option = sub->add_option(name, values, help)->delimiter(',')->group(grid);
    if (!values.empty()) option->default_str(fmt::format("{}", fmt::join(values, ",")));
  };
  grid_list("--tp", options->tps, "TP sizes, e.g. 2,4,8,16");
  grid_list("--pp", options->pps, "Pipeline stages, e.g. 1,2");
  grid_list("--ep", options->eps, "Expert-parallel sizes (MoE), e.g. 1,8");
  grid_list("--from", options->from, "Baseline links");
  grid_list("--to", options->to, "Links to estimate");
  grid_list("--prompt", options->prompts, "Prompt scenarios (default: the study's P1-P6)");
  sub->add_option("--reference-tp", options->reference_tp,
                  "TP the ratios compare against (default: the baseline's, else 8 or the first)")
      ->group(grid);
  const std::string baseline = "Measured baseline (projects TTFT to other layouts)";
  sub->add_option("--baseline-tp", options->baseline_tp, "TP the TTFT was measured at")
      ->group(baseline);
  sub->add_option("--baseline-ttft", options->baseline_ttft, "Measured TTFT, e.g. 6.36s")
      ->group(baseline);
  sub->add_option("--baseline-prompt", options->baseline_prompt, "Its prompt, e.g. 8k")
      ->group(baseline);
  sub->add_option("--baseline-link", options->baseline_link, "Its link (default: the first --from)")
      ->group(baseline);
  add_node_option(sub, options->node);
  add_memory_options(sub, options->memory);
  sub->add_option("--reserved-memory", options->reserved_memory,
                  "No longer read (refused): NCCL's buffers come from --nccl-tuned, "
                  "--nccl-channels and --nccl-buffsize")
      ->group("");
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
