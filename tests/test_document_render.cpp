// One document, five renderings: a table with its units, JSON whose keys
// carry the units and whose values are in base units, CSV, Markdown; the
// number and text formats they share; NaN and infinity refused.

#include <limits>
#include <string>

#include "catch.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/document_render.hpp"

using namespace tpnet;

namespace {

Document small_document() {
  Document doc;
  doc.answer = {"TP8 adds 0.50 s to the first token."};
  doc.title = "tpnet test: a small document";
  doc.fields = {
      number("extra_ttft_s", "extra TTFT", 0.5, kMilliseconds, 0),
      text("model", "model", "glm-5.3"),
      records(
          "rows", "rows",
          {{count("tp", "TP", 2), number("per_token_bytes", "per token", 1.5e6, kBytesMB, 2)},
           {count("tp", "TP", 8), number("per_token_bytes", "per token", 3.38e6, kBytesMB, 2)}}),
  };
  doc.warnings = {"a warning"};
  return doc;
}

}  // namespace

TEST_CASE("JSON keeps base units in keyed fields, the lists as arrays, and the warnings") {
  const std::string json = render(small_document(), Format::json);
  CHECK_THAT(json, ContainsSubstring("\"extra_ttft_s\": 0.5"));
  CHECK_THAT(json, ContainsSubstring("\"per_token_bytes\": 3380000"));
  CHECK_THAT(json, ContainsSubstring("\"warnings\": [\"a warning\"]"));
  CHECK(json.find("TP8 adds") == std::string::npos);  // the answer is for people
}

TEST_CASE("a table says the answer first, then shows values in their display units") {
  const std::string table = render(small_document(), Format::table);
  CHECK(table.rfind("TP8 adds 0.50 s", 0) == 0);
  CHECK_THAT(table, ContainsSubstring("500 ms"));
  CHECK_THAT(table, ContainsSubstring("3.38"));
  CHECK_THAT(table, ContainsSubstring("MB"));
}

TEST_CASE("CSV lays out the first list, Markdown has a header row") {
  const std::string csv = render(small_document(), Format::csv);
  CHECK(csv.rfind("tp,per_token_bytes\n2,1500000\n8,3380000\n", 0) == 0);
  const std::string md = render(small_document(), Format::markdown);
  CHECK_THAT(md, ContainsSubstring("| TP |"));
}

TEST_CASE("columns that do not fit are left out and the caller's way to see them named") {
  Document doc;
  doc.title = "t";
  Record row;
  for (int i = 0; i < 12; ++i) {
    row.push_back(text("column_" + std::to_string(i), "column number " + std::to_string(i),
                       "a fairly long value"));
  }
  doc.fields = {records("rows", "rows", {row})};
  TextLayout narrow;
  narrow.width = 60;
  narrow.show_every_column = "--all";
  const std::string table = render(doc, Format::table, narrow);
  CHECK_THAT(table, ContainsSubstring("--all adds columns"));
  for (std::size_t start = 0; start < table.size();) {
    const std::size_t end = table.find('\n', start);
    CHECK(display_width(table.substr(start, end - start)) <= 60);
    start = end + 1;
  }
  narrow.wide = true;
  CHECK(render(doc, Format::table, narrow).find("adds columns") == std::string::npos);
}

TEST_CASE("no NaN or infinity reaches an output, and HTML needs sections") {
  Document doc = small_document();
  doc.fields.push_back(
      number("bad_s", "bad", std::numeric_limits<double>::quiet_NaN(), kSeconds, 2));
  CHECK_THROWS_AS(render(doc, Format::json), Error);
  CHECK_THROWS_AS(render(doc, Format::table), Error);
  CHECK_THROWS_AS(render(small_document(), Format::html), Error);
  CHECK_THROWS_AS(format_number(std::numeric_limits<double>::infinity(), "x"), Error);
}

TEST_CASE("shared formats: numbers, JSON strings, XML text, wrapping, widths") {
  CHECK(format_number(3.0, "x") == "3");
  CHECK(format_number(0.1, "x") == "0.1");
  CHECK(plain_number(1e6) == "1000000");
  CHECK(plain_number(0.001) == "0.001");
  CHECK(json_string("a\"b\n") == "\"a\\\"b\\n\"");
  CHECK(xml_escaped("<a & \"b\">") == "&lt;a &amp; &quot;b&quot;&gt;");
  CHECK(display_width("caf\xc3\xa9") == 4);
  CHECK(wrap("- ", "one two three four", 2, 10) == "- one two\n  three\n  four\n");
  CHECK(parse_format("json") == Format::json);
  CHECK_THROWS(parse_format("yaml"));
}
