#include "tpnet/io/price_yaml.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "../base/ascii_case.hpp"
#include "builtin_models.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/switch_catalog.hpp"
#include "tpnet/io/text_file.hpp"
#include "yaml_fields.hpp"

namespace tpnet {
namespace {

/// Far above any list price here; a bound so a typo cannot overflow a total.
constexpr double kMaxUnitPrice = 1e9;

Price parse_entry(PricedKind kind, const std::string& item, const YAML::Node& map,
                  const std::string& origin) {
  const std::string what = fmt::format("{} {}", to_string(kind), item);
  yaml::require_map(map, origin, what + " (price, currency, seen, source, note)");
  yaml::reject_unknown_keys(map, origin, {"price", "currency", "seen", "source", "note"});
  Price p;
  p.kind = kind;
  p.item = item;
  p.origin = yaml::where(map, origin, item);
  const YAML::Node price = map["price"];
  if (!price.IsDefined() || price.IsNull()) {
    throw InputError(what + ": required key is missing (a number, or unknown)",
                     yaml::where(map, origin, "price"));
  }
  const bool unknown = price.IsScalar() && price.Scalar() == "unknown";
  if (unknown) {
    p.note = yaml::optional_string(map, origin, "note").value_or("");
    if (p.note.empty()) {
      throw InputError(what + ": an unknown price needs a note saying where it was looked for",
                       yaml::where(map, origin, "note"));
    }
  } else {
    p.amount = yaml::required_number(map, origin, "price", 0.0, kMaxUnitPrice);
    p.note = yaml::optional_string(map, origin, "note").value_or("");
  }
  if (const auto currency = yaml::optional_string(map, origin, "currency")) {
    const bool iso =
        currency->size() == 3 && std::all_of(currency->begin(), currency->end(),
                                             [](char c) { return c >= 'A' && c <= 'Z'; });
    if (!iso) {
      throw InputError("'" + *currency + "' is not a currency code; use ISO 4217, e.g. USD",
                       yaml::where(map["currency"], origin, "currency"));
    }
    p.currency = *currency;
  }
  if (const auto seen = yaml::optional_string(map, origin, "seen")) {
    p.seen = parse_calendar_date(*seen, yaml::where(map["seen"], origin, "seen"));
  }
  p.source = yaml::optional_string(map, origin, "source").value_or("");
  if (p.amount) {
    // A price is only as good as where and when it was seen.
    for (const auto& [key, missing] :
         {std::pair{"currency", p.currency.empty()}, std::pair{"seen", !p.seen.has_value()},
          std::pair{"source", p.source.empty()}}) {
      if (missing) {
        throw InputError(what +
                             ": a price needs its currency, the date it was seen (seen) and "
                             "its source",
                         yaml::where(map, origin, key));
      }
    }
  }
  return p;
}

}  // namespace

PriceCatalog parse_price_yaml(std::string_view text, const std::string& origin) {
  const YAML::Node root = yaml::load_document(text, origin);
  yaml::require_map(root, origin, "a price file (nodes, switches, cables)");
  yaml::reject_unknown_keys(root, origin, {"nodes", "switches", "cables"});
  PriceCatalog catalog;
  for (const auto& [section, kind] :
       {std::pair{"nodes", PricedKind::node}, std::pair{"switches", PricedKind::switch_model},
        std::pair{"cables", PricedKind::cable}}) {
    const YAML::Node items = root[section];
    if (!items.IsDefined() || items.IsNull()) continue;
    yaml::require_map(items, origin, std::string(section) + " (item: {price, ...})");
    std::vector<std::pair<std::string, int>> seen_items;  // lowercase name, line
    for (const auto& entry : items) {
      const std::string item = entry.first.Scalar();
      if (item.empty()) {
        throw InputError("an item needs a name", yaml::where(entry.first, origin, section));
      }
      // Names are matched without case: CRS804 and crs804 are one part, priced once.
      const std::string key = detail::lowercase(item);
      const int line = entry.first.Mark().line + 1;
      for (const auto& [name, at] : seen_items) {
        if (name == key) {
          throw InputError(fmt::format("'{}' is the item of line {} again (names are matched "
                                       "without case): give each part one price",
                                       item, at),
                           yaml::where(entry.first, origin, item));
        }
      }
      seen_items.emplace_back(key, line);
      catalog.prices.push_back(parse_entry(kind, item, entry.second, origin));
    }
  }
  return merge_prices(PriceCatalog{}, catalog);
}

PriceCatalog load_price_file(const std::string& path) {
  return parse_price_yaml(read_text_file(path), path);
}

PriceCatalog builtin_prices() {
  PriceCatalog all;
  for (const auto& entry : detail::builtin_price_texts()) {
    all = merge_prices(
        std::move(all),
        parse_price_yaml(entry.text, "built-in models/prices/" + std::string(entry.file_name)));
  }
  return all;
}

PriceCatalog resolve_prices(const std::vector<std::string>& files) {
  PriceCatalog all = builtin_prices();
  for (const auto& file : files) all = merge_prices(std::move(all), load_price_file(file));
  return all;
}

std::vector<std::string> unbilled_quotes(const PriceCatalog& quote, const std::string& origin) {
  const PriceCatalog known = builtin_prices();
  std::vector<std::string> switches = builtin_switch_names();
  std::vector<std::string> nodes = builtin_node_names();
  std::vector<std::string> warnings;
  for (const Price& p : quote.prices) {
    bool billed = known.find(p.kind, p.item) != nullptr;
    const std::vector<std::string>* names = p.kind == PricedKind::switch_model ? &switches
                                            : p.kind == PricedKind::node       ? &nodes
                                                                               : nullptr;
    if (names != nullptr) {
      for (const auto& n : *names)
        billed = billed || detail::lowercase(n) == detail::lowercase(p.item);
    }
    if (billed) continue;
    std::string list;
    if (names != nullptr) {
      for (const auto& n : *names) list += (list.empty() ? "" : ", ") + n;
    } else {
      for (const Price& k : known.prices) {
        if (k.kind == p.kind) list += (list.empty() ? "" : "; ") + k.item;
      }
    }
    warnings.push_back(
        fmt::format("{}: {} '{}' is no part a plan bills, so its price is never used (known: {})",
                    origin, to_string(p.kind), p.item, list));
  }
  return warnings;
}

}  // namespace tpnet
