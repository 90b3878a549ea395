#pragma once
// The streaming writer behind `tpnet compare --format csv|json`: it caches the
// cells shared by many rows so a million rows take a fraction of a second.

#include <cstdint>
#include <ostream>

#include "document.hpp"
#include "tpnet/usecase/compare.hpp"

namespace tpnet::cli {

/// Writes the grid's rows (csv: a header line then one line per row; json:
/// `header`'s fields plus "rows") and returns how many rows exceed a budget.
/// With a calibration, each row carries the point-estimate columns too.
std::uint64_t write_compare_grid(std::ostream& os, Format format, const CompareReport& report,
                                 const Document& header);

}  // namespace tpnet::cli
