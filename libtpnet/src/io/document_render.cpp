#include "tpnet/io/document_render.hpp"
// Renderers for Document: table (default, with a units row), JSON (keys carry
// units, values in base units), CSV (the main list, base units) and Markdown.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>

#include "io/long_form.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/printable.hpp"
#include "tpnet/io/text_file.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet {
namespace {

void require_finite(const Field& f) {
  if (!std::isfinite(f.number)) {
    throw Error("internal error: '" + f.key + "' is not a finite number; refusing to print it");
  }
}

std::string json_number(const Field& f) { return format_number(f.number, f.key); }

/// The number as a table shows it: scaled, rounded, with an explicit sign
/// for differences. The unit goes in the header or after the value.
std::string display_number(const Field& f) {
  require_finite(f);
  double v = f.number / f.unit.scale;
  const double rounding = std::pow(10.0, -f.decimals) / 2.0;
  if (std::fabs(v) < rounding) v = 0.0;  // no "-0.00"
  if (f.signed_display) return fmt::format("{:+.{}f}", v, f.decimals);
  return fmt::format("{:.{}f}", v, f.decimals);
}

std::string display_value(const Field& f) {
  switch (f.kind) {
    case Field::Kind::number:
      return display_number(f);
    case Field::Kind::text:
      return printable(f.text);
    case Field::Kind::flag:
      return f.flag ? "yes" : "no";
    case Field::Kind::numbers: {
      std::string joined;
      for (const double v : f.numbers) {
        Field one = f;
        one.kind = Field::Kind::number;
        one.number = v;
        joined += (joined.empty() ? "" : ", ") + display_number(one);
      }
      return joined;
    }
    case Field::Kind::texts: {
      std::string joined;
      for (const auto& t : f.texts) joined += (joined.empty() ? "" : "; ") + printable(t);
      return joined;
    }
    case Field::Kind::record:
    case Field::Kind::records:
      return "";
  }
  return "";
}

bool has_unit(const Field& f) {
  return (f.kind == Field::Kind::number || f.kind == Field::Kind::numbers) && !f.suffix().empty();
}

bool is_scalar(const Field& f) {
  return f.kind == Field::Kind::number || f.kind == Field::Kind::numbers ||
         f.kind == Field::Kind::text || f.kind == Field::Kind::flag;
}

// ---------------------------------------------------------------- JSON

void write_json(std::string& out, const Record& record, int depth, const Field* extra = nullptr);

void write_json_value(std::string& out, const Field& f, int depth) {
  const std::string pad(static_cast<std::size_t>(depth + 1) * 2, ' ');
  switch (f.kind) {
    case Field::Kind::number:
      out += json_number(f);
      break;
    case Field::Kind::numbers: {
      out += "[";
      for (std::size_t i = 0; i < f.numbers.size(); ++i) {
        out += (i == 0 ? "" : ", ") + format_number(f.numbers[i], f.key);
      }
      out += "]";
      break;
    }
    case Field::Kind::text:
      out += json_string(f.text);
      break;
    case Field::Kind::flag:
      out += f.flag ? "true" : "false";
      break;
    case Field::Kind::texts: {
      out += "[";
      for (std::size_t i = 0; i < f.texts.size(); ++i) {
        out += (i == 0 ? "" : ", ") + json_string(f.texts[i]);
      }
      out += "]";
      break;
    }
    case Field::Kind::record:
      write_json(out, f.records.front(), depth + 1);
      break;
    case Field::Kind::records: {
      if (f.records.empty()) {
        out += "[]";
        break;
      }
      out += "[\n";
      for (std::size_t i = 0; i < f.records.size(); ++i) {
        out += pad + "  ";
        write_json(out, f.records[i], depth + 2);
        out += i + 1 < f.records.size() ? ",\n" : "\n";
      }
      out += pad + "]";
      break;
    }
  }
}

/// `record`'s fields (less those for tables only) and `extra`, as one object.
void write_json(std::string& out, const Record& record, int depth, const Field* extra) {
  const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
  out += "{\n";
  std::vector<const Field*> shown;
  shown.reserve(record.size() + 1);
  for (const auto& f : record) {
    if (!f.table_only) shown.push_back(&f);
  }
  if (extra != nullptr) shown.push_back(extra);
  for (std::size_t i = 0; i < shown.size(); ++i) {
    out += pad + "  " + json_string(shown[i]->key) + ": ";
    write_json_value(out, *shown[i], depth);
    out += i + 1 < shown.size() ? ",\n" : "\n";
  }
  out += pad + "}";
}

/// Fields in `record` and every record below it.
std::size_t field_count(const Record& record) {
  std::size_t n = record.size();
  for (const auto& f : record) {
    for (const auto& r : f.records) n += field_count(r);
  }
  return n;
}

std::string render_json(const Document& doc) {
  // The warnings join the top level without a copy of the document, which
  // may hold 100,000 measured points (docs/hardening.md).
  const Field warnings = texts("warnings", "warnings", doc.warnings);
  std::string out;
  // Room for the whole text at once: growing by doubling would hold the old
  // and the new buffer together, 1.5 times the text at its largest.
  out.reserve(32 * field_count(doc.fields) + 4096);
  write_json(out, doc.fields, 0, &warnings);
  out += "\n";
  return out;
}

// ---------------------------------------------------------------- tables

struct Grid {
  std::vector<std::string> header;
  std::vector<std::string> units;
  std::vector<bool> numeric;
  std::vector<bool> wide_only;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;
};

/// Whether a table shows `f` as a column (not a note, not JSON-only).
bool is_column(const Field& f, bool wide) {
  return is_scalar(f) && !f.json_only && (wide || !f.note_unless_wide);
}

Grid make_grid(const Field& list, bool wide = true) {
  Grid g;
  if (list.records.empty()) return g;
  for (const auto& f : list.records.front()) {
    if (!is_column(f, wide)) continue;
    g.header.push_back(f.label);
    g.units.emplace_back(has_unit(f) ? f.suffix() : "");
    g.numeric.push_back(f.kind == Field::Kind::number);
    g.wide_only.push_back(f.wide_only);
  }
  for (const auto& row : list.records) {
    std::vector<std::string> cells;
    std::string row_name;
    for (const auto& f : row) {
      if (row_name.empty() && f.kind == Field::Kind::text) row_name = f.text;
      if (f.kind == Field::Kind::texts && !f.json_only) {
        for (const auto& note : f.texts) {
          g.notes.push_back(printable(fmt::format("{}: {}", row_name, note)));
        }
      }
      if (!wide && f.note_unless_wide && f.kind == Field::Kind::text && !f.text.empty()) {
        g.notes.push_back(printable(fmt::format("{}: {}", row_name, f.text)));
      }
      if (!is_column(f, wide)) continue;
      cells.push_back(display_value(f));
    }
    g.rows.push_back(std::move(cells));
  }
  return g;
}

/// Columns a table shows: all with --wide; else those not wide-only, less
/// the widest others (never the first, which names the row) until a row fits
/// the width, so that a row never wraps.
std::vector<bool> shown_columns(const Grid& g, const std::vector<std::size_t>& width,
                                const TextLayout& layout) {
  std::vector<bool> shown(width.size(), true);
  if (layout.wide) return shown;
  for (std::size_t i = 0; i < shown.size(); ++i) shown[i] = !g.wide_only[i];
  auto row_width = [&] {
    std::size_t total = 1;
    for (std::size_t i = 0; i < width.size(); ++i) total += shown[i] ? width[i] + 2 : 0;
    return total;
  };
  while (row_width() > layout.width) {
    std::size_t widest = 0;
    for (std::size_t i = 1; i < width.size(); ++i) {
      if (shown[i] && (widest == 0 || width[i] > width[widest])) widest = i;
    }
    if (widest == 0) break;
    shown[widest] = false;
  }
  return shown;
}

std::string render_grid_text(const Grid& g, const TextLayout& layout) {
  std::vector<std::size_t> width(g.header.size(), 0);
  auto widen = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], display_width(cells[i]));
    }
  };
  widen(g.header);
  widen(g.units);
  for (const auto& r : g.rows) widen(r);
  const std::vector<bool> shown = shown_columns(g, width, layout);
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = " ";
    for (std::size_t i = 0; i < cells.size() && i < width.size(); ++i) {
      if (!shown[i]) continue;
      const std::size_t pad = width[i] - std::min(width[i], display_width(cells[i]));
      out += " ";
      if (g.numeric[i]) out.append(pad, ' ');
      out += cells[i];
      if (!g.numeric[i]) out.append(pad, ' ');
      out += " ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(g.header);
  bool any_unit = false;
  for (std::size_t i = 0; i < g.units.size(); ++i)
    any_unit = any_unit || (shown[i] && !g.units[i].empty());
  if (any_unit) out += line(g.units);
  std::string rule = " ";
  for (std::size_t i = 0; i < width.size(); ++i) {
    if (shown[i]) rule += " " + std::string(width[i], '-') + " ";
  }
  while (!rule.empty() && rule.back() == ' ') rule.pop_back();
  out += rule + "\n";
  for (const auto& r : g.rows) out += line(r);
  for (const auto& note : g.notes) out += wrap("  note ", note, 4, layout.width);
  std::vector<std::string> left_out;
  for (std::size_t i = 0; i < shown.size(); ++i) {
    if (!shown[i]) left_out.push_back(g.header[i]);
  }
  if (!left_out.empty()) {
    out +=
        wrap("  ",
             fmt::format("{} adds {}: {}", layout.show_every_column,
                         left_out.size() == 1 ? "a column" : "columns", fmt::join(left_out, ", ")),
             4, layout.width);
  }
  return out;
}

