// Prices as catalog data, the bill of a plan option, users per dollar, and
// plans ranked by money (docs/formulas.md s.30). Reading price files is
// tested in test_price_yaml.cpp.

#include "catch.hpp"
#include "tpnet/fabric/cost.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/price_yaml.hpp"
#include "tpnet/io/switch_catalog.hpp"
#include "tpnet/io/workload_yaml.hpp"
#include "tpnet/usecase/plan_search.hpp"

using namespace tpnet;

namespace {

const CalendarDate kToday{2026, 12, 4};

PlanSearchRequest sparks(int nodes) {
  PlanSearchRequest in;
  in.nodes = nodes;
  in.speeds = {parse_link("100G", InputLocation::for_key("--speeds")),
               parse_link("200G", InputLocation::for_key("--speeds"))};
  in.workload = resolve_workload("rag");
  in.node = builtin_node("dgx-spark");
  in.model = builtin_model("glm-5.3");
  for (const auto& name : builtin_switch_names()) in.switches.push_back(builtin_switch(name));
  in.prices = builtin_prices();
  in.today = kToday;
  return in;
}

}  // namespace

TEST_CASE("a quote replaces the catalog's price and two currencies in one catalog are refused",
          "[prices]") {
  const PriceCatalog quote = parse_price_yaml(
      "switches:\n  CRS804:\n    price: 1100\n    currency: USD\n    seen: 2026-11-30\n"
      "    source: quote 17 from a reseller\n",
      "quote.yaml");
  const PriceCatalog merged = merge_prices(builtin_prices(), quote);
  const Price* crs804 = merged.find(PricedKind::switch_model, "crs804");
  REQUIRE(crs804 != nullptr);
  CHECK(*crs804->amount == 1100.0);
  CHECK(crs804->source == "quote 17 from a reseller");
  CHECK(merged.prices.size() == builtin_prices().prices.size());

  const PriceCatalog euros = parse_price_yaml(
      "nodes:\n  dgx-spark:\n    price: 4600\n    currency: EUR\n    seen: 2026-11-30\n"
      "    source: a quote\n",
      "euros.yaml");
  try {
    (void)merge_prices(builtin_prices(), euros);
    FAIL("two currencies were summed");
  } catch (const InputError& e) {
    CHECK(e.where().file == "euros.yaml");
    CHECK(e.where().line == 3);
    CHECK(e.where().key == "currency");
  }
}

TEST_CASE("dates: days between two days, and a price older than a year on the request's day",
          "[prices]") {
  CHECK(parse_calendar_date("1970-01-01", {}).days_since_epoch() == 0);
  CHECK(parse_calendar_date("2000-03-01", {}).days_since_epoch() == 11017);
  CHECK(parse_calendar_date("2024-02-29", {}).days_since_epoch() -
            parse_calendar_date("2023-02-28", {}).days_since_epoch() ==
        366);
  CHECK_THROWS_AS(parse_calendar_date("2023-02-29", {}), InputError);
  CHECK_THROWS_AS(parse_calendar_date("2026-1-04", {}), InputError);

  const Purchase one_switch{"dgx-spark", 2, "crs804", 1, {}};
  const PriceCatalog catalog = builtin_prices();
  // Seen 2026-12-04: 365 days later it is a year old, not older.
  CHECK(price_purchase(one_switch, catalog, CalendarDate{2027, 12, 4}).stale.empty());
  const PlanCost later = price_purchase(one_switch, catalog, CalendarDate{2027, 12, 5});
  REQUIRE(later.stale.size() == 2);
  CHECK(later.stale.front() == "dgx-spark (seen 2026-12-04)");
}

