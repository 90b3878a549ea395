#include "report_files.hpp"

#include <fmt/format.h>

#include <system_error>

#include "chart.hpp"
#include "charts.hpp"
#include "switch_drawing.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/document_render.hpp"
#include "tpnet/io/output_file.hpp"
#include "tpnet/usecase/shared_fields.hpp"

namespace tpnet::cli {
namespace {

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

}  // namespace

void draw_report_charts(Document& report, const DecisionReport& decision, const std::string& stem) {
  for (auto& section : report.sections) {
    for (auto& f : section.figures) {
      f.svg = draw(f.chart, decision);
      f.file = figure_file_name(stem, f.chart, f.svg);
    }
  }
}

DocumentSection inputs_section(const std::vector<std::string>& command_line) {
  std::string line = "tpnet";
  for (const auto& w : command_line) line += " " + quoted_word(w);
  return {"Inputs", {fmt::format("Made by tpnet {} with this command:", TPNET_VERSION)},
          {},       {},
          {line},   true};
}

std::vector<std::string> write_markdown_report(const Document& report,
                                               const std::filesystem::path& out) {
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
    write_file_atomically(out.string(), render(report, Format::markdown), "--out");
  } catch (...) {
    for (const auto& path : added) {
      std::error_code ignored;
      std::filesystem::remove(path, ignored);
    }
    throw;
  }
  return svgs;
}

}  // namespace tpnet::cli
