// The document model's field builders: each sets the kind, the key with its
// unit, the label and how a table shows the value; the markers move a field
// out of tables or JSON.

#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/usecase/document.hpp"

using namespace tpnet;

TEST_CASE("number fields keep the base-unit value and the display unit") {
  const Field f = number("extra_ttft_s", "extra TTFT", 0.25, kMilliseconds, 1);
  CHECK(f.kind == Field::Kind::number);
  CHECK(f.key == "extra_ttft_s");
  CHECK(f.label == "extra TTFT");
  CHECK(f.number == 0.25);
  CHECK(f.unit.suffix == "ms");
  CHECK(f.unit.scale == 1e-3);
  CHECK(f.decimals == 1);
  CHECK_FALSE(f.signed_display);
  CHECK(signed_number("d_s", "d", -1.0, kSeconds, 2).signed_display);
  const Field c = count("tokens", "tokens", 8192);
  CHECK(c.number == 8192.0);
  CHECK(c.decimals == 0);
  CHECK(c.unit.suffix.empty());
}

TEST_CASE("text, flag, list and record fields carry their kind and values") {
  CHECK(text("host", "host", "spark-1").kind == Field::Kind::text);
  CHECK(text("host", "host", "spark-1").text == "spark-1");
  CHECK(flag("passed", "passed", true).flag);
  const Field list = texts("warnings", "warnings", {"a", "b"});
  CHECK(list.kind == Field::Kind::texts);
  CHECK(list.texts.size() == 2);
  const Field rates = numbers("rate_bps", "rate", {100e9, 200e9}, kGbps, 0);
  CHECK(rates.kind == Field::Kind::numbers);
  CHECK(rates.numbers == std::vector<double>{100e9, 200e9});
  const Field one = record("link", "link", {text("name", "name", "200G")});
  CHECK(one.kind == Field::Kind::record);
  REQUIRE(one.records.size() == 1);
  CHECK(one.records.front().front().text == "200G");
  const Field rows = records("rows", "rows", {{count("tp", "TP", 2)}, {count("tp", "TP", 4)}});
  CHECK(rows.kind == Field::Kind::records);
  CHECK(rows.records.size() == 2);
}

TEST_CASE("markers say where a field is shown") {
  const Field base = count("tp", "TP", 8);
  CHECK(json_only(base).json_only);
  CHECK(table_only(base).table_only);
  CHECK(wide_only(base).wide_only);
  CHECK(note_unless_wide(text("why", "why", "because")).note_unless_wide);
  CHECK_FALSE(base.json_only);
  CHECK_FALSE(base.table_only);
}
