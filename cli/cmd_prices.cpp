// tpnet prices: the price catalog (models/prices), with a user's quotes on
// top, each price with the day it was seen and its source.

#include <fmt/format.h>

#include <memory>

#include "common.hpp"
#include "price_flags.hpp"
#include "tpnet/io/price_yaml.hpp"

namespace tpnet::cli {
namespace {

struct PricesOptions {
  PriceOptions prices;
  std::string format = "table";
};

Outcome run_prices(const PricesOptions& o) {
  const PriceCatalog catalog = resolve_prices(o.prices.files);
  const CalendarDate today = price_date(o.prices);
  std::vector<Record> rows;
  std::vector<std::string> stale;
  for (const auto& p : catalog.prices) {
    const long long age = p.seen ? today.days_since_epoch() - p.seen->days_since_epoch() : 0;
    const bool old = p.amount && p.seen && age > kPriceStaleDays;
    if (old)
      stale.push_back(fmt::format("{} {} (seen {})", to_string(p.kind), p.item, p.seen->text()));
    rows.push_back({
        text("kind", "kind", std::string(to_string(p.kind))),
        text("item", "item", p.item),
        flag("known", "known", p.amount.has_value()),
        table_only(text("", "price",
                        p.amount ? fmt::format("{:.0f} {}", *p.amount, p.currency) : "unknown")),
        json_only(number("price", "price", p.amount.value_or(0.0), kCount, 2)),
        json_only(text("currency", "currency", p.currency)),
        text("seen", "seen", p.seen ? p.seen->text() : ""),
        json_only(integer("age_days", "age", p.seen ? static_cast<double>(age) : 0.0)),
        flag("stale", "older than a year", old),
        text("source", "source", p.amount ? p.source : p.note),
        json_only(text("note", "note", p.note)),
        json_only(text("origin", "from", p.origin.file)),
    });
  }
  Outcome out;
  out.doc.title = fmt::format(
      "tpnet prices: list prices as of {} (built-in models/prices{}); unknown prices are never "
      "guessed",
      today.text(), o.prices.files.empty() ? "" : " with --prices on top");
  out.doc.fields = {text("as_of", "as of", today.text()),
                    records("prices", "prices", std::move(rows))};
  if (!stale.empty()) {
    std::string items;
    for (const auto& s : stale) items += (items.empty() ? "" : ", ") + s;
    out.doc.warnings.push_back(
        fmt::format("prices older than a year on {}: {}; check them", today.text(), items));
  }
  return out;
}

}  // namespace

Command setup_prices(CLI::App& app) {
  auto o = std::make_shared<PricesOptions>();
  CLI::App* sub = app.add_subcommand(
      "prices",
      "List the price catalog: each node, switch and cable price with its date and source");
  add_price_file_options(sub, o->prices);
  add_format_option(sub, o->format);
  return Command{sub, [o] { return run_prices(*o); },
                 std::shared_ptr<const std::string>(o, &o->format)};
}

}  // namespace tpnet::cli