/// "label  value" with the value wrapped under itself, or under the label
/// plus four when the label column takes more than half the line.
std::string label_line(const std::string& pad, const std::string& label, std::size_t label_width,
                       const std::string& value, std::size_t width) {
  const std::string first = fmt::format("{}{:<{}}  ", pad, label, label_width);
  const std::size_t hang = first.size() * 2 <= width ? first.size() : pad.size() + 4;
  return wrap(first, value, hang, width);
}

void render_text_record(std::string& out, const Record& record, int depth,
                        const TextLayout& layout) {
  std::size_t label_width = 0;
  for (const auto& f : record) {
    if (is_scalar(f) && !f.json_only) label_width = std::max(label_width, f.label.size());
  }
  const std::string pad(static_cast<std::size_t>(depth) * 2 + 2, ' ');
  for (const auto& f : record) {
    if (f.json_only) continue;
    if (is_scalar(f)) {
      std::string value = display_value(f);
      if (has_unit(f)) {
        value += f.suffix() == "%" || f.suffix() == "x" ? std::string(f.suffix())
                                                        : " " + std::string(f.suffix());
      }
      out += label_line(pad, f.label, label_width, value, layout.width);
    } else if (f.kind == Field::Kind::texts) {
      for (const auto& t : f.texts) {
        out += wrap(pad + f.label + ": ", printable(t), pad.size() + 4, layout.width);
      }
    } else if (f.kind == Field::Kind::record) {
      out += wrap(pad, f.label, pad.size() + 4, layout.width);
      render_text_record(out, f.records.front(), depth + 1, layout);
    } else if (f.kind == Field::Kind::records && !f.records.empty()) {
      out += "\n" + wrap(pad, f.label, pad.size() + 4, layout.width);
      out += render_grid_text(make_grid(f, layout.wide), layout);
    }
  }
}