TEST_CASE("16 DGX Sparks on one CRS804 cost USD 81,295 before cables, USD 5,081 per node",
          "[prices][golden]") {
  // 16 x USD 5,000 (DOMAIN.md s.7b) + 1 x USD 1,295 (the CRS804's suggested price).
  Purchase bought{"dgx-spark", 16, "crs804", 1, {{4, "QSFP56-DD 400G to 4 x 100G breakout cable"}}};
  const PlanCost cost = price_purchase(bought, builtin_prices(), kToday);
  CHECK(cost.currency == "USD");
  CHECK_THAT(cost.nodes, WithinRel(80000.0, 1e-12));
  CHECK_THAT(cost.switches, WithinRel(1295.0, 1e-12));
  CHECK(cost.cables == 0.0);
  CHECK_THAT(cost.total, WithinRel(81295.0, 1e-12));
  CHECK_THAT(cost.per_node, WithinRel(5080.9375, 1e-12));
  CHECK_FALSE(cost.complete);
  REQUIRE(cost.unpriced.size() == 1);
  CHECK(cost.unpriced.front() == "4 x QSFP56-DD 400G to 4 x 100G breakout cable");
  // Users per dollar needs the whole bill: an unpriced cable would flatter it.
  CHECK_FALSE(users_per_dollar(40.0, cost).has_value());
}

TEST_CASE("users per dollar: 40 served users on a USD 81,295 cluster are 0.492 per USD 1,000",
          "[prices][golden]") {
  const PriceCatalog quote = parse_price_yaml(
      "cables:\n  QSFP56-DD 400G to 4 x 100G breakout cable:\n    price: 0\n    currency: USD\n"
      "    seen: 2026-12-04\n    source: SYNTHETIC, cables bundled with the switch\n",
      "quote.yaml");
  Purchase bought{"dgx-spark", 16, "crs804", 1, {{4, "QSFP56-DD 400G to 4 x 100G breakout cable"}}};
  const PlanCost cost = price_purchase(bought, merge_prices(builtin_prices(), quote), kToday);
  REQUIRE(cost.complete);
  CHECK_THAT(*users_per_dollar(40.0, cost) * 1000.0, WithinRel(40.0 / 81.295, 1e-12));
  CHECK_THAT(*cost_per_user(40.0, cost), WithinRel(81295.0 / 40.0, 1e-12));
  CHECK_FALSE(cost_per_user(0.0, cost).has_value());
}

TEST_CASE("GLM-5.3 on 16 Sparks within a 5 s TTFT budget: the cheapest usable option first",
          "[prices][plan]") {
  PlanSearchRequest in = sparks(16);
  in.ttft_budget = Seconds(5.0);
  const PlanSearchReport report = search_plans(in);
  CHECK(report.objective == PlanObjective::cheapest);
  const PlanOption& best = report.options.front();
  REQUIRE(best.usable);
  REQUIRE(best.cost);
  for (const auto& r : report.options) {
    if (!r.usable) continue;
    REQUIRE(r.cost);
    CHECK(best.cost->total <= r.cost->total);
  }
  CHECK_THAT(best.cost->total, WithinRel(16 * 5000.0 + best.cost->switches, 1e-12));
  // No cable has a known price: the ranking says what it could not count.
  bool warned = false;
  for (const auto& w : report.warnings) warned = warned || w.find("no known price for cable") == 0;
  CHECK(warned);
}

TEST_CASE(
    "a quote that makes the CRS804 dear moves 16 Sparks at 100G onto the CRS520, one "
    "switch at 2,195 USD against two CRS812s at 2,590",
    "[prices][plan]") {
  PlanSearchRequest in = sparks(16);
  in.ttft_budget = Seconds(60.0);
  in.speeds.resize(1);  // 100G only
  const PlanSearchReport before = search_plans(in);
  REQUIRE(before.options.front().fabric);
  CHECK(before.options.front().fabric->switch_name == "crs804");

  in.prices =
      merge_prices(builtin_prices(),
                   parse_price_yaml("switches:\n  crs804:\n    price: 9000\n    currency: USD\n"
                                    "    seen: 2026-12-01\n    source: SYNTHETIC, a dear quote\n",
                                    "quote.yaml"));
  const PlanSearchReport after = search_plans(in);
  REQUIRE(after.options.front().fabric);
  CHECK(after.options.front().fabric->switch_name == "crs520");
  CHECK(after.options.front().cost->switches == 2195.0);
}

