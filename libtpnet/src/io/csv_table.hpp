#pragma once
// Private: a small CSV reader for measured data files. Blank lines and `#`
// lines before the header are skipped (the preamble tpnet-calibrate writes);
// after the header every line is data. Every row remembers its line for
// error messages.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"

namespace tpnet::csv {

/// The most columns a header may have: far above any tpnet format, low
/// enough that a line of nothing but commas cannot take memory by the cell.
inline constexpr std::size_t kMaxColumns = 1024;

struct Row {
  int line = 0;
  std::vector<std::string> cells;
};

class Table {
 public:
  /// Throws InputError when there is no header, a header names a column
  /// twice, a row's cell count differs, or the file has CR-only line endings.
  static Table parse(std::string_view text, const std::string& origin);

  /// The same checks, without keeping the rows: `each` sees one row at a time
  /// (valid only during the call), so memory does not grow with the file.
  static void stream(std::string_view text, const std::string& origin,
                     const std::function<void(const Table& header, const Row& row)>& each);

  [[nodiscard]] const std::vector<Row>& rows() const { return rows_; }
  [[nodiscard]] std::optional<std::size_t> column(std::string_view name) const;
  /// Throws naming the missing column and the header's line.
  [[nodiscard]] std::size_t require_column(std::string_view name) const;

  /// Typed cells; errors name the file, line and column.
  [[nodiscard]] double number(const Row& row, std::size_t column) const;
  [[nodiscard]] long long integer(const Row& row, std::size_t column) const;
  [[nodiscard]] const std::string& text(const Row& row, std::size_t column) const;

 private:
  std::string origin_;
  int header_line_ = 0;
  std::vector<std::string> header_;
  std::vector<Row> rows_;
};

}  // namespace tpnet::csv