std::string render_table(const Document& doc, const TextLayout& layout) {
  std::string out;
  for (const auto& sentence : doc.answer) out += wrap("", printable(sentence), 2, layout.width);
  if (!doc.answer.empty()) out += "\n";
  out += wrap("", printable(doc.title), 2, layout.width);
  render_text_record(out, doc.fields, 0, layout);
  return out;
}

// ---------------------------------------------------------------- Markdown

std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

void render_md_record(std::string& out, const Record& record, int depth) {
  const std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
  for (const auto& f : record) {
    if (f.json_only) continue;
    if (is_scalar(f)) {
      std::string value = display_value(f);
      if (has_unit(f)) {
        value += " " + std::string(f.suffix());
      }
      out += indent + "- **" + f.label + "**: " + md_escape(value) + "\n";
    } else if (f.kind == Field::Kind::texts) {
      for (const auto& t : f.texts) {
        out += indent + "- " + f.label + ": " + md_escape(printable(t)) + "\n";
      }
    } else if (f.kind == Field::Kind::record) {
      out += indent + "- **" + f.label + "**\n";
      render_md_record(out, f.records.front(), depth + 1);
    }
  }
}

void render_md_tables(std::string& out, const Record& record) {
  for (const auto& f : record) {
    if (f.kind != Field::Kind::records || f.records.empty() || f.json_only) continue;
    const Grid g = make_grid(f);
    out += "\n### " + f.label + "\n\n|";
    for (std::size_t i = 0; i < g.header.size(); ++i) {
      out +=
          " " + md_escape(g.header[i]) + (g.units[i].empty() ? "" : " (" + g.units[i] + ")") + " |";
    }
    out += "\n|";
    for (std::size_t i = 0; i < g.header.size(); ++i) out += g.numeric[i] ? " ---: |" : " --- |";
    out += "\n";
    for (const auto& r : g.rows) {
      out += "|";
      for (const auto& c : r) out += " " + md_escape(c) + " |";
      out += "\n";
    }
    if (!g.notes.empty()) {
      out += "\n";
      for (const auto& n : g.notes) out += "- " + md_escape(n) + "\n";
    }
  }
}

