// tpnet report: one self-contained HTML file (or Markdown with its SVGs
// beside it) for a cluster decision (docs/report.md). The decision and its
// words come from the core (run_decision_report, write_decision_document),
// so the report never disagrees with `plan`; this file maps the flags, draws
// the charts the document places, adds the command line, and renders.

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "calibration_flags.hpp"
#include "capacity_flags.hpp"
#include "common.hpp"
#include "price_flags.hpp"
#include "report_files.hpp"
#include "tpnet/io/baseline_csv.hpp"
#include "tpnet/io/output_file.hpp"
#include "tpnet/usecase/decision_document.hpp"
#include "tpnet/usecase/decision_report.hpp"

namespace tpnet::cli {
namespace {

struct ReportOptions {
  EngineOptions engine;
  ClusterOptions cluster;
  std::string baseline;
  CapacityFlags capacity;
  CalibrationFlags calibration;
  PriceOptions prices;
  std::string out;
  std::string kind = "html";
  std::string summary_format = "table";
  CLI::Option* tp_option = nullptr;
  std::vector<std::string> command_line;  ///< as typed, for the "made by" line
};

/// Reads the report's files and maps its flags to the use case's request.
DecisionRequest to_decision_request(const ReportOptions& o) {
  DecisionRequest request;
  request.plan = to_plan_request(o.engine, o.cluster);
  apply_price_options(request.plan, o.prices);
  if (o.tp_option->count() > 0) request.tp = o.engine.tp;
  if (!o.baseline.empty()) {
    request.baseline = load_baseline_csv(o.baseline);
    request.baseline_origin = o.baseline;
  }
  request.calibration = load_calibration(o.calibration);
  // The calibration measured this cluster: it prices the fabric the plan
  // buys, as every other command's profile choice would.
  if (request.calibration) request.plan.calibration = request.calibration->file;
  request.capacity = load_capacity_request(o.capacity, request.tp, request.plan.model.name);
  return request;
}

/// The core's words with the charts drawn, named for `stem`, and the CLI's
/// own sections: the warnings and the command that made it. The core names
/// request fields (`workload.baseline`); a reader of the report typed flags.
Document to_document(const DecisionReport& g, const std::string& stem,
                     const std::vector<std::string>& command_line) {
  Document doc = write_decision_document(g);
  draw_report_charts(doc, g, stem);
  if (!g.warnings.empty()) doc.sections.push_back({"Warnings", {}, {}, {}, g.warnings, false});
  name_document_fields(doc, FieldNames::flags);
  doc.sections.push_back(inputs_section(command_line));  // as typed: no field to name
  return doc;
}

Outcome run_report(const ReportOptions& o) {
  if (o.out.empty()) throw InputError("give the file to write", InputLocation::for_key("--out"));
  check_output_path(o.out, "--out");
  const bool markdown = o.kind == "markdown";
  const std::filesystem::path out(o.out);
  const DecisionReport g = run_decision_report(to_decision_request(o));
  const Document report = to_document(g, out.stem().string(), o.command_line);

  Outcome outcome;
  Document& doc = outcome.doc;
  doc.title = fmt::format("tpnet report: {} written", o.out);
  doc.fields.push_back(text("out", "report written to", o.out));
  if (markdown) {
    doc.fields.push_back(
        texts("svgs", "charts written beside it", write_markdown_report(report, out)));
  } else {
    write_file_atomically(o.out, render(report, Format::html), "--out");
  }
  doc.fields.push_back(texts("verdict", "verdict", report.answer));
  doc.warnings = g.warnings;
  return outcome;
}

}  // namespace

Command setup_report(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* sub = app.add_subcommand(
      "report",
      "A self-contained HTML design review (or Markdown with SVGs): verdict, charts, switch "
      "plan, memory fit, traps, inputs");
  add_engine_options(sub, o->engine, false);
  o->tp_option = sub->add_option("--tp,--tensor-parallel-size", o->engine.tp,
                                 "TP of the penalty, decode and timeline sections and of the "
                                 "--baseline's measurements (default: the recommended layout's)");
  add_cluster_options(sub, o->cluster);
  sub->add_option("--baseline", o->baseline,
                  "CSV of measured TTFT at the fastest speed (columns requests, "
                  "prompt_tokens_each, ttft_s), as tpnet penalty reads it");
  add_capacity_flags(sub, o->capacity, "Capacity (measured sweeps, as tpnet capacity reads them)",
                     "A sweep CSV, a vllm bench serve result, or a folder");
  add_calibration_options(sub, o->calibration);
  add_memory_options(sub, o->cluster.memory);
  add_price_file_options(sub, o->prices);
  add_objective_option(sub, o->prices);
  sub->add_option("--out", o->out, "The file to write (report.html, or report.md)")->required();
  sub->add_option("--format", o->kind,
                  "html: one self-contained file; markdown: the text, with each chart as an SVG "
                  "beside it (<stem>-<chart>-<hash>.svg)")
      ->check(CLI::IsMember({"html", "markdown"}))
      ->default_str("html");
  Command command{sub, [o] { return run_report(*o); },
                  std::shared_ptr<const std::string>(o, &o->summary_format)};
  command.keep_command_line = [o](const std::vector<std::string>& typed) {
    o->command_line = typed;
  };
  return command;
}

}  // namespace tpnet::cli