TEST_CASE("fewest switches, when asked, keeps the order before prices and still shows costs",
          "[prices][plan]") {
  PlanSearchRequest in = sparks(16);
  in.ttft_budget = Seconds(5.0);
  in.objective = PlanObjective::fewest_switches;
  const PlanSearchReport report = search_plans(in);
  CHECK(report.objective == PlanObjective::fewest_switches);
  PlanSearchRequest unpriced = in;
  unpriced.prices.reset();
  const PlanSearchReport plain = search_plans(unpriced);
  REQUIRE(plain.options.size() == report.options.size());
  for (std::size_t i = 0; i < plain.options.size(); ++i) {
    CHECK(plain.options[i].tp == report.options[i].tp);
    CHECK(plain.options[i].speed.name == report.options[i].speed.name);
  }
  CHECK(report.options.front().cost.has_value());
  // Ranking by money without prices is refused, naming the request field.
  unpriced.objective = PlanObjective::cheapest;
  CHECK_THROWS_WITH(search_plans(unpriced), ContainsSubstring("needs prices"));
}

TEST_CASE("users per dollar ranks by served users over the whole bill", "[prices][plan]") {
  PlanSearchRequest in = sparks(16);
  in.prices = merge_prices(
      builtin_prices(),
      parse_price_yaml("cables:\n"
                       "  QSFP56-DD 400G to 4 x 100G breakout cable: {price: 100, currency: USD, "
                       "seen: 2026-12-01, source: SYNTHETIC}\n"
                       "  QSFP56-DD 400G to 2 x 200G breakout cable: {price: 100, currency: USD, "
                       "seen: 2026-12-01, source: SYNTHETIC}\n"
                       "  QSFP56-DD 400G cable between switches: {price: 100, currency: USD, "
                       "seen: 2026-12-01, source: SYNTHETIC}\n"
                       "  QSFP56 200G cable: {price: 100, currency: USD, "
                       "seen: 2026-12-01, source: SYNTHETIC}\n",
                       "quote.yaml"));
  // SYNTHETIC: one TP16 instance serving more users than two TP8s.
  in.users_per_instance = {{8, 10.0}, {16, 30.0}};
  const PlanSearchReport report = search_plans(in);
  CHECK(report.objective == PlanObjective::users_per_dollar);
  const PlanOption& best = report.options.front();
  REQUIRE(best.users_per_dollar);
  CHECK(best.tp == 16);
  CHECK_THAT(*best.users_per_dollar, WithinRel(30.0 / best.cost->total, 1e-12));
}

TEST_CASE("GLM-5.3 on 8 Sparks: 200G against 100G on the MikroTik switches, in dollars and seconds",
          "[prices][plan]") {
  PlanSearchRequest in = sparks(8);
  in.workload = resolve_workload("long-docs");
  in.baseline = TtftBaseline{ParallelLayout{8, 1, 1}, Seconds(6.36), PromptSpec{1, 8192}, {}};
  in.objective = PlanObjective::cheapest;  // alternatives named only at the same price
  const std::vector<SpeedTrade> trades = speed_trades(search_plans(in));
  const SpeedTrade* tp8 = nullptr;
  for (const auto& t : trades) {
    if (t.tp == 8) tp8 = &t;
  }
  REQUIRE(tp8 != nullptr);
  CHECK(tp8->slower.name == "100G");
  CHECK(tp8->faster.name == "200G");
  // Both MikroTik switches list at USD 1,295: at 100G either carries the
  // eight, and the sentence names both.
  CHECK(tp8->slower_fabric == "1 x crs804 (or crs812)");
  CHECK(tp8->faster_fabric == "1 x crs804");
  // The 200G side's two 2 x 200G breakouts are priced (USD 138 each in the
  // catalog), the 100G side's 4 x 100G breakouts are not: the priced parts
  // differ by what the breakouts cost, and the sentence says that is all.
  CHECK(tp8->extra_cost == 4 * 138.0);
  CHECK_FALSE(tp8->cost_complete);
  CHECK(tp8->ttft_saved.value() > 0.0);
  REQUIRE(tp8->ttft_saved_fraction);
  CHECK(*tp8->ttft_saved_fraction > 0.0);
  CHECK(*tp8->ttft_saved_fraction < 1.0);
  CHECK_THAT(tp8->extra_cost, WithinAbs(tp8->faster_cost.total - tp8->slower_cost.total, 1e-9));
  CHECK_FALSE(tp8->sources.empty());
  CHECK_THAT(tp8->sentence,
             ContainsSubstring("200G on 1 x crs804 against 100G on 1 x crs804 (or crs812): the "
                               "priced parts differ by USD 552; 200G saves up to"));
  CHECK_THAT(tp8->sentence, ContainsSubstring("(price unknown)"));
}