std::string render_markdown(const Document& doc) {
  std::string out = "## " + printable(doc.title) + "\n\n";
  for (const auto& sentence : doc.answer) out += md_escape(printable(sentence)) + "\n";
  if (!doc.answer.empty()) out += "\n";
  render_md_record(out, doc.fields, 0);
  render_md_tables(out, doc.fields);
  for (const auto& w : doc.warnings) out += "\n> warning: " + md_escape(printable(w)) + "\n";
  return out;
}

// ---------------------------------------------------------------- CSV

std::string csv_cell(std::string s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"')
      out += "\"\"";
    else
      out += c;
  }
  return out + "\"";
}

std::string csv_value(const Field& f) {
  switch (f.kind) {
    case Field::Kind::number:
      return json_number(f);
    case Field::Kind::flag:
      return f.flag ? "true" : "false";
    default:
      return csv_cell(display_value(f));
  }
}

void flatten(const Record& record, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& out) {
  for (const auto& f : record) {
    if (f.kind == Field::Kind::records || f.table_only) continue;
    if (f.kind == Field::Kind::record) {
      flatten(f.records.front(), prefix + f.key + ".", out);
    } else {
      out.emplace_back(prefix + f.key, csv_value(f));
    }
  }
}

/// A list as one CSV table: the row keys, then one line per element.
std::string csv_table(const Field& list) {
  std::string out;
  bool header_done = false;
  for (const auto& row : list.records) {
    std::vector<std::pair<std::string, std::string>> cells;
    flatten(row, "", cells);
    if (!header_done) {
      for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i].first;
      out += "\n";
      header_done = true;
    }
    for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i].second;
    out += "\n";
  }
  return out;
}

std::string render_csv(const Document& doc) {
  if (doc.csv == CsvLayout::first_list) {
    for (const auto& f : doc.fields) {
      if (f.kind == Field::Kind::records && !f.table_only) return csv_table(f);
    }
  }
  std::vector<std::pair<std::string, std::string>> cells;
  flatten(doc.fields, "", cells);
  std::string out = "key,value\n";
  for (const auto& [k, v] : cells) out += fmt::format("{},{}\n", k, v);
  if (doc.csv == CsvLayout::sections) {
    for (const auto& f : doc.fields) {
      if (f.kind != Field::Kind::records || f.table_only || f.records.empty()) continue;
      out += "\n" + csv_table(f);
    }
  }
  return out;
}

}  // namespace

