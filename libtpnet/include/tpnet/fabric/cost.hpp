#pragma once
/// What a cluster costs: list prices as catalog data (models/prices/*.yaml,
/// a user's quote on top), the bill of one plan option (nodes, switches,
/// cables) priced from them, and the per-dollar figures the plan ranks by
/// (docs/formulas.md s.30).
///
/// A price the catalog does not know is unknown, never guessed: a bill that
/// needs one says which, and its total covers only what is priced.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"

namespace tpnet {

/// A day of the Gregorian calendar; prices carry the day they were seen,
/// and a request carries "today" so the core never reads the clock.
struct CalendarDate {
  int year = 1970;
  int month = 1;
  int day = 1;

  /// Days since 1970-01-01 (negative before).
  [[nodiscard]] long long days_since_epoch() const;
  /// "2026-12-04"
  [[nodiscard]] std::string text() const;
  friend bool operator==(const CalendarDate&, const CalendarDate&) = default;
};

/// "2026-12-04" (ISO 8601, a real day); throws InputError at `where`.
[[nodiscard]] CalendarDate parse_calendar_date(std::string_view text, const InputLocation& where);

/// A price older than this many days on the request's date draws a warning.
inline constexpr long long kPriceStaleDays = 365;

enum class PricedKind { node, switch_model, cable };
/// "node", "switch", "cable"
[[nodiscard]] std::string_view to_string(PricedKind kind);

/// One catalog entry: the list price of one item, or a statement that it is unknown.
struct Price {
  PricedKind kind = PricedKind::node;
  std::string item;  ///< "dgx-spark", "crs804", "QSFP56-DD 400G to 4 x 100G breakout cable"
  std::optional<double> amount;  ///< per unit; nullopt: unknown
  std::string currency;          ///< ISO 4217, "USD"; empty when unknown
  std::optional<CalendarDate> seen;
  std::string source;    ///< a vendor price list or a named retailer's page
  std::string note;      ///< what the price covers (length), or why it is unknown
  InputLocation origin;  ///< the file and line it was read from
};

struct PriceCatalog {
  std::vector<Price> prices;

  /// The entry for `item` of `kind` (names compared without case); nullptr when none.
  [[nodiscard]] const Price* find(PricedKind kind, const std::string& item) const;
};

/// `base` with every entry of `overrides` replacing the one of the same kind
/// and item, or added. Throws InputError at the override's line (key
/// `currency`) when the merged catalog's known prices are in two currencies:
/// a total across currencies would need an exchange rate tpnet does not have.
[[nodiscard]] PriceCatalog merge_prices(PriceCatalog base, const PriceCatalog& overrides);

/// One line of a bill: `count` of one item at its unit price.
struct CostLine {
  PricedKind kind = PricedKind::node;
  std::string item;
  int count = 0;
  std::optional<double> unit_price;  ///< nullopt: unknown
  std::optional<double> amount;      ///< count x unit_price
  std::string source;
  std::optional<CalendarDate> seen;
  bool stale = false;  ///< seen more than kPriceStaleDays before the request's date
};

/// The bill of one plan option.
struct PlanCost {
  std::string currency;  ///< of every priced line; empty when nothing is priced
  std::vector<CostLine> lines;
  double nodes = 0.0;                 ///< sum of the priced node lines
  double switches = 0.0;              ///< ... switch lines
  double cables = 0.0;                ///< ... cable lines
  double total = 0.0;                 ///< nodes + switches + cables: what is priced
  double per_node = 0.0;              ///< total / nodes in the cluster
  bool complete = true;               ///< every line is priced
  std::vector<std::string> unpriced;  ///< "8 x QSFP56-DD 400G to 4 x 100G breakout cable"
  std::vector<std::string> stale;     ///< "crs804 (seen 2025-01-02)"
};

/// What one plan option buys: `node_count` nodes of `node`, `switch_count`
/// switches of `switch_name` (0: none), and its cables as the switch plan
/// (or the switchless layout) bills them.
struct Purchase {
  std::string node;
  int node_count = 0;
  std::string switch_name;
  int switch_count = 0;
  struct Cables {
    int count = 0;
    std::string item;
  };
  std::vector<Cables> cables;
};

/// Prices `purchase` from `catalog` (docs/formulas.md s.30.1). Lines whose
/// price is unknown or missing from the catalog stay in the bill unpriced.
[[nodiscard]] PlanCost price_purchase(const Purchase& purchase, const PriceCatalog& catalog,
                                      const CalendarDate& today);

/// Served users per unit of money: users / total (s.30.2). nullopt when the
/// bill is incomplete or free, where the ratio would overstate or divide by 0.
[[nodiscard]] std::optional<double> users_per_dollar(double users, const PlanCost& cost);

/// Money per served user: total / users (s.30.2); nullopt as above or for no users.
[[nodiscard]] std::optional<double> cost_per_user(double users, const PlanCost& cost);

}  // namespace tpnet
