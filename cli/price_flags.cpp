#include "price_flags.hpp"

#include <chrono>

#include "tpnet/io/price_yaml.hpp"

namespace tpnet::cli {

void add_price_file_options(CLI::App* app, PriceOptions& o) {
  const std::string group = "Prices";
  app->add_option("--prices", o.files,
                  "A price file (a quote) overriding or adding to the built-in catalog "
                  "(models/prices); repeatable")
      ->group(group);
  app->add_option("--as-of", o.as_of,
                  "Judge prices older than a year on this day, YYYY-MM-DD (default: today, UTC)")
      ->group(group);
}

void add_objective_option(CLI::App* app, PriceOptions& o) {
  app->add_option("--objective", o.objective,
                  "Rank by fewest-switches, cheapest (within --ttft-budget) or users-per-dollar; "
                  "automatic: cheapest with a budget, else fewest-switches")
      ->default_str("automatic")
      ->group("Prices");
}

CalendarDate price_date(const PriceOptions& o) {
  if (!o.as_of.empty()) return parse_calendar_date(o.as_of, InputLocation::for_key("--as-of"));
  const auto today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  const std::chrono::year_month_day ymd{today};
  return CalendarDate{static_cast<int>(ymd.year()), static_cast<int>(unsigned(ymd.month())),
                      static_cast<int>(unsigned(ymd.day()))};
}

void apply_price_options(PlanSearchRequest& in, const PriceOptions& o) {
  in.prices = resolve_prices(o.files);
  for (const auto& file : o.files) {
    for (auto& w : unbilled_quotes(load_price_file(file), file)) {
      in.price_warnings.push_back(std::move(w));
    }
  }
  in.today = price_date(o);
  in.objective = parse_plan_objective(o.objective, InputLocation::for_key("--objective"));
}

}  // namespace tpnet::cli
