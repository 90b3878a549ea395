#include "tpnet/measured/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tpnet {
namespace {

/// A rate run completing this much less than a sustained run would is behind.
constexpr double kSustainedFloor = 0.10;

bool meets_ttft_slo(Seconds ttft, const SloSpec& slo) {
  return ttft.value() <= slo.ttft.value() * (1.0 + kSloEqualSlack);
}
bool meets_tps_slo(TokenRate tps, const SloSpec& slo) {
  return tps.tokens_per_second() >= slo.tps.tokens_per_second() * (1.0 - kSloEqualSlack);
}
bool within_edge(double value, double threshold, double edge) {
  return std::fabs(value - threshold) <= edge * threshold * (1.0 + kSloEqualSlack);
}

/// Whether a rate-axis run kept up with its rate; leaves `v` alone where the
/// run lacks what the check needs.
void judge_sustained(PointVerdict& v) {
  const SweepPoint& p = v.point;
  if (!p.request_rate || !p.completed || *p.completed < 1 || !p.latency) return;
  std::optional<double> achieved = p.achieved_rate;
  if (!achieved && p.duration && p.duration->value() > 0.0) {
    achieved = static_cast<double>(*p.completed) / p.duration->value();
  }
  if (!achieved) return;
  v.point.achieved_rate = achieved;  // the verdict shows the rate it judged
  const Seconds tail = p.p99_latency ? *p.p99_latency : *p.latency * 2.0;
  v.expected_rate = sustained_rate(*p.request_rate, *p.completed, tail);
  v.sustained_judged = true;
  v.tail = tail;
  // A queue that grows through the run lengthens the tail with it, so the
  // tail allowance alone would excuse any backlog (gemma-4 at 1 request/s:
  // 0.527 completed, a 426 s p99 over a 250 s send). A server that keeps up
  // finishes its slowest requests well within the time the run spent sending.
  v.tail_outlasts_sending = tail_outlasts_sending(*p.request_rate, *p.completed, tail);
  v.sustained =
      !v.tail_outlasts_sending &&
      *achieved >= *v.expected_rate * (1.0 - sustained_margin(*p.completed, p.burstiness));
}

/// kSloPercentiles' index of `statistic`.
std::size_t percentile_index(SloStatistic statistic) {
  return static_cast<std::size_t>(statistic) - 1;
}

[[noreturn]] void missing_statistic(const SweepPoint& p, SloStatistic statistic,
                                    std::string_view what) {
  InputLocation at = p.source;
  throw InputError(
      fmt::format("{}{} has no {} {}: vLLM writes median and p99 (median_ttft_ms, p99_tpot_ms), "
                  "p90 only with --metric-percentiles 90,99, a CSV as ttft_{}_ms and tps_{}; judge "
                  "on a statistic every file has (`slo.statistic` mean)",
                  at.file, at.line > 0 ? fmt::format(":{}", at.line) : std::string(),
                  to_string(statistic), what, to_string(statistic), to_string(statistic)),
      InputLocation::for_key("slo.statistic"));
}

}  // namespace

std::string_view to_string(LoadAxis axis) {
  return axis == LoadAxis::concurrency ? "concurrency" : "request_rate";
}

std::string_view to_string(SloStatistic statistic) {
  switch (statistic) {
    case SloStatistic::mean:
      return "mean";
    case SloStatistic::median:
      return "median";
    case SloStatistic::p90:
      return "p90";
    case SloStatistic::p99:
      return "p99";
  }
  return "mean";
}

Seconds ttft_at(const SweepPoint& point, SloStatistic statistic) {
  if (statistic == SloStatistic::mean) return point.ttft;
  const double value = point.ttft_percentiles_s[percentile_index(statistic)];
  if (!(value > 0.0)) missing_statistic(point, statistic, "TTFT");
  return Seconds(value);
}

TokenRate tps_at(const SweepPoint& point, SloStatistic statistic) {
  if (statistic == SloStatistic::mean) return point.tps;
  const double value = point.tps_percentiles[percentile_index(statistic)];
  if (!(value > 0.0)) missing_statistic(point, statistic, "decode rate (TPOT)");
  return TokenRate(value);
}

