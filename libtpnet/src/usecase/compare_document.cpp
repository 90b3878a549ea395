// tpnet compare's answer as a document: what the grid is of (its title), the
// model, the layout ratios are against, the node, the prefill chunk, the
// rows, the projection's baseline and the calibration (docs/json.md,
// "compare"). The rows themselves are written by the CLI, which streams
// large grids as CSV or JSON.
#include <fmt/format.h>

#include <string>

#include "tpnet/usecase/compare.hpp"
#include "tpnet/usecase/shared_fields.hpp"

namespace tpnet {

Document compare_document(const CompareReport& report, const std::string& baseline_prompt) {
  const CompareRequest& request = report.request;
  Document doc;
  doc.title = fmt::format("tpnet compare: {} over {} layouts x {} link pairs x {} prompts",
                          request.model.name, request.layouts.size(),
                          request.from.size() * request.to.size(), request.prompts.size());
  doc.fields = {text("model", "model", request.model.name),
                text("reference_layout", "ratios against", report.reference.name()),
                text("node", "node", request.node.name),
                integer("chunk_tokens", "prefill chunk",
                        static_cast<double>(request.engine.max_num_batched_tokens)),
                integer("row_count", "rows", static_cast<double>(report.row_count))};
  if (const auto& b = request.projection) {
    const std::string prompt =
        baseline_prompt.empty() ? std::to_string(b->prompt.total_tokens()) : baseline_prompt;
    doc.fields.push_back(text("baseline", "projected from",
                              fmt::format("{} {} at {}: TTFT {:g} s", b->layout.name(), prompt,
                                          b->link.name, b->ttft.value())));
  }
  if (report.calibration) doc.fields.push_back(calibration_record(*report.calibration));
  doc.warnings = report.warnings;
  return doc;
}

}  // namespace tpnet
