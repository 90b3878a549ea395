// Compare's one row schema and the CSV/JSON writer that streams it.

#include "compare_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "tpnet/base/error.hpp"

namespace tpnet::cli {

/// One column of compare's rows, for every format.
struct CompareColumn {
  using Scope = CompareRowSchema::Scope;

  /// A cell before formatting: CSV and JSON print `number`, `text` or
  /// `flag`; tables print the number in the column's unit, else `word` when
  /// set, else `text`. A missing value (a PP or EP row's prediction) is null
  /// in JSON, empty in CSV and "-" in tables.
  struct Cell {
    enum class Kind { number, text, flag, missing };
    Kind kind = Kind::missing;
    double number = 0.0;
    bool flag = false;
    std::string text;
    std::string_view word;  ///< what tables show instead of `text` or `flag`
  };

  /// Where a table shows a column: tables group columns by the question they
  /// answer, CSV and JSON by scope.
  enum class Slot { names, traffic, ttft, memory, verdict };
  enum class Shown {
    column,        ///< in every table
    wide,          ///< with --wide, and in Markdown
    not_in_tables  ///< CSV and JSON only
  };
  /// How tables show a number.
  enum class Style { plain, signed_number, whole };
  /// Which reports carry the column.
  enum class When { always, calibrated, compute_calibrated, fabric, projected, gated };

