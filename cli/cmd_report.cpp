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
#include "chart.hpp"
#include "charts.hpp"
#include "common.hpp"
#include "price_flags.hpp"
#include "switch_drawing.hpp"
#include "tpnet/base/error.hpp"
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

/// The SVG of the chart a figure names.
std::string draw(const std::string& chart, const DecisionReport& g) {
  auto svg = [](chart::Figure f, const char* id) {
    f.id = id;
    return chart::render_svg(f);
  };
  if (chart == "penalty") {
    return svg(penalty_figure(g.penalty, g.from, g.to, describe(g.model, g.engine)), "penalty");
  }
  if (chart == "compare") return svg(compare_figure(*g.compare), "compare");
  if (chart == "predict") return svg(predict_figure(*g.predict, kReportChartRequests), "predict");
  if (chart == "capacity") return svg(capacity_figure(*g.capacity), "capacity");
  if (chart == "switch") return switch_plan_svg(*g.switch_drawn()->fabric->plan, "switch");
  if (chart == "memory") return svg(memory_figure(g.memory, g.model.name), "memory");
  if (chart == "expected") return svg(expected_figure(*g.expected, g.model.name), "expected");
  throw Error("report: a chart the document places has no drawing");
}

/// A shell word that pastes back as typed.
std::string quoted_word(const std::string& w) {
  if (!w.empty() && w.find_first_of(" \t\"'$\\*?;&|<>()") == std::string::npos) return w;
  std::string out = "'";
  for (const char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// The core's words with the charts drawn, named for `stem`, and the CLI's
/// own sections: the warnings in flag names and the command that made it.
Document to_document(const DecisionReport& g, const std::string& stem,
                     const std::vector<std::string>& command_line) {
  Document doc = write_decision_document(g);
  // The core names request fields (`workload.baseline`); a reader of the
  // report typed flags.
  auto flags = [](std::vector<std::string>& lines) {
    for (auto& l : lines) l = name_fields(l, FieldNames::flags);
  };
  flags(doc.answer);
  for (auto& section : doc.sections) {
    flags(section.paragraphs);
    flags(section.items);
    for (auto& f : section.figures) {
      f.svg = draw(f.chart, g);
      f.file = figure_file_name(stem, f.chart, f.svg);
    }
  }
  if (!g.warnings.empty()) {
    DocumentSection w{"Warnings", {}, {}, {}, {}, false};
    for (const auto& text : g.warnings) w.items.push_back(name_fields(text, FieldNames::flags));
    doc.sections.push_back(std::move(w));
  }
  std::string line = "tpnet";
  for (const auto& w : command_line) line += " " + quoted_word(w);
  doc.sections.push_back({"Inputs",
                          {fmt::format("Made by tpnet {} with this command:", TPNET_VERSION)},
                          {},
                          {},
                          {line},
                          true});
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
    // All or nothing: when the text cannot be written (a full disk), the
    // charts this run added beside it go too. A chart's name carries its
    // content's hash, so one that was there before is an earlier report's
    // identical chart, and stays.
    std::vector<std::string> svgs;
    std::vector<std::string> added;
    try {
      for (const auto& s : report.sections) {
        for (const auto& f : s.figures) {
          const std::string path = (out.parent_path() / f.file).string();
          check_output_path(path, "--out");
          std::error_code ignored;
          const bool existed = std::filesystem::exists(path, ignored);
          write_file_atomically(path, f.svg, "--out");
          svgs.push_back(path);
          if (!existed) added.push_back(path);
        }
      }
      write_file_atomically(o.out, render(report, Format::markdown), "--out");
    } catch (...) {
      for (const auto& path : added) {
        std::error_code ignored;
        std::filesystem::remove(path, ignored);
      }
      throw;
    }
    doc.fields.push_back(texts("svgs", "charts written beside it", svgs));
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
