// Price files (tpnet/io/price_yaml.hpp, docs/prices.md): the built-in
// catalog states each price's currency, day and source, and a file without
// them is refused naming file, line and key.

#include <string>

#include "catch.hpp"
#include "tpnet/fabric/cost.hpp"
#include "tpnet/io/price_yaml.hpp"
#include "tpnet/io/switch_catalog.hpp"

using namespace tpnet;

namespace {

InputError parse_error(const std::string& text) {
  try {
    (void)parse_price_yaml(text, "quote.yaml");
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no error for:\n" << text);
  return InputError("unreachable");
}

}  // namespace

TEST_CASE("every built-in price has a currency, the day it was seen and its source", "[prices]") {
  const PriceCatalog catalog = builtin_prices();
  REQUIRE_FALSE(catalog.prices.empty());
  int known = 0;
  for (const auto& p : catalog.prices) {
    INFO(to_string(p.kind) << " " << p.item);
    if (p.amount) {
      ++known;
      CHECK(*p.amount > 0.0);
      CHECK(p.currency == "USD");
      CHECK(p.seen.has_value());
      CHECK(p.source.size() > 10);
    } else {
      CHECK_FALSE(p.note.empty());  // an unknown price says where it was looked for
    }
  }
  CHECK(known >= 3);  // the Spark and the two MikroTik switches of the study
  // Every switch in models/switches/ has an entry, known or not.
  for (const auto& name : builtin_switch_names()) {
    INFO(name);
    CHECK(catalog.find(PricedKind::switch_model, name) != nullptr);
  }
}

TEST_CASE("a price file refuses a price without its source or date, naming file, line and key",
          "[prices][bad-input]") {
  const InputError no_source = parse_error(
      "switches:\n  crs804:\n    price: 1100\n    currency: USD\n    seen: 2026-11-30\n");
  CHECK(no_source.where().file == "quote.yaml");
  CHECK(no_source.where().line == 3);
  CHECK(no_source.where().key == "source");
  const InputError no_date = parse_error(
      "switches:\n  crs804:\n    price: 1100\n    currency: USD\n    source: a quote\n");
  CHECK(no_date.where().key == "seen");
  const InputError bad_date = parse_error(
      "nodes:\n  dgx-spark:\n    price: 4800\n    currency: USD\n    seen: 2026-02-30\n"
      "    source: a quote\n");
  CHECK(bad_date.where().line == 5);
  CHECK(bad_date.where().key == "seen");
  CHECK(parse_error("cables:\n  x:\n    price: -3\n    currency: USD\n    seen: 2026-01-01\n"
                    "    source: q\n")
            .where()
            .key == "price");
  CHECK(parse_error("switches:\n  crs804:\n    price: 1\n    cost: 2\n").where().key == "cost");
  CHECK(parse_error("gpus:\n  a: {}\n").where().key == "gpus");
  CHECK(parse_error("switches:\n  crs804:\n    price: unknown\n").where().key == "note");
  CHECK(parse_error("switches:\n  crs804:\n    price: 1\n    currency: dollars\n    seen: "
                    "2026-01-01\n    source: q\n")
            .where()
            .key == "currency");
}

TEST_CASE(
    "a part is priced once whatever its case, and a quote for a part nothing bills is "
    "warned about",
    "[prices][bad-input]") {
  const std::string two = R"(switches:
  crs804:
    price: 1000
    currency: USD
    seen: 2026-12-01
    source: SYNTHETIC quote
  CRS804:
    price: 900
    currency: USD
    seen: 2026-12-02
    source: SYNTHETIC quote
)";
  CHECK_THROWS_WITH(parse_price_yaml(two, "q.yaml"),
                    ContainsSubstring("q.yaml:7: CRS804: 'CRS804' is the item of line 2 again"));
  // A misspelt part (O for 0) would be accepted and never used: it is named.
  const PriceCatalog typo = parse_price_yaml(R"(switches:
  crs8O4:
    price: 1000
    currency: USD
    seen: 2026-12-01
    source: SYNTHETIC quote
cables:
  QSFP56 200G cable:
    price: 70
    currency: USD
    seen: 2026-12-01
    source: SYNTHETIC quote
)",
                                             "q.yaml");
  const auto warnings = unbilled_quotes(typo, "q.yaml");
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings.front(),
             ContainsSubstring("q.yaml: switch 'crs8O4' is no part a plan bills"));
  CHECK_THAT(warnings.front(), ContainsSubstring("crs804"));
}
