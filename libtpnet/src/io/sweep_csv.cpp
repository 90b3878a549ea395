// Concurrency sweeps as CSV, in the columns of the Qwen3.6-27B study.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>

#include "csv_table.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/sweep_io.hpp"
#include "tpnet/io/text_file.hpp"

namespace tpnet {
namespace {

enum class ColumnUnit { milliseconds, seconds, tokens_per_second };

struct Column {
  const char* name;
  ColumnUnit unit;
};

/// Every measured cell lies in [1e-6, 1e9] of its unit (1 ns to 11 days in
/// ms, as the vLLM JSON reader), so rates and sums derived from it stay finite.
constexpr double kMinMeasured = 1e-6;
constexpr double kMaxMeasured = 1e9;

constexpr Column kTtft{"ttft_ms", ColumnUnit::milliseconds};
constexpr Column kItl{"itl_ms", ColumnUnit::milliseconds};
constexpr Column kTps{"tps", ColumnUnit::tokens_per_second};
constexpr Column kLatency{"latency_s", ColumnUnit::seconds};

std::string unit_words(ColumnUnit unit) {
  switch (unit) {
    case ColumnUnit::milliseconds:
      return "milliseconds";
    case ColumnUnit::seconds:
      return "seconds";
    case ColumnUnit::tokens_per_second:
      return "tokens/s";
  }
  return "";
}

/// A plain number; a cell that carries a unit ("233ms", "0.23s") gets a
/// message saying what the column holds and what to write instead.
std::optional<double> measured(const csv::Table& table, const csv::Row& row, std::size_t index,
                               const Column& column, const std::string& origin) {
  const std::string& cell = table.text(row, index);
  if (cell.empty()) return std::nullopt;
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  const InputLocation at =
      InputLocation::in_file(origin, row.line, "column " + std::string(column.name));
  if (ec == std::errc() && ptr != cell.data() && ptr != cell.data() + cell.size()) {
    std::string advice;
    if (column.unit != ColumnUnit::tokens_per_second) {
      try {
        const Seconds s = parse_duration(cell, at);
        const double plain = column.unit == ColumnUnit::milliseconds ? s.value() * 1e3 : s.value();
        advice = fmt::format("; write {:g}", plain);
      } catch (const InputError&) {
        // not a duration either: the generic advice below
      }
    }
    throw InputError(fmt::format("'{}' is not a number: the column holds plain {} without a "
                                 "unit{}",
                                 cell, unit_words(column.unit), advice),
                     at);
  }
  value = table.number(row, index);  // throws the usual message for anything else
  if (!(value > 0.0)) {
    throw InputError(fmt::format("{} must be positive ({})", cell, unit_words(column.unit)), at);
  }
  // 1e-308 ms is positive, yet 1000 / itl_ms of it is inf (found by tests/fuzz).
  if (value < kMinMeasured || value > kMaxMeasured) {
    throw InputError(fmt::format("{} is outside {:g} to {:g} {}: not a measurement", cell,
                                 kMinMeasured, kMaxMeasured, unit_words(column.unit)),
                     at);
  }
  return value;
}

}  // namespace

SweepSet parse_sweep_csv(std::string_view text, const std::string& origin) {
  const auto table = csv::Table::parse(text, origin);
  const auto config_col = table.require_column("config");
  const auto tp_col = table.require_column("tp");
  const auto c_col = table.require_column("concurrency");
  const auto ttft_col = table.require_column(kTtft.name);
  const auto tps_col = table.require_column(kTps.name);
  const auto itl_col = table.column(kItl.name);
  const auto latency_col = table.column(kLatency.name);
  // Optional percentile columns (slo.statistic): ttft_median_ms,
  // ttft_p90_ms, ttft_p99_ms, and tps_median, tps_p90, tps_p99 (the decode
  // rate that share of requests reaches: 1000 / that percentile of TPOT).
  std::array<std::string, kSloPercentiles.size()> ttft_names;
  std::array<std::string, kSloPercentiles.size()> tps_names;
  std::array<std::optional<std::size_t>, kSloPercentiles.size()> ttft_cols;
  std::array<std::optional<std::size_t>, kSloPercentiles.size()> tps_cols;
  for (std::size_t i = 0; i < kSloPercentiles.size(); ++i) {
    ttft_names[i] = fmt::format("ttft_{}_ms", to_string(kSloPercentiles[i]));
    tps_names[i] = fmt::format("tps_{}", to_string(kSloPercentiles[i]));
    ttft_cols[i] = table.column(ttft_names[i]);
    tps_cols[i] = table.column(tps_names[i]);
  }

  SweepSet set;
  std::map<std::string, std::size_t> index;
  std::map<std::string, int> tp_line;
  std::map<std::pair<std::string, int>, int> seen;
  std::map<std::string, std::vector<int>> derived_tps;
  for (const auto& row : table.rows()) {
    auto at = [&](const char* column) {
      return InputLocation::in_file(origin, row.line, "column " + std::string(column));
    };
    const std::string& config = table.text(row, config_col);
    if (config.empty())
      throw InputError("is empty; name the configuration, e.g. TP4", at("config"));
    const long long tp = table.integer(row, tp_col);
    if (tp < 1 || tp > 4096) throw InputError("must be 1 to 4096 nodes", at("tp"));
    const long long concurrency = table.integer(row, c_col);
    if (concurrency < 1 || concurrency > 1000000) {
      throw InputError("must be 1 to 1,000,000 concurrent requests", at("concurrency"));
    }

    SweepPoint p;
    p.concurrency = static_cast<int>(concurrency);
    p.source = InputLocation::in_file(origin, row.line);
    const auto ttft = measured(table, row, ttft_col, kTtft, origin);
    if (!ttft) {
      throw InputError("is empty; the TTFT SLO needs a TTFT at every level", at(kTtft.name));
    }
    p.ttft = Seconds::milliseconds(*ttft);
    if (itl_col) {
      if (auto itl = measured(table, row, *itl_col, kItl, origin)) {
        p.itl = Seconds::milliseconds(*itl);
        if (*itl < 1.0) {
          set.warnings.push_back(fmt::format(
              "{}:{}: itl_ms {:g} is under 1 ms; is the column in seconds? itl_ms holds "
              "milliseconds",
              origin, row.line, *itl));
        }
      }
    }
    if (auto tps = measured(table, row, tps_col, kTps, origin)) {
      p.tps = TokenRate(*tps);
    } else if (p.itl) {
      p.tps = rate_from_interval(*p.itl);
      derived_tps[config].push_back(p.concurrency);
    } else {
      throw InputError("is empty; give the decode rate, or itl_ms to derive it as 1000 / itl_ms",
                       at(kTps.name));
    }
    for (std::size_t i = 0; i < kSloPercentiles.size(); ++i) {
      if (ttft_cols[i]) {
        const Column column{ttft_names[i].c_str(), ColumnUnit::milliseconds};
        if (auto v = measured(table, row, *ttft_cols[i], column, origin)) {
          p.ttft_percentiles_s[i] = Seconds::milliseconds(*v).value();
        }
      }
      if (tps_cols[i]) {
        const Column column{tps_names[i].c_str(), ColumnUnit::tokens_per_second};
        if (auto v = measured(table, row, *tps_cols[i], column, origin)) {
          p.tps_percentiles[i] = *v;
        }
      }
    }
    if (latency_col) {
      if (auto latency = measured(table, row, *latency_col, kLatency, origin)) {
        p.latency = Seconds(*latency);
        if (*latency > 1000.0) {
          set.warnings.push_back(fmt::format(
              "{}:{}: latency_s {:g} is over 1000 s; is the column in milliseconds? latency_s "
              "holds seconds",
              origin, row.line, *latency));
        }
      }
    }
    if (*ttft < 1.0) {
      set.warnings.push_back(
          fmt::format("{}:{}: ttft_ms {:g} is under 1 ms; is the column in seconds? ttft_ms holds "
                      "milliseconds",
                      origin, row.line, *ttft));
    }

    const auto [it, added] = index.emplace(config, set.sweeps.size());
    if (added) {
      set.sweeps.push_back(Sweep{config, static_cast<int>(tp), LoadAxis::concurrency, {}, {}});
      tp_line[config] = row.line;
    } else if (set.sweeps[it->second].tp != tp) {
      throw InputError(fmt::format("config {} has tp {} here and {} at line {}", config, tp,
                                   set.sweeps[it->second].tp, tp_line[config]),
                       at("tp"));
    }
    const auto [dup, fresh] = seen.emplace(std::make_pair(config, p.concurrency), row.line);
    if (!fresh) {
      throw InputError(fmt::format("config {} has concurrency {} twice (also at line {})", config,
                                   p.concurrency, dup->second),
                       at("concurrency"));
    }
    set.sweeps[it->second].points.push_back(std::move(p));
  }
  for (auto& s : set.sweeps) {
    const auto d = derived_tps.find(s.config);
    if (d == derived_tps.end()) continue;
    std::string levels;
    for (int c : d->second) levels += (levels.empty() ? "" : ", ") + std::to_string(c);
    s.notes.push_back(fmt::format("TPS at C={} is 1000 / itl_ms (the tps cell is empty)", levels));
  }
  return set;
}

SweepSet load_sweep_csv(const std::string& path) {
  return parse_sweep_csv(read_text_file(path), path);
}

}  // namespace tpnet
