#pragma once
/// The words of `tpnet report`, written once from a DecisionReport: the
/// verdict, each section's sentences and tables, and where each chart goes
/// with the sentence under it. The core words the decision so that the
/// verdict follows the one choice the plan made; the CLI only draws the
/// charts, adds the command line, and renders (docs/report.md).

#include <string>
#include <vector>

#include "tpnet/usecase/decision_report.hpp"

namespace tpnet {

/// The charts a decision document places; the CLI draws each from the report.
enum class DecisionChart { penalty, compare, predict, capacity, switch_plan, memory, expected };

/// Where a chart goes and the sentence under it.
struct DecisionFigure {
  DecisionChart chart = DecisionChart::penalty;
  std::string caption;
};

struct DecisionTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

struct DecisionSection {
  std::string heading;
  std::vector<std::string> paragraphs;
  std::vector<DecisionFigure> figures;
  std::vector<DecisionTable> tables;
  std::vector<std::string> items;  ///< a bulleted list
};

struct DecisionDocument {
  std::string title;
  /// The decision in a few sentences: what to buy and why, the trade, what the
  /// slower link costs and what does not change.
  std::vector<std::string> verdict;
  std::vector<DecisionSection> sections;
};

/// The report's words. Numbers come from `report` only, printed with
/// format_quantity's units; the warnings and the inputs are the caller's.
[[nodiscard]] DecisionDocument write_decision_document(const DecisionReport& report);

}  // namespace tpnet
