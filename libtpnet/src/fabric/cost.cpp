#include "tpnet/fabric/cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "../base/ascii_case.hpp"

namespace tpnet {
namespace {

bool leap(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && leap(year) ? 29 : kDays[month - 1];
}

bool same_item(const std::string& a, const std::string& b) {
  return detail::lowercase(a) == detail::lowercase(b);
}

}  // namespace

long long CalendarDate::days_since_epoch() const {
  // Howard Hinnant's days_from_civil: eras of 400 years from 0000-03-01.
  const long long y = static_cast<long long>(year) - (month <= 2 ? 1 : 0);
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const long long yoe = y - era * 400;
  const long long mp = (month + 9) % 12;
  const long long doy = (153 * mp + 2) / 5 + day - 1;
  const long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

std::string CalendarDate::text() const {
  return fmt::format("{:04}-{:02}-{:02}", year, month, day);
}

CalendarDate parse_calendar_date(std::string_view text, const InputLocation& where) {
  const auto fail = [&] {
    throw InputError(
        "'" + std::string(text) + "' is not a date; write it as YYYY-MM-DD, e.g. 2026-12-04",
        where);
  };
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') fail();
  const auto number = [&](std::size_t at, std::size_t length) {
    int value = 0;
    const char* first = text.data() + at;
    const auto [end, ec] = std::from_chars(first, first + length, value);
    if (ec != std::errc{} || end != first + length) fail();
    return value;
  };
  CalendarDate date{number(0, 4), number(5, 2), number(8, 2)};
  if (date.year < 1900 || date.year > 2999 || date.month < 1 || date.month > 12 || date.day < 1 ||
      date.day > days_in_month(date.year, date.month)) {
    fail();
  }
  return date;
}

std::string_view to_string(PricedKind kind) {
  switch (kind) {
    case PricedKind::node:
      return "node";
    case PricedKind::switch_model:
      return "switch";
    case PricedKind::cable:
      return "cable";
  }
  return "node";
}

const Price* PriceCatalog::find(PricedKind kind, const std::string& item) const {
  for (const auto& p : prices) {
    if (p.kind == kind && same_item(p.item, item)) return &p;
  }
  return nullptr;
}

PriceCatalog merge_prices(PriceCatalog base, const PriceCatalog& overrides) {
  for (const auto& o : overrides.prices) {
    auto same = std::find_if(base.prices.begin(), base.prices.end(), [&](const Price& p) {
      return p.kind == o.kind && same_item(p.item, o.item);
    });
    if (same != base.prices.end()) {
      *same = o;
    } else {
      base.prices.push_back(o);
    }
  }
  // One currency across the merged catalog, named where an override breaks it.
  const Price* first = nullptr;
  for (const auto& p : base.prices) {
    if (p.amount && first == nullptr) first = &p;
  }
  for (const auto& p : base.prices) {
    if (!p.amount || first == nullptr || p.currency == first->currency) continue;
    const bool from_override =
        std::any_of(overrides.prices.begin(), overrides.prices.end(),
                    [&](const Price& o) { return o.kind == p.kind && same_item(o.item, p.item); });
    const Price& odd = from_override ? p : *first;
    const Price& other = from_override ? *first : p;
    InputLocation at = odd.origin;
    at.key = "currency";
    throw InputError(fmt::format("{} {} is priced in {} but {} {} in {}; give every price in one "
                                 "currency (tpnet has no exchange rates)",
                                 to_string(odd.kind), odd.item, odd.currency, to_string(other.kind),
                                 other.item, other.currency),
                     at);
  }
  return base;
}

PlanCost price_purchase(const Purchase& purchase, const PriceCatalog& catalog,
                        const CalendarDate& today) {
  PlanCost cost;
  const auto add = [&](PricedKind kind, const std::string& item, int count) {
    if (count <= 0) return;
    CostLine line{kind, item, count, std::nullopt, std::nullopt, {}, std::nullopt, false};
    const Price* price = catalog.find(kind, item);
    if (price != nullptr && price->amount) {
      line.unit_price = price->amount;
      line.amount = *price->amount * count;
      line.source = price->source;
      line.seen = price->seen;
      if (cost.currency.empty()) cost.currency = price->currency;
      if (price->seen &&
          today.days_since_epoch() - price->seen->days_since_epoch() > kPriceStaleDays) {
        line.stale = true;
        cost.stale.push_back(fmt::format("{} (seen {})", item, price->seen->text()));
      }
      double& bucket = kind == PricedKind::node           ? cost.nodes
                       : kind == PricedKind::switch_model ? cost.switches
                                                          : cost.cables;
      bucket += *line.amount;
    } else {
      cost.complete = false;
      cost.unpriced.push_back(fmt::format("{} x {}", count, item));
      if (price != nullptr) line.source = price->note;
    }
    cost.lines.push_back(std::move(line));
  };
  add(PricedKind::node, purchase.node, purchase.node_count);
  if (!purchase.switch_name.empty()) {
    add(PricedKind::switch_model, purchase.switch_name, purchase.switch_count);
  }
  for (const auto& c : purchase.cables) add(PricedKind::cable, c.item, c.count);
  cost.total = cost.nodes + cost.switches + cost.cables;
  cost.per_node = purchase.node_count > 0 ? cost.total / purchase.node_count : 0.0;
  return cost;
}

std::optional<double> users_per_dollar(double users, const PlanCost& cost) {
  if (!cost.complete || !(cost.total > 0.0) || !std::isfinite(users) || users < 0.0) {
    return std::nullopt;
  }
  return users / cost.total;
}

std::optional<double> cost_per_user(double users, const PlanCost& cost) {
  if (!cost.complete || !(cost.total > 0.0) || !std::isfinite(users) || !(users > 0.0)) {
    return std::nullopt;
  }
  return cost.total / users;
}

}  // namespace tpnet
