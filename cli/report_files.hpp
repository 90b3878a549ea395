#pragma once
// What `tpnet report` adds to the core's document before writing it: the
// charts drawn, the command that made it, and the Markdown files written
// beside each other (docs/report.md).

#include <filesystem>
#include <string>
#include <vector>

#include "tpnet/usecase/decision_report.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet::cli {

/// Draws each chart `report` places, naming its file for `stem`.
void draw_report_charts(Document& report, const DecisionReport& decision, const std::string& stem);

/// The "Inputs" section: the tpnet version and the command line as typed,
/// quoted so that it pastes back.
[[nodiscard]] DocumentSection inputs_section(const std::vector<std::string>& command_line);

/// Writes `report` as Markdown to `out` with each chart beside it, all or
/// nothing; returns the charts' paths.
std::vector<std::string> write_markdown_report(const Document& report,
                                               const std::filesystem::path& out);

}  // namespace tpnet::cli
