// tpnet prices, and tpnet plan priced and ranked by the user's objective.

#include <algorithm>
#include <fstream>
#include <sstream>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"

using tpnet::test::expect_bad_input;
using tpnet::test::fresh_dir;
using tpnet::test::json_of;
using tpnet::test::run_tpnet;

namespace {

/// Cells in one CSV line: commas outside double quotes, plus one.
long cells_of(const std::string& line) {
  long cells = 1;
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) ++cells;
  }
  return cells;
}

std::string write_file(const std::string& name, const std::string& text) {
  const auto path = fresh_dir("prices_" + name) / name;
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("tpnet prices lists every price with its date and source", "[cli][prices]") {
  const YAML::Node j = json_of(run_tpnet({"prices", "--as-of", "2026-12-04", "--format", "json"}));
  CHECK(j["as_of"].as<std::string>() == "2026-12-04");
  bool spark = false;
  for (const auto& p : j["prices"]) {
    if (!p["known"].as<bool>()) continue;
    CHECK_FALSE(p["seen"].as<std::string>().empty());
    CHECK_FALSE(p["source"].as<std::string>().empty());
    CHECK_FALSE(p["stale"].as<bool>());
    if (p["item"].as<std::string>() == "dgx-spark") {
      spark = true;
      CHECK(p["price"].as<double>() == 5000.0);
      CHECK(p["currency"].as<std::string>() == "USD");
    }
  }
  CHECK(spark);
  CHECK(j["warnings"].size() == 0);
}

TEST_CASE("tpnet prices warns of prices older than a year on the given day", "[cli][prices]") {
  const auto r = run_tpnet({"prices", "--as-of", "2028-01-01"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, ContainsSubstring("prices older than a year on 2028-01-01"));
  CHECK_THAT(r.err, ContainsSubstring("switch crs804 (seen 2026-12-04)"));
}

TEST_CASE("a bad price file exits 2 naming its file, line and key", "[cli][prices][bad-input]") {
  const std::string file =
      write_file("quote.yaml",
                 "switches:\n  crs804:\n    price: 1100\n    currency: USD\n    seen: 2026-13-01\n"
                 "    source: a quote\n");
  expect_bad_input(run_tpnet({"prices", "--prices", file}), "quote.yaml");
  const auto r = run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "16", "--prices", file});
  expect_bad_input(r, "seen");
  CHECK_THAT(r.err, ContainsSubstring(":5"));
  expect_bad_input(
      run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "16", "--objective", "vibes"}),
      "--objective");
  expect_bad_input(run_tpnet({"prices", "--as-of", "yesterday"}), "--as-of");
  expect_bad_input(
      run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "16", "--objective", "users-per-dollar"}),
      "--sweep");
}

TEST_CASE("plan --model glm-5.3 --nodes 16 --ttft-budget 5s ranks by cost within the budget",
          "[cli][prices][plan]") {
  const YAML::Node j =
      json_of(run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "16", "--ttft-budget", "5s",
                         "--as-of", "2026-12-04", "--format", "json"}));
  CHECK(j["objective"].as<std::string>() == "cheapest");
  double previous = 0.0;
  bool usable_seen = false;
  for (const auto& o : j["options"]) {
    if (!o["usable"].as<bool>()) break;
    usable_seen = true;
    CHECK(o["currency"].as<std::string>() == "USD");
    const auto total = o["cost_total"].as<double>();
    CHECK(total >= previous);
    previous = total;
    CHECK(o["cost_total"].as<double>() == o["cost_nodes"].as<double>() +
                                              o["cost_switches"].as<double>() +
                                              o["cost_cables"].as<double>());
    CHECK(o["cost_nodes"].as<double>() == 16 * 5000.0);
  }
  CHECK(usable_seen);
  CHECK_THAT(j["recommended_cost"].as<std::string>(), ContainsSubstring(" USD per node)"));
}

TEST_CASE("plan --prices FILE: a user's quote changes the ranking", "[cli][prices][plan]") {
  const std::vector<std::string> base{
      "plan",          "--model", "glm-5.3", "--nodes",    "16",       "--speeds", "100G",
      "--ttft-budget", "60s",     "--as-of", "2026-12-04", "--format", "json"};
  const YAML::Node before = json_of(run_tpnet(base));
  CHECK(before["options"][0]["fabric"].as<std::string>() == "1 x crs804");

  const std::string quote =
      write_file("dear.yaml",
                 "# SYNTHETIC: a quote that makes the CRS804 dear\nswitches:\n  crs804:\n"
                 "    price: 9000\n    currency: USD\n    seen: 2026-12-01\n"
                 "    source: SYNTHETIC quote\n");
  std::vector<std::string> with_quote = base;
  with_quote.insert(with_quote.end(), {"--prices", quote});
  const YAML::Node after = json_of(run_tpnet(with_quote));
  CHECK_THAT(after["options"][0]["fabric"].as<std::string>(), ContainsSubstring("crs520"));
  CHECK(after["options"][0]["cost_switches"].as<double>() < 9000.0);
}

TEST_CASE("plan on 8 Sparks states what 200G costs over 100G and what it saves",
          "[cli][prices][plan]") {
  const auto r = run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "8", "--workload", "long-docs",
                            "--as-of", "2026-12-04"});
  REQUIRE(r.exit_code == 0);
  // The sentence wraps at the terminal's width: read it with its breaks joined.
  std::string out;
  for (std::size_t i = 0; i < r.out.size(); ++i) {
    if (r.out[i] != '\n') {
      out += r.out[i];
      continue;
    }
    out += ' ';
    while (i + 1 < r.out.size() && r.out[i + 1] == ' ') ++i;
  }
  CHECK_THAT(out, ContainsSubstring("against 100G on 1 x crs804 (or crs812"));
  CHECK_THAT(out, ContainsSubstring("1 x TP8: 200G on 1 x crs804"));
}

