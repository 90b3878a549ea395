#pragma once
/// The words of `tpnet report`, written once from a DecisionReport: the
/// verdict, each section's sentences and tables, and where each chart goes
/// with the sentence under it. The core words the decision so that the
/// verdict follows the one choice the plan made; the CLI only draws the
/// charts, adds the command line, and renders (docs/report.md).

#include <string>
#include <vector>

#include "tpnet/usecase/decision_report.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet {

/// The charts a decision document places, by the names its figures carry;
/// the CLI draws each from the report.
inline constexpr const char* kDecisionCharts[] = {"penalty", "compare", "predict", "capacity",
                                                  "switch",  "memory",  "expected"};

/// The report's words: the verdict as the document's answer, then its
/// sections. Numbers come from `report` only, printed with format_quantity's
/// units; the charts' drawings, the warnings and the inputs are the caller's.
[[nodiscard]] Document write_decision_document(const DecisionReport& report);

}  // namespace tpnet
