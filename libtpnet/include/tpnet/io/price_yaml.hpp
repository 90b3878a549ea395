#pragma once
/// Price files: the built-in catalog (models/prices/*.yaml) and a user's
/// quote given with --prices, in one shape (docs/prices.md).

#include <string>
#include <string_view>
#include <vector>

#include "tpnet/fabric/cost.hpp"

namespace tpnet {

/// Parses a price file's text; `origin` names it in errors. Sections
/// `nodes`, `switches` and `cables` map an item to {price, currency, seen,
/// source, note}; `price: unknown` with a `note` states a price not found.
/// A known price without currency, seen date or source, an unknown key, a
/// negative or non-numeric price, or a date that is no day are errors naming
/// the file, line and key.
[[nodiscard]] PriceCatalog parse_price_yaml(std::string_view text, const std::string& origin);

/// Reads and parses a price file.
[[nodiscard]] PriceCatalog load_price_file(const std::string& path);

/// The built-in catalog: every models/prices/*.yaml, merged.
[[nodiscard]] PriceCatalog builtin_prices();

/// The built-in catalog with `files` (a user's quotes) on top, in order.
[[nodiscard]] PriceCatalog resolve_prices(const std::vector<std::string>& files);

/// A warning for each item of `quote` that no plan bills: a node, switch or
/// cable name the built-in catalogs do not know (a misspelt part, `crs8O4`),
/// whose price would never be used. `origin` names the file.
[[nodiscard]] std::vector<std::string> unbilled_quotes(const PriceCatalog& quote,
                                                       const std::string& origin);

}  // namespace tpnet