void append_number(std::string& out, double value, std::string_view what) {
  if (!std::isfinite(value)) {
    throw Error("internal error: '" + std::string(what) +
                "' is not a finite number; refusing to print it");
  }
  const double v = value == 0.0 ? 0.0 : value;  // no "-0"
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    // Whole numbers as integers: fmt's fixed-precision path is ten times slower.
    fmt::format_to(std::back_inserter(out), "{}", static_cast<long long>(v));
  } else {
    fmt::format_to(std::back_inserter(out), "{:.12g}", v);
  }
}

std::string format_number(double value, std::string_view what) {
  std::string out;
  append_number(out, value, what);
  return out;
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (std::size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (static_cast<unsigned char>(c) >= 0x80) {
      // JSON is UTF-8: a byte that is not (a name from a Latin-1 file) would
      // make the whole output unreadable, so it becomes U+FFFD, as Python's
      // errors="replace" does.
      const std::size_t length = utf8_sequence_length(text, at);
      if (length == 0) {
        out += "\\ufffd";
      } else {
        out.append(text.substr(at, length));
        at += length - 1;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<int>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::size_t display_width(std::string_view text) {
  std::size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::string wrap(std::string_view first, std::string_view text, std::size_t hang,
                 std::size_t width) {
  // A line that fits is printed as given, spaces and all.
  if (display_width(first) + display_width(text) <= width) {
    return std::string(first) + std::string(text) + "\n";
  }
  std::string out(first);
  std::size_t column = display_width(first);
  bool placed = false;  // a word is on this line already
  std::size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && text[at] == ' ') ++at;
    if (at >= text.size()) break;
    std::size_t end = text.find(' ', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(at, end - at);
    at = end;
    const std::size_t gap = placed ? 1 : 0;
    // A word that does not fit goes to the next line, unless that line would
    // start no further left (a word longer than any line is cut below).
    if (column + gap + display_width(word) > width && (placed || column > hang)) {
      out += "\n" + std::string(hang, ' ');
      column = hang;
    } else if (placed) {
      out += ' ';
      ++column;
    }
    // A word wider than a whole line (a path, a URL) is cut where the line ends.
    while (column + display_width(word) > width && width > column + 1) {
      std::size_t take = 0;
      std::size_t chars = 0;
      while (take < word.size() && column + chars < width) {
        ++take;
        while (take < word.size() && (static_cast<unsigned char>(word[take]) & 0xC0) == 0x80) {
          ++take;
        }
        ++chars;
      }
      out.append(word.substr(0, take));
      word.remove_prefix(take);
      out += "\n" + std::string(hang, ' ');
      column = hang;
    }
    out.append(word);
    column += display_width(word);
    placed = true;
  }
  return out + "\n";
}

Format parse_format(std::string_view name) {
  if (name == "json") return Format::json;
  if (name == "csv") return Format::csv;
  if (name == "markdown") return Format::markdown;
  if (name == "html") return Format::html;
  if (name != "table") {
    throw InputError("'" + std::string(name) + "' is no output format; use table, json, csv, " +
                         "markdown or html",
                     InputLocation::for_key("output.format"));
  }
  return Format::table;
}

std::string xml_escaped(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        // Control characters are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string render(const Document& doc, Format format, const TextLayout& layout) {
  switch (format) {
    case Format::json:
      return render_json(doc);
    case Format::csv:
      return render_csv(doc);
    case Format::markdown:
      return doc.sections.empty() ? render_markdown(doc) : render_long_form_markdown(doc);
    case Format::html:
      return render_long_form_html(doc);
    case Format::table:
      return render_table(doc, layout);
  }
  return render_table(doc, layout);
}

}  // namespace tpnet