bool equal_within_slack(double a, double b) {
  return std::fabs(a - b) <= kSloEqualSlack * std::fabs(b);
}

std::string load_level_text(const SweepPoint& point, LoadAxis axis) {
  if (axis == LoadAxis::concurrency) return fmt::format("C={}", point.concurrency);
  return point.request_rate ? fmt::format("{:g} requests/s", *point.request_rate) : "rate inf";
}

std::string load_level_text(double level, LoadAxis axis) {
  if (axis == LoadAxis::concurrency) return fmt::format("C={:g}", level);
  return fmt::format("{:g} requests/s", level);
}

std::string source_text(const InputLocation& at) {
  std::string out = at.file;
  if (at.line > 0) out += fmt::format(":{}", at.line);
  if (!at.key.empty()) out += fmt::format("{}{}", out.empty() ? "" : " ", at.key);
  return out.empty() ? "input" : out;
}

double load_level(const SweepPoint& point, LoadAxis axis) {
  if (axis == LoadAxis::concurrency) return point.concurrency;
  return point.request_rate.value_or(0.0);
}

std::vector<SweepPoint> sorted_points(const Sweep& sweep) {
  if (sweep.points.empty()) {
    throw InputError(fmt::format("config '{}' has no measured points", sweep.config),
                     InputLocation::for_key("sweeps"));
  }
  const LoadAxis axis = sweep.axis;
  std::vector<SweepPoint> points = sweep.points;
  // Unlimited runs (no request rate) sort after every rate.
  std::stable_sort(points.begin(), points.end(), [axis](const SweepPoint& a, const SweepPoint& b) {
    if (axis == LoadAxis::request_rate &&
        a.request_rate.has_value() != b.request_rate.has_value()) {
      return a.request_rate.has_value();
    }
    return load_level(a, axis) < load_level(b, axis);
  });
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    if (axis == LoadAxis::concurrency && p.concurrency < 1) {
      throw InputError(fmt::format("config '{}': concurrency must be at least 1", sweep.config),
                       p.source);
    }
    if (axis == LoadAxis::request_rate && p.request_rate &&
        !(*p.request_rate > 0.0 && std::isfinite(*p.request_rate))) {
      throw InputError(fmt::format("config '{}': a request rate must be a positive number of "
                                   "requests/s",
                                   sweep.config),
                       p.source);
    }
    if (!(p.ttft.value() > 0.0) || !(p.tps.tokens_per_second() > 0.0)) {
      throw InputError(fmt::format("config '{}' at {}: TTFT and TPS must be positive", sweep.config,
                                   load_level_text(p, axis)),
                       p.source);
    }
    if (i > 0) {
      const SweepPoint& q = points[i - 1];
      const bool twice =
          axis == LoadAxis::concurrency
              ? q.concurrency == p.concurrency
              : q.request_rate.has_value() == p.request_rate.has_value() &&
                    (!p.request_rate || equal_within_slack(*q.request_rate, *p.request_rate));
      if (twice) {
        throw InputError(
            fmt::format("config '{}' has {} twice (also at {})", sweep.config,
                        axis == LoadAxis::concurrency ? fmt::format("concurrency {}", p.concurrency)
                                                      : load_level_text(p, axis),
                        source_text(q.source)),
            p.source);
      }
    }
  }
  return points;
}

PointVerdict judge_point(const SweepPoint& point, const SloSpec& slo, double edge, LoadAxis axis) {
  PointVerdict v;
  v.point = point;
  v.ttft = ttft_at(point, slo.statistic);
  v.tps = tps_at(point, slo.statistic);
  v.meets_ttft = meets_ttft_slo(v.ttft, slo);
  v.meets_tps = meets_tps_slo(v.tps, slo);
  v.ttft_on_edge = within_edge(v.ttft.value(), slo.ttft.value(), edge);
  v.tps_on_edge = within_edge(v.tps.tokens_per_second(), slo.tps.tokens_per_second(), edge);
  if (point.itl) v.tps_from_itl = rate_from_interval(*point.itl);
  if (axis == LoadAxis::request_rate) judge_sustained(v);
  return v;
}

