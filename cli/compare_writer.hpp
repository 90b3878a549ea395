#pragma once
// Compare's rows in every format, from one list of columns: the table's
// record, CSV's header and lines, and JSON's row objects are all written from
// it, so a column cannot reach one format and miss another. CSV and JSON
// stream, caching the cells shared by many rows, so a million rows take a
// fraction of a second.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "terminal.hpp"
#include "tpnet/usecase/compare.hpp"

namespace tpnet::cli {

/// Tables are for people; grids larger than this go to csv or json.
inline constexpr std::uint64_t kMaxCompareTableRows = 10000;

struct CompareColumn;

/// The columns one report's rows carry: those of the one list that the
/// report has values for (point columns with a calibration, predicted ones
/// with fabric profiles, TTFT increases when projected, the verdict when
/// gated).
class CompareRowSchema {
 public:
  explicit CompareRowSchema(const CompareReport& report);

  /// The row as tables and Markdown show it.
  [[nodiscard]] Record table_record(const CompareRow& row) const;

  /// What a CSV or JSON cell depends on: cells of the same layout, link pair
  /// or prompt are formatted once and reused across rows.
  enum class Scope { layout, links, prompt, row };
  static constexpr std::size_t kScopes = 4;

  /// CSV's and JSON's columns, by scope (the order they are written in).
  [[nodiscard]] const std::array<std::vector<const CompareColumn*>, kScopes>& grid_columns() const {
    return grid_;
  }
  /// CSV's header, in order: the keys of every JSON row object.
  [[nodiscard]] std::vector<std::string> grid_keys() const;

 private:
  std::vector<const CompareColumn*> table_;  ///< in table order
  std::array<std::vector<const CompareColumn*>, kScopes> grid_;
};

/// The grid's rows as a table (at most kMaxCompareTableRows: a larger grid is
/// refused, naming --format) and, when gated, whether every row holds, added
/// to `doc` with a warning when some do not; returns how many exceed a budget.
std::uint64_t add_compare_table(Document& doc, const CompareReport& report);

/// Writes the grid's rows (csv: a header line then one line per row; json:
/// `header`'s fields plus "rows") and returns how many rows exceed a budget.
/// With a calibration, each row carries the point-estimate columns too.
std::uint64_t write_compare_grid(std::ostream& os, Format format, const CompareReport& report,
                                 const Document& header);

/// write_compare_grid as a command's streamed output: exit 1, with a warning
/// on stderr after the rows, when some rows exceed a budget.
[[nodiscard]] std::function<int(std::ostream&)> compare_grid_writer(
    std::shared_ptr<const CompareReport> report, Document header, Format format);

}  // namespace tpnet::cli
