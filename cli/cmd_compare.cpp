// tpnet compare: a grid of layouts x links x prompts, streamed for large grids.

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <ostream>

#include "calibration_flags.hpp"
#include "common.hpp"
#include "compare_writer.hpp"
#include "exit_codes.hpp"
#include "tpnet/analysis/compare.hpp"
#include "tpnet/quantity.hpp"

namespace tpnet::cli {
namespace {

/// Tables are for people; grids larger than this go to csv or json.
constexpr std::uint64_t kMaxTableRows = 10000;

struct CompareOptions {
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
  std::string node_memory = "121GB";
  double gpu_memory_utilization = 0.9;
  std::string reserved_memory = "11GB";
  int requests = 1;
  std::string memory_bandwidth = "273GB/s";
  BudgetOptions budgets;
  CalibrationFlags calibration;
  std::string format = "table";
};

CompareSpec to_spec(const CompareOptions& o, const EngineConfig& engine) {
  CompareSpec spec;
  for (int pp : o.pps) {
    for (int ep : o.eps) {
      for (int tp : o.tps) spec.layouts.push_back(ParallelLayout{tp, pp, ep});
    }
  }
  for (const auto& text : o.from) spec.from.push_back(to_link(text, "--from", o.engine));
  for (const auto& text : o.to) spec.to.push_back(to_link(text, "--to", o.engine));
  if (o.prompts.empty()) {
    spec.prompts = study_scenarios();
  } else {
    for (const auto& text : o.prompts) {
      spec.prompts.push_back(
          PrefillScenario{text, parse_prompt(text, InputLocation::for_key("--prompt")), {}});
    }
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
    b.link = o.baseline_link.empty() ? spec.from.front()
                                     : to_link(o.baseline_link, "--baseline-link", o.engine);
    spec.baseline = b;
  }

  // Ratios are against the baseline's layout (unless a single node), else TP8 as in DOMAIN.md, else
  // the grid's first layout.
  if (o.reference_tp != 0) {
    spec.reference = ParallelLayout{o.reference_tp, 1, 1};
  } else if (spec.baseline && spec.baseline->layout.nodes() > 1) {
    spec.reference = spec.baseline->layout;
  } else if (std::find(o.tps.begin(), o.tps.end(), 8) != o.tps.end()) {
    spec.reference = ParallelLayout{8, 1, 1};
  } else {
    spec.reference = spec.layouts.front();
  }
  spec.memory.usable = parse_bytes(o.node_memory, InputLocation::for_key("--node-memory"));
  spec.memory.reserved =
      parse_bytes(o.reserved_memory, InputLocation::for_key("--reserved-memory"));
  if (!(o.gpu_memory_utilization > 0.0 && o.gpu_memory_utilization <= 1.0)) {
    throw InputError("must be in (0, 1], e.g. 0.9",
                     InputLocation::for_key("--gpu-memory-utilization"));
  }
  spec.memory.utilization = o.gpu_memory_utilization;
  spec.decode_requests = o.requests;
  spec.memory_bandwidth = parse_bit_rate(o.memory_bandwidth, InputLocation::for_key("--mem-bw"));
  spec.budgets = to_budgets(o.budgets);
  if (spec.budgets.max_ttft_increase && !spec.baseline) {
    throw InputError(
        "needs a measured baseline to project TTFT from (--baseline-tp, "
        "--baseline-ttft, --baseline-prompt)",
        InputLocation::for_key("--max-ttft-increase"));
  }
  (void)engine;
  return spec;
}

Record table_row(const CompareRow& r, bool projected, bool gated, const ComparePoints* points) {
  const LayoutSummary& s = *r.layout;
  Record rec{
      text("layout", "layout", s.layout.name()),
      integer("nodes", "nodes", s.layout.nodes()),
      text("link", "link", r.from->name + "->" + r.to->name),
      text("prompt", "prompt", r.prompt->name),
      number("per_token_bytes", "bytes/token/node", s.per_token_bytes.count(), kBytesMB, 2),
      number("bytes_ratio", "bytes ratio", s.bytes_ratio, kTimes, 2),
      number("compute_ratio", "compute ratio", s.compute_ratio, kTimes, 2),
      integer("steps_per_forward", "steps/forward", s.steps_per_forward),
      number("decode_forward_bytes", "decode bytes/forward", s.decode_forward_bytes.count(),
             kBytesMB, 2),
      json_only(number("prefill_forward_bytes", "prefill bytes/forward",
                       s.prefill_forward_bytes.count(), kBytesGB, 2)),
      json_only(integer("prefill_messages_per_forward", "prefill messages/forward",
                        static_cast<double>(s.prefill_messages))),
      json_only(integer("decode_messages_per_forward", "decode messages/forward",
                        static_cast<double>(s.decode_messages))),
      number("comm_s_per_1k_tokens", "comm per 1k", r.comm_per_1k.value(), kSeconds, 3),
      signed_number("extra_ttft_bound_s", "extra TTFT bound", r.extra_bound.value(), kSeconds, 2),
  };
  if (points != nullptr) {
    const PrefillPoint p = points->at(r);
    rec.push_back(
        json_only(number("point_comm_from_s", "point comm", p.comm_from.value(), kSeconds, 2)));
    rec.push_back(signed_number("point_extra_ttft_s", "point extra", p.extra.value(), kSeconds, 2));
    if (points->compute != nullptr) {
      rec.push_back(number("point_network_share_pct", "point share",
                           p.network_share.value_or(0.0) * 100.0, kPercent, 1));
      rec.push_back(signed_number("point_ttft_increase_pct", "point TTFT increase",
                                  p.ttft_increase.value_or(0.0) * 100.0, kPercent, 1));
    }
  }
  rec.push_back(
      number("weights_per_node_bytes", "weights/node", s.weights_per_node.count(), kBytesGB, 1));
  rec.push_back(text("fits_memory", "fits", s.fits_memory ? "yes" : "NO"));
  if (projected) {
    rec.push_back(signed_number("projected_ttft_increase_pct", "projected TTFT increase",
                                *r.projected_increase * 100.0, kPercent, 1));
  }
  if (gated) rec.push_back(text("within_budget", "budget", r.within_budget ? "ok" : "EXCEEDED"));
  return rec;
}

Outcome run_compare(const CompareOptions& o) {
  const ModelArch model = load_model(o.engine);
  EngineOptions engine_options = o.engine;
  engine_options.tp = o.tps.empty() ? 0 : o.tps.front();
  const EngineConfig engine = to_engine(engine_options);
  const CompareSpec spec = to_spec(o, engine);
  const std::uint64_t rows = compare_row_count(spec);
  const auto layouts = summarize_layouts(model, engine, spec);
  const Format format = parse_format(o.format);

  Document doc;
  doc.title =
      fmt::format("tpnet compare: {} over {} layouts x {} link pairs x {} prompts", model.name,
                  spec.layouts.size(), spec.from.size() * spec.to.size(), spec.prompts.size());
  doc.fields = {
      text("model", "model", model.name),
      text("reference_layout", "ratios against", spec.reference.name()),
      integer("chunk_tokens", "prefill chunk", static_cast<double>(engine.max_num_batched_tokens)),
      integer("row_count", "rows", static_cast<double>(rows))};
  if (spec.baseline) {
    doc.fields.push_back(text(
        "baseline", "projected from",
        fmt::format("{} {} at {}: TTFT {:g} s", spec.baseline->layout.name(), o.baseline_prompt,
                    spec.baseline->link.name, spec.baseline->ttft.value())));
  }
  // Shared with the streaming writer, which outlives this function.
  std::shared_ptr<const Calibration> calibration;
  std::shared_ptr<ComparePoints> points;
  auto engine_ptr = std::make_shared<const EngineConfig>(engine);
  auto model_ptr = std::make_shared<const ModelArch>(model);
  if (auto loaded = load_calibration(o.calibration)) {
    calibration = std::make_shared<const Calibration>(std::move(*loaded));
    CalibrationRequest request;
    request.tps = o.tps;
    request.from = spec.from;
    request.nccl_version = o.calibration.nccl_version;
    request.project_compute = true;
    const CalibrationUse use = check_calibration(*calibration, model, engine, request);
    points = std::make_shared<ComparePoints>(
        ComparePoints{use.allreduce, use.compute, model_ptr.get(), engine_ptr.get()});
    doc.fields.push_back(calibration_record(*calibration, use));
    for (const auto& w : use.warnings) doc.warnings.push_back(w);
  }
  for (const auto& s : layouts) {
    if (!s.fits_memory) {
      doc.warnings.push_back(fmt::format(
          "{}: {:.1f} GB of weights per node exceed the {:.1f} GB left for them ({} usable x {} "
          "less {} reserved)",
          s.layout.name(), s.weights_per_node.count() / 1e9,
          spec.memory.for_weights().count() / 1e9, o.node_memory, o.gpu_memory_utilization,
          o.reserved_memory));
    }
  }

  Outcome outcome;
  const bool projected = spec.baseline.has_value();
  const bool gated = spec.budgets.any();
  if (format == Format::csv || format == Format::json) {
    outcome.doc = doc;
    outcome.write = [spec, layouts, doc, format, calibration, points, model_ptr,
                     engine_ptr](std::ostream& os) {
      const std::uint64_t failed = write_compare_grid(os, format, spec, layouts, doc, points.get());
      if (failed == 0) return 0;
      os.flush();
      fmt::print(stderr, "tpnet: warning: gate failed: {} rows exceed a budget\n", failed);
      return 1;
    };
    return outcome;
  }

  if (rows > kMaxTableRows) {
    throw InputError(fmt::format("{} rows are too many for a table (at most {}); use --format csv "
                                 "or json",
                                 rows, kMaxTableRows),
                     InputLocation::for_key("--format"));
  }
  std::vector<Record> table;
  std::uint64_t failures = 0;
  for_each_compare_row(spec, layouts, [&](const CompareRow& r) {
    table.push_back(table_row(r, projected, gated, points.get()));
    failures += r.within_budget ? 0 : 1;
  });
  doc.fields.push_back(records("rows", "rows", std::move(table)));
  if (gated) {
    doc.fields.push_back(flag("gate_passed", "all rows within budget", failures == 0));
    if (failures > 0)
      doc.warnings.push_back(fmt::format("gate failed: {} rows exceed a budget", failures));
  }
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
  sub->add_option("--tp", options->tps, "TP sizes, e.g. 2,4,8,16")
      ->delimiter(',')
      ->group(grid)
      ->default_str("2,4,8,16");
  sub->add_option("--pp", options->pps, "Pipeline stages, e.g. 1,2")
      ->delimiter(',')
      ->group(grid)
      ->default_str("1");
  sub->add_option("--ep", options->eps, "Expert-parallel sizes (MoE), e.g. 1,8")
      ->delimiter(',')
      ->group(grid)
      ->default_str("1");
  sub->add_option("--from", options->from, "Baseline links")
      ->delimiter(',')
      ->group(grid)
      ->default_str("200G");
  sub->add_option("--to", options->to, "Links to estimate")
      ->delimiter(',')
      ->group(grid)
      ->default_str("100G");
  sub->add_option("--prompt", options->prompts, "Prompt scenarios (default: the study's P1-P6)")
      ->delimiter(',')
      ->group(grid);
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
  const std::string memory = "Memory fit";
  sub->add_option("--node-memory", options->node_memory, "Usable memory per node")
      ->group(memory)
      ->default_str("121GB");
  sub->add_option("--gpu-memory-utilization", options->gpu_memory_utilization, "vLLM's share of it")
      ->group(memory)
      ->default_val(0.9);
  sub->add_option("--reserved-memory", options->reserved_memory, "NCCL buffers and runtime")
      ->group(memory)
      ->default_str("11GB");
  sub->add_option("--requests", options->requests, "Running requests per decode forward")
      ->default_val(1);
  sub->add_option("--mem-bw", options->memory_bandwidth, "Memory bandwidth per node")
      ->default_str("273GB/s");
  add_budget_options(sub, options->budgets, true);
  set_gate_exit_codes(sub, "a row exceeds a budget");
  add_calibration_options(sub, options->calibration);
  add_format_option(sub, options->format);
  return Command{sub, [options] { return run_compare(*options); },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