bool sets_load_level(const PointVerdict& verdict, LoadAxis axis) {
  return axis == LoadAxis::concurrency || !verdict.unlimited();
}

SloSpec shifted_slo(const SloSpec& slo, double edge, bool loosen) {
  const double k = loosen ? edge : -edge;
  SloSpec out = slo;
  out.ttft = slo.ttft * (1.0 + k);
  out.tps = slo.tps * (1.0 - k);
  return out;
}

double max_load(const std::vector<PointVerdict>& verdicts, const SloSpec& slo, LoadAxis axis) {
  double c_max = 0.0;
  for (const auto& v : verdicts) {
    if (sets_load_level(v, axis) && v.sustained && meets_ttft_slo(v.ttft, slo) &&
        meets_tps_slo(v.tps, slo)) {
      c_max = std::max(c_max, load_level(v.point, axis));
    }
  }
  return c_max;
}

double max_load(const Sweep& sweep, const SloSpec& slo) {
  std::vector<PointVerdict> verdicts;
  for (const auto& p : sorted_points(sweep)) {
    verdicts.push_back(judge_point(p, slo, 0.0, sweep.axis));
  }
  return max_load(verdicts, slo, sweep.axis);
}

MaxLoadDecision decide_max_load(const std::vector<PointVerdict>& verdicts, const SloSpec& slo,
                                Seconds think, LoadAxis axis) {
  MaxLoadDecision d;
  d.c_max = max_load(verdicts, slo, axis);
  for (const auto& v : verdicts) {
    if (!sets_load_level(v, axis)) continue;
    const double level = load_level(v.point, axis);
    if (d.c_max > 0.0 && equal_within_slack(level, d.c_max)) d.at_c_max = &v;
    if (level > d.c_max && !equal_within_slack(level, d.c_max) && d.failing == nullptr) {
      d.failing = &v;
    }
  }
  if (d.at_c_max != nullptr) {
    d.latency = d.at_c_max->point.latency;
    d.on_edge = d.at_c_max->ttft_on_edge || d.at_c_max->tps_on_edge;
  }
  if (d.failing != nullptr) {
    d.on_edge = d.on_edge || (!d.failing->meets_ttft && d.failing->ttft_on_edge) ||
                (!d.failing->meets_tps && d.failing->tps_on_edge);
  }
  d.users = axis == LoadAxis::concurrency ? users_by_littles_law(d.c_max, d.latency, think)
                                          : users_at_rate(d.c_max, d.latency, think);
  // Users are people: a fraction of one is nobody served.
  if (d.users) d.users = std::floor(*d.users * (1.0 + kSloEqualSlack));
  return d;
}

std::optional<double> users_by_littles_law(double c_max, std::optional<Seconds> latency,
                                           Seconds think) {
  if (c_max == 0.0) return 0.0;
  if (!latency || !(latency->value() > 0.0)) return std::nullopt;
  return c_max * (1.0 + think / *latency);
}

std::optional<double> users_at_rate(double requests_per_second, std::optional<Seconds> latency,
                                    Seconds think) {
  if (requests_per_second == 0.0) return 0.0;
  if (!latency || !(latency->value() > 0.0)) return std::nullopt;
  return requests_per_second * (latency->value() + think.value());
}

double sustained_rate(double rate, long long completed, Seconds tail) {
  const auto n = static_cast<double>(completed);
  return n / (n / rate + tail.value());
}

bool tail_outlasts_sending(double rate, long long completed, Seconds tail) {
  return tail.value() > static_cast<double>(completed) / rate;
}

double sustained_margin(long long completed, double burstiness) {
  const double spread = 3.0 / std::sqrt(burstiness * static_cast<double>(completed));
  return std::max(kSustainedFloor, spread);
}

}  // namespace tpnet