TEST_CASE("plan --sweep ranks by users per dollar and a TP the sweeps never measured says so",
          "[cli][prices][plan]") {
  const std::vector<std::string> args{
      "plan",
      "--model",
      "qwen3.6-27b",
      "--nodes",
      "8",
      "--sweep",
      std::string(TPNET_SOURCE_DIR) + "/examples/data/qwen36_27b_sweep.csv",
      "--prices",
      std::string(TPNET_SOURCE_DIR) + "/tests/data/prices/quote-synthetic.yaml",
      "--as-of",
      "2026-12-04"};
  std::vector<std::string> json = args;
  json.insert(json.end(), {"--format", "json"});
  const YAML::Node j = json_of(run_tpnet(json));
  CHECK(j["objective"].as<std::string>() == "users-per-dollar");
  double previous = 1e300;
  for (const auto& o : j["options"]) {
    if (o["tp"].as<int>() == 8) {
      CHECK(o["users"].as<double>() == -1.0);  // the sweep has TP1, TP2 and TP4 only
      CHECK(o["users_per_cost"].as<double>() == -1.0);
    }
    if (!o["usable"].as<bool>() || o["users_per_cost"].as<double>() < 0.0) continue;
    CHECK(o["cost_complete"].as<bool>());
    const auto per_cost = o["users_per_cost"].as<double>();
    CHECK_THAT(per_cost, WithinRel(o["users"].as<double>() / o["cost_total"].as<double>(), 1e-6));
    CHECK(per_cost <= previous);
    previous = per_cost;
  }
  // Every CSV line has as many cells as the header.
  std::vector<std::string> csv = args;
  csv.insert(csv.end(), {"--format", "csv"});
  const auto r = run_tpnet(csv);
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  const long header = cells_of(line);
  int rows = 0;
  while (std::getline(lines, line) && !line.empty()) {
    ++rows;
    CHECK(cells_of(line) == header);
  }
  CHECK(rows == 7);  // TP1 once (it buys no fabric), TP2 to TP8 at two speeds
}

TEST_CASE("plan's table says which options' costs leave out an unpriced switch or cable",
          "[cli][prices]") {
  // At 16 nodes 200G is carried by one sn3700, which has no price in the
  // catalog: its cost of nodes alone must not read as a complete bill.
  const auto r =
      run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "16", "--as-of", "2026-12-04"});
  REQUIRE(r.exit_code == 0);
  const YAML::Node j = json_of(run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "16", "--as-of",
                                          "2026-12-04", "--format", "json"}));
  // Rows read as words: rank, "2 x TP8", speed, switches (one word or
  // "1 x crs804"), fits, extra TTFT, predicted, cost, all priced, usable.
  std::vector<std::vector<std::string>> rows;
  bool header = false;
  std::istringstream table(r.out);
  for (std::string line; std::getline(table, line);) {
    // The switches bought answer plan's question: shown at 100 columns.
    header = header || (line.find("all priced") != std::string::npos &&
                        line.find("switches") != std::string::npos);
    std::istringstream words(line);
    std::vector<std::string> row;
    for (std::string word; words >> word;) row.push_back(word);
    if (row.size() >= 10 && row[2] == "x") rows.push_back(row);
  }
  int checked = 0;
  for (const auto& option : j["options"]) {
    for (const auto& row : rows) {
      if (row[0] != std::to_string(option["rank"].as<int>())) continue;
      CAPTURE(option["layout"].as<std::string>(), option["speed"].as<std::string>());
      CHECK(row[1] + " x " + row[3] == option["layout"].as<std::string>());
      CHECK(row[4] == option["speed"].as<std::string>());
      CHECK(row[row.size() - 2] == (option["cost_complete"].as<bool>() ? "yes" : "no"));
      ++checked;
    }
  }
  CHECK(header);
  CHECK(checked == static_cast<int>(j["options"].size()));
  bool unpriced_switch = false;
  for (const auto& option : j["options"]) {
    for (const auto& item : option["unpriced"]) {
      unpriced_switch = unpriced_switch || item.as<std::string>() == "1 x sn3700";
    }
  }
  CHECK(unpriced_switch);
}

TEST_CASE(
    "ranked by cost, an option with a switch of unknown price never comes first while a "
    "priced one exists, and its cost reads as a floor",
    "[cli][prices][plan]") {
  // 32 Sparks: one SN3700 (no public price) against three CRS804s (1,295 USD each).
  const auto r = run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "32", "--objective",
                            "cheapest", "--as-of", "2026-12-06", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const YAML::Node d = json_of(r);
  const YAML::Node first = d["options"][0];
  CHECK_THAT(first["fabric"].as<std::string>(), ContainsSubstring("crs804"));
  for (std::size_t i = 0; i < d["options"].size(); ++i) {
    const YAML::Node o = d["options"][i];
    if (o["fabric"].as<std::string>().find("sn3700") != std::string::npos &&
        o["usable"].as<bool>()) {
      CHECK_FALSE(o["cost_complete"].as<bool>());
    }
  }
  // The table says "at least" where a part has no price, and the verdict names what to quote.
  const auto table = run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "32", "--objective",
                                "cheapest", "--as-of", "2026-12-06", "--wide"});
  CHECK_THAT(table.out, ContainsSubstring("at least"));
  CHECK_THAT(table.out, ContainsSubstring("get a quote for"));
}
