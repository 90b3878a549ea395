#pragma once
// Flags shared by the commands that price a cluster (plan, prices; report
// may take them too): the price files on top of the catalog, the objective
// to rank by, and the day prices are judged old on.

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "terminal.hpp"
#include "tpnet/usecase/plan_search.hpp"

namespace tpnet::cli {

struct PriceOptions {
  std::vector<std::string> files;  ///< --prices, in order
  std::string objective = "automatic";
  std::string as_of;  ///< --as-of YYYY-MM-DD; empty: today (UTC)
};

/// --prices and --as-of (every pricing command).
void add_price_file_options(CLI::App* app, PriceOptions& options);
/// --objective (the commands that rank).
void add_objective_option(CLI::App* app, PriceOptions& options);

/// --as-of, or the clock's date in UTC: the one place a day is read from the clock.
[[nodiscard]] CalendarDate price_date(const PriceOptions& options);

/// The catalog with --prices on top, the objective and the day, into `request`.
void apply_price_options(PlanSearchRequest& request, const PriceOptions& options);

}  // namespace tpnet::cli
