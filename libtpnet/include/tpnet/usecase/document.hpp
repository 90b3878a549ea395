#pragma once
/// The plain data every use case's answer becomes before it is shown: named
/// fields with a JSON key (carrying its unit), a human label, and how to
/// show the value; sections for long-form documents. Renderers
/// (tpnet/io/document_render.hpp) never compute; use cases never format.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tpnet {

/// How a number is shown in tables: value / scale, then the suffix.
struct DisplayUnit {
  std::string_view suffix;  ///< "MB", "s", "Gb/s", "" for plain counts
  double scale = 1.0;
};

inline constexpr DisplayUnit kCount{"", 1.0};
inline constexpr DisplayUnit kBytesB{"B", 1.0};
inline constexpr DisplayUnit kBytesKB{"KB", 1e3};
inline constexpr DisplayUnit kBytesMB{"MB", 1e6};
inline constexpr DisplayUnit kBytesGB{"GB", 1e9};
inline constexpr DisplayUnit kSeconds{"s", 1.0};
inline constexpr DisplayUnit kMilliseconds{"ms", 1e-3};
inline constexpr DisplayUnit kMicroseconds{"us", 1e-6};
inline constexpr DisplayUnit kGbps{"Gb/s", 1e9};
inline constexpr DisplayUnit kGBps{"GB/s", 8e9};  // a bit rate shown in bytes per second
inline constexpr DisplayUnit kPercent{"%", 1.0};
inline constexpr DisplayUnit kTimes{"x", 1.0};
inline constexpr DisplayUnit kGTps{"GT/s", 1.0};
inline constexpr DisplayUnit kBillions{"B", 1e9};
inline constexpr DisplayUnit kGigaflops{"GFLOP", 1e9};

struct Field;
using Record = std::vector<Field>;

struct Field {
  enum class Kind : unsigned char { number, numbers, text, flag, texts, record, records };

  // Members ordered largest first so the flags pack into one word: a
  // document of 100,000 measured points holds a million fields.
  std::string key;    ///< JSON key, unit-suffixed: per_token_bytes, extra_ttft_bound_s
  std::string label;  ///< table header or line label
  std::string text;
  double number = 0.0;  ///< in the JSON key's base unit
  DisplayUnit unit = kCount;
  std::vector<std::string> texts;
  std::vector<double> numbers;  ///< kind numbers: a JSON array, one unit and rounding for all
  std::vector<Record> records;  ///< one element for kind record
  /// A unit known only at run time (a currency code): shown instead of
  /// unit.suffix, which views a constant.
  std::string unit_name;
  int decimals = 0;
  Kind kind = Kind::number;
  bool signed_display = false;  ///< "+0.14" for differences
  bool flag = false;
  bool json_only = false;   ///< left out of tables (kept in JSON/CSV)
  bool table_only = false;  ///< a summary line for people, left out of JSON/CSV
  /// A table column that only `--wide` shows: detail beside the columns that
  /// answer the command's question (kept in JSON, CSV and Markdown).
  bool wide_only = false;
  /// A text column too long for a row: without --wide, a note under the
  /// table ("row: text") instead of a column.
  bool note_unless_wide = false;

  /// The unit a table shows: unit_name when set, else unit.suffix.
  [[nodiscard]] std::string_view suffix() const {
    return unit_name.empty() ? unit.suffix : std::string_view(unit_name);
  }
};

Field number(std::string key, std::string label, double value, DisplayUnit unit, int decimals);
Field signed_number(std::string key, std::string label, double value, DisplayUnit unit,
                    int decimals);
Field integer(std::string key, std::string label, double value);
/// A whole count (tokens, sequences, ports) as an integer field.
Field count(std::string key, std::string label, long long value);
Field text(std::string key, std::string label, std::string value);
/// An amount of money in `currency` (its code, "USD"), whole units.
Field money(std::string key, std::string label, double amount, const std::string& currency);
Field flag(std::string key, std::string label, bool value);
Field texts(std::string key, std::string label, std::vector<std::string> values);
/// A list of numbers in one unit: a JSON array, "1.20, 3.40" in tables.
Field numbers(std::string key, std::string label, std::vector<double> values, DisplayUnit unit,
              int decimals);
Field record(std::string key, std::string label, Record fields);
Field records(std::string key, std::string label, std::vector<Record> rows);
Field json_only(Field field);
Field table_only(Field field);
Field wide_only(Field field);
Field note_unless_wide(Field field);

/// How --format csv lays a document out.
enum class CsvLayout {
  first_list,  ///< the first list only, one line per element (the answer is the list)
  sections,    ///< `key,value` lines of the scalars, then each list after a blank line
};

/// A chart in a long-form document: which chart (its name in file names:
/// "penalty"), the sentence under it, its SVG and the file Markdown links it
/// as (drawn and named by the caller, beside the document).
struct DocumentFigure {
  std::string chart;
  std::string caption;
  std::string svg;
  std::string file;
};

struct DocumentTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

/// A section of a long-form document (the report's HTML and Markdown).
struct DocumentSection {
  std::string heading;
  std::vector<std::string> paragraphs;
  std::vector<DocumentFigure> figures;
  std::vector<DocumentTable> tables;
  std::vector<std::string> items;  ///< a bulleted list
  bool code = false;               ///< items are one command line each
};

/// A whole answer: a title line for tables, the fields, and warnings for stderr.
struct Document {
  /// The answer in at most three sentences, printed before everything else in
  /// tables and Markdown (JSON and CSV carry the numbers in their fields).
  std::vector<std::string> answer;
  std::string title;
  Record fields;
  std::vector<std::string> warnings;
  CsvLayout csv = CsvLayout::first_list;
  /// A long-form document (the report): its sections, rendered as HTML or as
  /// Markdown under a page title, with the answer as the verdict block.
  std::vector<DocumentSection> sections;
};

}  // namespace tpnet