  std::string_view key;    ///< JSON key and CSV header, unit-suffixed
  std::string_view label;  ///< table header
  Scope scope;
  When when;
  Slot slot;
  Shown shown;
  Style style;
  DisplayUnit unit;
  int decimals;
  Cell (*cell)(const CompareRow&);
  bool in_grid = true;  ///< false: a table-only view of columns CSV and JSON carry
};

namespace {

using Scope = CompareColumn::Scope;
using Cell = CompareColumn::Cell;
using Slot = CompareColumn::Slot;
using Shown = CompareColumn::Shown;
using Style = CompareColumn::Style;
using When = CompareColumn::When;

Cell number_cell(double value) {
  Cell c;
  c.kind = Cell::Kind::number;
  c.number = value;
  return c;
}

Cell text_cell(std::string text, std::string_view word = {}) {
  Cell c;
  c.kind = Cell::Kind::text;
  c.text = std::move(text);
  c.word = word;
  return c;
}

Cell flag_cell(bool value, std::string_view yes, std::string_view no) {
  Cell c;
  c.kind = Cell::Kind::flag;
  c.flag = value;
  c.word = value ? yes : no;
  return c;
}

Cell count_cell(long long value) { return number_cell(static_cast<double>(value)); }

/// PP and EP layouts are not predicted.
Cell predicted_cell(const std::optional<Seconds>& value) {
  return value ? number_cell(value->value()) : Cell{};
}

/// With a calibration every row has its point; without, the column is absent.
Cell point_cell(const CompareRow& r, double (*value)(const PrefillPoint&)) {
  return r.calibrated_point ? number_cell(value(*r.calibrated_point)) : Cell{};
}

// clang-format off: one column per entry, however long its getter
/// Every column of compare's rows, the one place a column is added. CSV and
/// JSON write them scope by scope (a scope's cells are reused across the rows
/// that share it), tables slot by slot; both keep this list's order within.
const CompareColumn kColumns[] = {
    // {key, label, scope, when,
    //  slot, shown, style, unit, decimals (how tables show it),
    //  cell[, in_grid]}
    {"layout", "layout", Scope::layout, When::always,
     Slot::names, Shown::column, Style::plain, kCount, 0,
     [](const CompareRow& r) { return text_cell(r.layout->layout.name()); }},
    {"tp", "TP", Scope::layout, When::always,
     Slot::names, Shown::not_in_tables, Style::whole, kCount, 0,
     [](const CompareRow& r) { return number_cell(r.layout->layout.tp); }},
    {"pp", "PP", Scope::layout, When::always,
     Slot::names, Shown::not_in_tables, Style::whole, kCount, 0,
     [](const CompareRow& r) { return number_cell(r.layout->layout.pp); }},
    {"ep", "EP", Scope::layout, When::always,
     Slot::names, Shown::not_in_tables, Style::whole, kCount, 0,
     [](const CompareRow& r) { return number_cell(r.layout->layout.ep); }},
    {"nodes", "nodes", Scope::layout, When::always,
     Slot::names, Shown::column, Style::whole, kCount, 0,
     [](const CompareRow& r) { return number_cell(r.layout->layout.nodes()); }},
    // The default table answers "what does each layout cost": bytes, the TTFT
    // bound, memory fit; the ratios and per-forward detail are --wide's.
    {"per_token_bytes", "bytes/token/node", Scope::layout, When::always,
     Slot::traffic, Shown::column, Style::plain, kBytesMB, 2,
     [](const CompareRow& r) { return number_cell(r.layout->per_token_bytes.count()); }},
    {"bytes_ratio", "bytes ratio", Scope::layout, When::always,
     Slot::traffic, Shown::wide, Style::plain, kTimes, 2,
     [](const CompareRow& r) { return number_cell(r.layout->bytes_ratio); }},
    {"compute_ratio", "compute ratio", Scope::layout, When::always,
     Slot::traffic, Shown::wide, Style::plain, kTimes, 2,
     [](const CompareRow& r) { return number_cell(r.layout->compute_ratio); }},
    {"steps_per_forward", "steps/forward", Scope::layout, When::always,
     Slot::traffic, Shown::wide, Style::whole, kCount, 0,
     [](const CompareRow& r) { return number_cell(r.layout->steps_per_forward); }},
    {"prefill_forward_bytes", "prefill bytes/forward", Scope::layout, When::always,
     Slot::traffic, Shown::not_in_tables, Style::plain, kBytesGB, 2,
     [](const CompareRow& r) { return number_cell(r.layout->prefill_forward_bytes.count()); }},
    {"prefill_messages_per_forward", "prefill messages/forward", Scope::layout, When::always,
     Slot::traffic, Shown::not_in_tables, Style::whole, kCount, 0,
     [](const CompareRow& r) { return count_cell(r.layout->prefill_messages); }},
    {"decode_forward_bytes", "decode bytes/forward", Scope::layout, When::always,
     Slot::traffic, Shown::wide, Style::plain, kBytesMB, 2,
     [](const CompareRow& r) { return number_cell(r.layout->decode_forward_bytes.count()); }},
    {"decode_messages_per_forward", "decode messages/forward", Scope::layout, When::always,
     Slot::traffic, Shown::not_in_tables, Style::whole, kCount, 0,
     [](const CompareRow& r) { return count_cell(r.layout->decode_messages); }},
    {"weights_per_node_bytes", "weights/node", Scope::layout, When::always,
     Slot::memory, Shown::column, Style::plain, kBytesGB, 1,
     [](const CompareRow& r) { return number_cell(r.layout->weights_per_node().count()); }},
    {"fits_memory", "fits", Scope::layout, When::always,
     Slot::memory, Shown::column, Style::plain, kCount, 0,
     [](const CompareRow& r) { return flag_cell(r.layout->fits_memory(), "yes", "NO"); }},

    {"link", "link", Scope::links, When::always,
     Slot::names, Shown::column, Style::plain, kCount, 0,
     [](const CompareRow& r) { return text_cell(r.from->name + "->" + r.to->name); }, false},
    {"from", "from", Scope::links, When::always,
     Slot::names, Shown::not_in_tables, Style::plain, kCount, 0,
     [](const CompareRow& r) { return text_cell(r.from->name); }},
    {"from_bps", "from rate", Scope::links, When::always,
     Slot::names, Shown::not_in_tables, Style::plain, kGbps, 1,
     [](const CompareRow& r) { return number_cell(r.from->rate.bits_per_second()); }},
    {"to", "to", Scope::links, When::always,
     Slot::names, Shown::not_in_tables, Style::plain, kCount, 0,
     [](const CompareRow& r) { return text_cell(r.to->name); }},
    {"to_bps", "to rate", Scope::links, When::always,
     Slot::names, Shown::not_in_tables, Style::plain, kGbps, 1,
     [](const CompareRow& r) { return number_cell(r.to->rate.bits_per_second()); }},
    {"comm_s_per_1k_tokens", "comm per 1k", Scope::links, When::always,
     Slot::ttft, Shown::column, Style::plain, kSeconds, 3,
     [](const CompareRow& r) { return number_cell(r.comm_per_1k.value()); }},
    {"extra_s_per_1k_tokens", "extra per 1k", Scope::links, When::always,
     Slot::ttft, Shown::not_in_tables, Style::signed_number, kSeconds, 3,
     [](const CompareRow& r) { return number_cell(r.extra_per_1k.value()); }},
    {"decode_slowdown_pct", "decode slowdown", Scope::links, When::always,
     Slot::ttft, Shown::not_in_tables, Style::plain, kPercent, 1,
     [](const CompareRow& r) { return number_cell(r.decode_slowdown * 100.0); }},

    {"prompt", "prompt", Scope::prompt, When::always,
     Slot::names, Shown::column, Style::plain, kCount, 0,
     [](const CompareRow& r) { return text_cell(r.prompt->name); }},
    {"requests", "requests", Scope::prompt, When::always,
     Slot::names, Shown::not_in_tables, Style::whole, kCount, 0,
     [](const CompareRow& r) { return count_cell(r.prompt->prompt.requests); }},
    {"prompt_tokens", "prompt tokens", Scope::prompt, When::always,
     Slot::names, Shown::not_in_tables, Style::whole, kCount, 0,
     [](const CompareRow& r) { return count_cell(r.prompt->prompt.total_tokens()); }},

    {"prefill_bytes_per_node", "prefill bytes/node", Scope::row, When::always,
     Slot::traffic, Shown::not_in_tables, Style::plain, kBytesGB, 2,
     [](const CompareRow& r) { return number_cell(r.prefill_bytes.count()); }},
    {"extra_ttft_bound_s", "extra TTFT bound", Scope::row, When::always,
     Slot::ttft, Shown::column, Style::signed_number, kSeconds, 2,
     [](const CompareRow& r) { return number_cell(r.extra_bound.value()); }},
    {"point_comm_from_s", "point comm", Scope::row, When::calibrated,
     Slot::ttft, Shown::not_in_tables, Style::plain, kSeconds, 2,
     [](const CompareRow& r) {
       return point_cell(r, [](const PrefillPoint& p) { return p.comm_from.value(); });
     }},
    {"point_extra_ttft_s", "point extra", Scope::row, When::calibrated,
     Slot::ttft, Shown::column, Style::signed_number, kSeconds, 2,
     [](const CompareRow& r) {
       return point_cell(r, [](const PrefillPoint& p) { return p.extra.value(); });
     }},
    {"point_network_share_pct", "point share", Scope::row, When::compute_calibrated,
     Slot::ttft, Shown::wide, Style::plain, kPercent, 1,
     [](const CompareRow& r) {
       return point_cell(r, [](const PrefillPoint& p) {
         return p.network_share.value_or(0.0) * 100.0;
       });
     }},
    {"point_ttft_increase_pct", "point TTFT increase", Scope::row, When::compute_calibrated,
     Slot::ttft, Shown::wide, Style::signed_number, kPercent, 1,
     [](const CompareRow& r) {
       return point_cell(r, [](const PrefillPoint& p) {
         return p.ttft_increase.value_or(0.0) * 100.0;
       });
     }},
    {"predicted_extra_ttft_s", "predicted extra", Scope::row, When::fabric,
     Slot::ttft, Shown::column, Style::signed_number, kSeconds, 2,
     [](const CompareRow& r) { return predicted_cell(r.predicted_extra); }},
    {"achieved_bound_ttft_s", "bound at achieved rates", Scope::row, When::fabric,
     Slot::ttft, Shown::wide, Style::signed_number, kSeconds, 2,
     [](const CompareRow& r) { return predicted_cell(r.achieved_bound); }},
    {"ttft_increase_pct", "TTFT increase", Scope::row, When::projected,
     Slot::verdict, Shown::column, Style::signed_number, kPercent, 1,
     [](const CompareRow& r) { return number_cell(r.ttft_increase.value_or(0.0) * 100.0); }},
    {"ttft_source", "TTFT from", Scope::row, When::projected,
     Slot::verdict, Shown::column, Style::plain, kCount, 0,
     [](const CompareRow& r) {
       if (!r.ttft_increase) return text_cell("none", "-");
       return text_cell(r.ttft_measured ? "measured" : "projected");
     }},
    {"within_budget", "budget", Scope::row, When::gated,
     Slot::verdict, Shown::column, Style::plain, kCount, 0,
     [](const CompareRow& r) { return flag_cell(r.within_budget, "ok", "EXCEEDED"); }},
};
// clang-format on

bool report_carries(When when, const CompareReport& report) {
  switch (when) {
    case When::always:
      return true;
    case When::calibrated:
      return report.calibration.has_value();
    case When::compute_calibrated:
      return report.calibration && report.calibration->compute != nullptr;
    case When::fabric:
      return report.request.predicted();
    case When::projected:
      return report.projected();
    case When::gated:
      return report.gated();
  }
  return false;
}

Field table_field(const CompareColumn& column, const Cell& cell) {
  std::string key(column.key);
  std::string label(column.label);
  Field field;
  switch (cell.kind) {
    case Cell::Kind::number:
      field =
          column.style == Style::whole ? integer(std::move(key), std::move(label), cell.number)
          : column.style == Style::signed_number
              ? signed_number(std::move(key), std::move(label), cell.number, column.unit,
                              column.decimals)
              : number(std::move(key), std::move(label), cell.number, column.unit, column.decimals);
      break;
    case Cell::Kind::text:
    case Cell::Kind::flag:
      field = text(std::move(key), std::move(label),
                   cell.word.empty() ? cell.text : std::string(cell.word));
      break;
    case Cell::Kind::missing:
      field = text(std::move(key), std::move(label), "-");
      break;
  }
  return column.shown == Shown::wide ? wide_only(std::move(field)) : field;
}

/// The cell as CSV or JSON prints it.
void append_cell(std::string& out, const CompareColumn& column, const Cell& cell, bool csv) {
  switch (cell.kind) {
    case Cell::Kind::number:
      append_number(out, cell.number, column.key);
      break;
    case Cell::Kind::text:
      // CSV quotes a name with a comma or a quote the way JSON does.
      if (!csv || cell.text.find_first_of(",\"") != std::string::npos) {
        out += json_string(cell.text);
      } else {
        out += cell.text;
      }
      break;
    case Cell::Kind::flag:
      out += cell.flag ? "true" : "false";
      break;
    case Cell::Kind::missing:
      if (!csv) out += "null";
      break;
  }
}

}  // namespace

CompareRowSchema::CompareRowSchema(const CompareReport& report) {
  for (const CompareColumn& column : kColumns) {
    if (!report_carries(column.when, report)) continue;
    if (column.shown != Shown::not_in_tables) table_.push_back(&column);
    if (column.in_grid) grid_[static_cast<std::size_t>(column.scope)].push_back(&column);
  }
  std::stable_sort(
      table_.begin(), table_.end(),
      [](const CompareColumn* a, const CompareColumn* b) { return a->slot < b->slot; });
}

Record CompareRowSchema::table_record(const CompareRow& row) const {
  Record record;
  record.reserve(table_.size());
  for (const CompareColumn* column : table_) {
    record.push_back(table_field(*column, column->cell(row)));
  }
  return record;
}

std::vector<std::string> CompareRowSchema::grid_keys() const {
  std::vector<std::string> keys;
  for (const auto& scope : grid_) {
    for (const CompareColumn* column : scope) keys.emplace_back(column->key);
  }
  return keys;
}

std::uint64_t add_compare_table(Document& doc, const CompareReport& report) {
  if (report.row_count > kMaxCompareTableRows) {
    throw InputError(fmt::format("{} rows are too many for a table (at most {}); use --format csv "
                                 "or json",
                                 report.row_count, kMaxCompareTableRows),
                     InputLocation::for_key("--format"));
  }
  const CompareRowSchema schema(report);
  std::vector<Record> table;
  table.reserve(report.row_count);
  std::uint64_t failures = 0;
  for_each_compare_row(report, [&](const CompareRow& r) {
    table.push_back(schema.table_record(r));
    failures += r.within_budget ? 0 : 1;
  });
  doc.fields.push_back(records("rows", "rows", std::move(table)));
  if (report.gated()) {
    doc.fields.push_back(flag("gate_passed", "all rows within budget", failures == 0));
    if (failures > 0) {
      doc.warnings.push_back(fmt::format("gate failed: {} rows exceed a budget", failures));
    }
  }
  return failures;
}

/// Streams the grid as CSV or JSON, caching the parts shared by many rows so a
/// million rows take well under a second.
std::uint64_t write_compare_grid(std::ostream& os, Format format, const CompareReport& report,
                                 const Document& header) {
  const CompareRowSchema schema(report);
  const auto& grid = schema.grid_columns();
  const bool csv = format == Format::csv;
  const std::string_view separator = csv ? "," : ", ";
  // JSON's `"key": ` before each cell, built once.
  std::array<std::vector<std::string>, CompareRowSchema::kScopes> json_keys;
  for (std::size_t s = 0; s < grid.size(); ++s) {
    for (const CompareColumn* column : grid[s]) {
      json_keys[s].push_back(csv ? std::string() : json_string(column->key) + ": ");
    }
  }
  // The cells of one scope, each followed by the separator.
  auto append_scope = [&](std::string& out, Scope scope, const CompareRow& r) {
    const auto s = static_cast<std::size_t>(scope);
    for (std::size_t i = 0; i < grid[s].size(); ++i) {
      out += json_keys[s][i];
      append_cell(out, *grid[s][i], grid[s][i]->cell(r), csv);
      out += separator;
    }
  };
  auto scope_part = [&](Scope scope, const CompareRow& r) {
    std::string part;
    append_scope(part, scope, r);
    return part;
  };

  std::string buffer;
  buffer.reserve(1 << 20);
  auto flush = [&](bool force) {
    if (force || buffer.size() > (1 << 19)) {
      os.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  };

  if (csv) {
    const std::vector<std::string> keys = schema.grid_keys();
    for (std::size_t i = 0; i < keys.size(); ++i) buffer += (i == 0 ? "" : ",") + keys[i];
    buffer += '\n';
  } else {
    // The header's fields, then "rows", then gate_passed and warnings last.
    Document fields_only = header;
    fields_only.warnings.clear();
    std::string top = render(fields_only, Format::json);
    top.erase(top.rfind("\"warnings\""));
    buffer += top + "\"rows\": [";
  }
  const LayoutSummary* current_layout = nullptr;
  const Link* current_from = nullptr;
  const Link* current_to = nullptr;
  std::string layout_part;
  std::string links_part;
  std::vector<std::optional<std::string>> prompt_parts(report.request.prompts.size());
  std::uint64_t failed = 0;
  bool first = true;
  for_each_compare_row(report, [&](const CompareRow& r) {
    if (r.layout == nullptr || r.from == nullptr || r.to == nullptr || r.prompt == nullptr ||
        r.prompt_index >= prompt_parts.size()) {
      throw Error("a compare row lacks its layout, links or prompt");
    }
    if (r.layout != current_layout) {
      current_layout = r.layout;
      current_from = nullptr;
      layout_part = scope_part(Scope::layout, r);
    }
    if (r.from != current_from || r.to != current_to) {
      current_from = r.from;
      current_to = r.to;
      links_part = scope_part(Scope::links, r);
    }
    std::optional<std::string>& prompt_part = prompt_parts[r.prompt_index];
    if (!prompt_part) prompt_part = scope_part(Scope::prompt, r);
    if (!r.within_budget) ++failed;
    if (!csv) buffer += first ? "\n    {" : ",\n    {";
    buffer += layout_part;
    buffer += links_part;
    buffer += *prompt_part;
    append_scope(buffer, Scope::row, r);
    buffer.resize(buffer.size() - separator.size());  // the row's last cell is always written
    buffer += csv ? "\n" : "}";
    first = false;
    flush(false);
  });
  if (!csv) {
    buffer += "\n  ],\n";
    if (report.gated()) buffer += fmt::format("  \"gate_passed\": {},\n", failed == 0);
    buffer += "  \"warnings\": [";
    for (std::size_t i = 0; i < header.warnings.size(); ++i) {
      if (i > 0) buffer += ", ";
      buffer += json_string(header.warnings[i]);
    }
    buffer += "]\n}\n";
  }
  flush(true);
  return failed;
}

std::function<int(std::ostream&)> compare_grid_writer(std::shared_ptr<const CompareReport> report,
                                                      Document header, Format format) {
  return [report = std::move(report), header = std::move(header), format](std::ostream& os) {
    const std::uint64_t failed = write_compare_grid(os, format, *report, header);
    if (failed == 0) return 0;
    os.flush();
    fmt::print(stderr, "tpnet: warning: gate failed: {} rows exceed a budget\n", failed);
    return 1;
  };
}

}  // namespace tpnet::cli
