#pragma once
// The streaming writer behind `tpnet compare --format csv|json`: it caches the
// cells shared by many rows so a million rows take a fraction of a second.

#include <cstdint>
#include <ostream>
#include <vector>

#include "document.hpp"
#include "tpnet/analysis/compare.hpp"
#include "tpnet/analysis/point_estimate.hpp"

namespace tpnet::cli {

/// A calibration's point estimates for compare rows (--calibration).
struct ComparePoints {
  const AllReduceCalibration* allreduce = nullptr;
  const ComputeCalibration* compute = nullptr;  ///< null: no share columns
  const ModelArch* model = nullptr;
  const EngineConfig* engine = nullptr;

  /// The row's prompt priced from the curve at its two links; compute
  /// divided evenly over the layout's nodes.
  [[nodiscard]] PrefillPoint at(const CompareRow& row) const;
};

/// Writes the grid's rows (csv: a header line then one line per row; json:
/// `header`'s fields plus "rows") and returns how many rows exceed a budget.
/// With `points`, each row carries the point-estimate columns too.
std::uint64_t write_compare_grid(std::ostream& os, Format format, const CompareSpec& spec,
                                 const std::vector<LayoutSummary>& layouts, const Document& header,
                                 const ComparePoints* points = nullptr);

}  // namespace tpnet::cli
