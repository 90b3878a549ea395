#pragma once
// Private: a small CSV reader for measured data files. `#` lines and blank
// lines are skipped; every row remembers its line for error messages.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/error.hpp"

namespace tpnet::csv {

struct Row {
  int line = 0;
  std::vector<std::string> cells;
};

class Table {
 public:
  /// Throws InputError when there is no header, or a row's cell count differs.
  static Table parse(std::string_view text, const std::string& origin);

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
