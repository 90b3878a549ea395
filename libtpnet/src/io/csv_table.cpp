#include "csv_table.hpp"

#include <charconv>
#include <cmath>

namespace tpnet::csv {
namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> split_line(std::string_view line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
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
      cells.push_back(trim(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(trim(cell));
  return cells;
}

}  // namespace

Table Table::parse(std::string_view text, const std::string& origin) {
  Table table;
  table.origin_ = origin;
  int line_number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string_view raw =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    ++line_number;
    const std::string line = trim(raw);
    if (!line.empty() && line.front() != '#') {
      auto cells = split_line(line);
      if (table.header_.empty()) {
        table.header_ = std::move(cells);
        table.header_line_ = line_number;
      } else {
        if (cells.size() != table.header_.size()) {
          throw InputError("has " + std::to_string(cells.size()) + " cells; the header has " +
                               std::to_string(table.header_.size()),
                           InputLocation::in_file(origin, line_number));
        }
        table.rows_.push_back(Row{line_number, std::move(cells)});
      }
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (table.header_.empty()) {
    throw InputError("is empty; expected a CSV header and rows", InputLocation::in_file(origin));
  }
  if (table.rows_.empty()) {
    throw InputError("has a header but no data rows",
                     InputLocation::in_file(origin, table.header_line_));
  }
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
