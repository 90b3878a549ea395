#include "csv_table.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "tpnet/base/text.hpp"

namespace tpnet::csv {
namespace {

/// Splits one line into `cells` (reused between lines), at most `most` of
/// them: InputError at `where` past that, before the cells take memory.
void split_line(std::string_view line, std::size_t most, std::vector<std::string>& cells,
                const InputLocation& where, std::string_view what) {
  cells.clear();
  std::string cell;
  bool quoted = false;
  auto finish = [&] {
    if (cells.size() == most) {
      throw InputError(fmt::format("has more than {} cells; {}", most, what), where);
    }
    cells.emplace_back(trim_space(cell));
    cell.clear();
  };
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      finish();
    } else {
      cell += c;
    }
  }
  finish();
}

void require_unique_columns(const std::vector<std::string>& header, const std::string& origin,
                            int line) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (header[i] == header[j]) {
        throw InputError(fmt::format("names column '{}' twice (columns {} and {}); each column "
                                     "may appear once",
                                     header[i], j + 1, i + 1),
                         InputLocation::in_file(origin, line));
      }
    }
  }
}

}  // namespace

void Table::stream(std::string_view text, const std::string& origin,
                   const std::function<void(const Table& header, const Row& row)>& each) {
  Table table;
  table.origin_ = origin;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // Excel's "CSV UTF-8"
  Row row;
  bool any_row = false;
  int line_number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string_view raw =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    ++line_number;
    const std::string_view line = trim_space(raw);
    if (line.find('\r') != std::string_view::npos) {
      throw InputError(
          "has a carriage return inside a line: the file has CR-only (classic Mac) "
          "line endings; save it with LF or CRLF line endings",
          InputLocation::in_file(origin, line_number));
    }
    const bool comment = table.header_.empty() && !line.empty() && line.front() == '#';
    if (!line.empty() && !comment) {
      const InputLocation where = InputLocation::in_file(origin, line_number);
      if (table.header_.empty()) {
        split_line(line, kMaxColumns, table.header_, where,
                   fmt::format("a header may have at most {} columns", kMaxColumns));
        table.header_line_ = line_number;
        require_unique_columns(table.header_, origin, line_number);
      } else {
        split_line(line, table.header_.size(), row.cells, where,
                   fmt::format("the header has {}", table.header_.size()));
        if (row.cells.size() != table.header_.size()) {
          throw InputError(fmt::format("has {} cells; the header has {}", row.cells.size(),
                                       table.header_.size()),
                           where);
        }
        row.line = line_number;
        any_row = true;
        each(table, row);
      }
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (table.header_.empty()) {
    throw InputError("is empty; expected a CSV header and rows", InputLocation::in_file(origin));
  }
  if (!any_row) {
    throw InputError("has a header but no data rows",
                     InputLocation::in_file(origin, table.header_line_));
  }
}

Table Table::parse(std::string_view text, const std::string& origin) {
  Table table;
  std::vector<Row> rows;
  stream(text, origin, [&](const Table& header, const Row& row) {
    if (table.header_.empty()) table = header;
    rows.push_back(row);
  });
  table.rows_ = std::move(rows);
  return table;
}

std::optional<std::size_t> Table::column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return std::nullopt;
}

std::size_t Table::require_column(std::string_view name) const {
  if (auto index = column(name)) return *index;
  std::string have;
  for (const auto& h : header_) have += (have.empty() ? "" : ", ") + h;
  throw InputError("missing column '" + std::string(name) + "' (header has: " + have + ")",
                   InputLocation::in_file(origin_, header_line_));
}

const std::string& Table::text(const Row& row, std::size_t column) const {
  return row.cells.at(column);
}

double Table::number(const Row& row, std::size_t column) const {
  const std::string& cell = row.cells.at(column);
  double value = 0.0;
  auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (cell.empty() || ec != std::errc() || ptr != cell.data() + cell.size() ||
      !std::isfinite(value)) {
    throw InputError("'" + cell + "' is not a number",
                     InputLocation::in_file(origin_, row.line, "column " + header_[column]));
  }
  return value;
}

long long Table::integer(const Row& row, std::size_t column) const {
  const double value = number(row, column);
  if (value != std::floor(value) || std::fabs(value) > 9.0e15) {
    throw InputError("'" + row.cells.at(column) + "' is not a whole number",
                     InputLocation::in_file(origin_, row.line, "column " + header_[column]));
  }
  return static_cast<long long>(value);
}

}  // namespace tpnet::csv
