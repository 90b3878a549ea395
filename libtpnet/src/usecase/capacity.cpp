#include "tpnet/usecase/capacity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace tpnet {
namespace {

/// A later level whose TTFT falls (or TPS rises) by more than this is doubtful.
constexpr double kMonotoneSlack = 0.10;
/// TPS and 1/ITL further apart than this suggest a wrong column (aggregate TPS?).
constexpr double kItlMismatch = 0.25;

std::string ms(Seconds s) { return fmt::format("{:g} ms", s.value() * 1e3); }
std::string tokens(TokenRate r) { return fmt::format("{:g}", r.tokens_per_second()); }

/// C_max as a sentence shows it: "8", "0.5 requests/s".
std::string c_max_text(double level, LoadAxis axis) {
  return axis == LoadAxis::concurrency ? fmt::format("{:g}", level)
                                       : fmt::format("{:g} requests/s", level);
}
const char* load_word(LoadAxis axis) {
  return axis == LoadAxis::concurrency ? "concurrency" : "the request rate";
}

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

/// Levels between this sweep's lowest and highest that other sweeps measured,
/// or, on the concurrency axis when every level here is a power of two,
/// powers of two left out.
std::vector<double> gaps_of(const std::vector<SweepPoint>& points,
                            const std::vector<double>& all_levels, LoadAxis axis) {
  std::vector<double> mine;
  for (const auto& p : points) {
    if (axis == LoadAxis::concurrency || p.request_rate) mine.push_back(load_level(p, axis));
  }
  if (mine.empty()) return {};
  std::sort(mine.begin(), mine.end());
  const double lo = mine.front();
  const double hi = mine.back();
  // A binary search and its neighbours: `same` allows only a relative 1e-9,
  // so a level matching within it is next to where it would be inserted.
  const auto measured = [&](double level) {
    const auto at = std::lower_bound(mine.begin(), mine.end(), level);
    return (at != mine.end() && equal_within_slack(*at, level)) ||
           (at != mine.begin() && equal_within_slack(*(at - 1), level));
  };
  std::set<double> gaps;
  for (double level : all_levels) {
    if (level > lo && level < hi && !measured(level)) gaps.insert(level);
  }
  if (axis == LoadAxis::concurrency && std::all_of(mine.begin(), mine.end(), [](double m) {
        return is_power_of_two(static_cast<int>(m));
      })) {
    for (auto level = static_cast<long long>(lo); static_cast<double>(level) < hi; level *= 2) {
      if (!measured(static_cast<double>(level))) gaps.insert(static_cast<double>(level));
    }
  }
  return {gaps.begin(), gaps.end()};
}

std::string join_levels(const std::vector<double>& levels, LoadAxis axis) {
  std::string out;
  for (double level : levels) out += (out.empty() ? "" : ", ") + fmt::format("{:g}", level);
  return axis == LoadAxis::concurrency ? "C=" + out : out + " requests/s";
}

/// Why the first level above C_max fails, with how far each value is off.
std::string failure_text(const PointVerdict& v, const SloSpec& slo, double edge) {
  std::vector<std::string> parts;
  const auto edge_word = [&](bool on) {
    return on ? fmt::format(", within {:g}% of it: on the edge", edge * 100.0) : std::string();
  };
  if (!v.meets_ttft) {
    const double over = v.ttft / slo.ttft - 1.0;
    parts.push_back(fmt::format("TTFT {} > {} ({:.1f}% over{})", ms(v.ttft), ms(slo.ttft),
                                over * 100.0, edge_word(v.ttft_on_edge)));
  }
  if (!v.meets_tps) {
    const double short_by = 1.0 - v.tps / slo.tps;
    parts.push_back(fmt::format("TPS {} < {} tokens/s ({:.1f}% short{})", tokens(v.tps),
                                tokens(slo.tps), short_by * 100.0, edge_word(v.tps_on_edge)));
  }
  if (!v.sustained && v.expected_rate && v.tail_outlasts_sending) {
    const double rate = v.point.request_rate.value_or(0.0);
    parts.push_back(fmt::format(
        "to keep up: it completed {:.3g} requests/s of the {:g} sent, and its {} latency of "
        "{:.1f} s outlasts the {:.1f} s it spent sending its {} requests, so its queue never "
        "showed a steady state: not sustained (a run of at least {:.0f} requests at this rate "
        "could show one{})",
        v.point.achieved_rate.value_or(0.0), rate, v.point.p99_latency ? "p99" : "2 x mean",
        v.tail.value(), static_cast<double>(v.point.completed.value_or(0)) / rate,
        v.point.completed.value_or(0), std::ceil(rate * v.tail.value()),
        v.point.concurrency > 0
            ? fmt::format("; its --max-concurrency {} may have capped it", v.point.concurrency)
            : std::string()));
  } else if (!v.sustained && v.expected_rate) {
    parts.push_back(fmt::format(
        "to keep up: it completed {:.3g} requests/s of the {:g} sent ({:.3g} if sustained over "
        "a run this long{}): not sustained",
        v.point.achieved_rate.value_or(0.0), v.point.request_rate.value_or(0.0), *v.expected_rate,
        v.point.concurrency > 0
            ? fmt::format("; its --max-concurrency {} may have capped it", v.point.concurrency)
            : std::string()));
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " and ") + p;
  return out;
}

void add_data_warnings(ConfigCapacity& c) {
  const auto& pts = c.points;
  const LoadAxis axis = c.axis;
  for (std::size_t i = 1; i < pts.size(); ++i) {
    if (!sets_load_level(pts[i], axis)) break;
    const SweepPoint& a = pts[i - 1].point;
    const SweepPoint& b = pts[i].point;
    if (b.ttft.value() < a.ttft.value() * (1.0 - kMonotoneSlack)) {
      c.warnings.push_back(fmt::format(
          "{}: TTFT falls from {} at {} to {} at {} ({:.0f}%) as {} rises; check {}", c.config,
          ms(a.ttft), load_level_text(a, axis), ms(b.ttft), load_level_text(b, axis),
          (b.ttft / a.ttft - 1.0) * 100.0, load_word(axis), source_text(b.source)));
    }
    if (b.tps.tokens_per_second() > a.tps.tokens_per_second() * (1.0 + kMonotoneSlack)) {
      c.warnings.push_back(fmt::format(
          "{}: TPS rises from {} at {} to {} at {} (+{:.0f}%) as {} rises; check {}", c.config,
          tokens(a.tps), load_level_text(a, axis), tokens(b.tps), load_level_text(b, axis),
          (b.tps / a.tps - 1.0) * 100.0, load_word(axis), source_text(b.source)));
    }
  }
  for (const auto& v : pts) {
    const SweepPoint& p = v.point;
    if (v.tps_from_itl && p.check_tps_against_itl) {
      const double ratio = p.tps / *v.tps_from_itl;
      if (std::fabs(ratio - 1.0) > kItlMismatch) {
        c.warnings.push_back(fmt::format(
            "{} at {}: TPS {} is {:.2f} x 1000/ITL ({}); TPS should be one request's decode "
            "rate (is it an aggregate, or ITL in other units?); see {}",
            c.config, load_level_text(p, axis), tokens(p.tps), ratio, tokens(*v.tps_from_itl),
            source_text(p.source)));
      }
    }
    if (p.latency && *p.latency < p.ttft) {
      c.warnings.push_back(fmt::format(
          "{} at {}: end-to-end latency {:g} s is below TTFT {}; check the units at {}", c.config,
          load_level_text(p, axis), p.latency->value(), ms(p.ttft), source_text(p.source)));
    }
  }
  for (const auto& v : pts) {
    if (sets_load_level(v, axis) && load_level(v.point, axis) < c.c_max && !v.meets()) {
      c.warnings.push_back(fmt::format(
          "{}: {} fails the SLOs but {} meets them; C_max is the largest level that meets "
          "them ({}), so check {} ({})",
          c.config, load_level_text(v.point, axis), load_level_text(c.c_max, axis),
          c_max_text(c.c_max, axis), load_level_text(v.point, axis), source_text(v.point.source)));
    }
  }
}

/// What an unlimited run (request_rate inf) showed, since it sets no level.
std::string unlimited_note(const PointVerdict& v) {
  const SweepPoint& p = v.point;
  std::string completed;
  if (p.achieved_rate) completed = fmt::format(", {:.3g} requests/s completed", *p.achieved_rate);
  return fmt::format(
      "the run with request_rate inf (every request sent at once) {} the SLOs (TTFT {:.1f} ms, "
      "TPS {:.1f} tokens/s{}); it sent no rate, so it sets neither C_max nor the peak ({})",
      v.meets_ttft && v.meets_tps ? "meets" : "fails", v.ttft.value() * 1e3,
      v.tps.tokens_per_second(), completed, source_text(p.source));
}

std::vector<PointVerdict> judge_all(const std::vector<SweepPoint>& points, const SloSpec& slo,
                                    double edge, LoadAxis axis) {
  std::vector<PointVerdict> verdicts;
  verdicts.reserve(points.size());
  for (const auto& p : points) verdicts.push_back(judge_point(p, slo, edge, axis));
  return verdicts;
}

/// A sweep with its points sorted and checked once, for the report and every
/// sensitivity row.
struct SortedSweep {
  const Sweep* sweep = nullptr;
  std::vector<SweepPoint> points;
};

ConfigCapacity analyze_impl(const SortedSweep& sorted, const SloSpec& slo,
                            const CapacityOptions& options, const std::vector<double>& all_levels) {
  const Sweep& sweep = *sorted.sweep;
  ConfigCapacity c;
  c.config = sweep.config;
  c.tp = sweep.tp;
  c.axis = sweep.axis;
  const LoadAxis axis = sweep.axis;
  const std::vector<SweepPoint>& points = sorted.points;
  c.points.reserve(points.size());
  for (const auto& p : points) {
    c.points.push_back(judge_point(p, slo, options.edge, axis));
    if (!sets_load_level(c.points.back(), axis)) continue;
    const double level = load_level(p, axis);
    c.lowest_level = c.lowest_level == 0.0 ? level : std::min(c.lowest_level, level);
    c.highest_level = std::max(c.highest_level, level);
    const TokenRate throughput = axis == LoadAxis::concurrency
                                     ? p.tps * static_cast<double>(p.concurrency)
                                     : p.output_throughput.value_or(TokenRate());
    if (throughput > c.peak_throughput) {
      c.peak_throughput = throughput;
      c.peak_level = load_level(p, axis);
    }
  }
  const MaxLoadDecision d = decide_max_load(c.points, slo, options.think, axis);
  c.c_max = d.c_max;
  c.c_max_tight = max_load(c.points, shifted_slo(slo, options.edge, false), axis);
  c.c_max_loose = max_load(c.points, shifted_slo(slo, options.edge, true), axis);
  const PointVerdict* at_c_max = d.at_c_max;
  const PointVerdict* failing = d.failing;
  c.latency_at_c_max = d.latency;
  c.on_edge = d.on_edge;
  c.users = d.users;

  const double edge_pct = options.edge * 100.0;
  if (failing != nullptr) {
    c.fails_at = load_level(failing->point, axis);
    c.fails_unsustained = !failing->sustained;
    c.binding = !failing->meets_ttft && !failing->meets_tps ? Binding::both
                : !failing->meets_ttft                      ? Binding::ttft
                : !failing->meets_tps                       ? Binding::tps
                                                            : Binding::unsustained;
    const std::string why = failure_text(*failing, slo, options.edge);
    if (c.c_max == 0.0) {
      c.notes.push_back(fmt::format("C_max 0: even the lowest measured level, {}, fails: {}",
                                    load_level_text(c.fails_at, axis), why));
    } else {
      c.notes.push_back(fmt::format("C_max {}: {} fails {}", c_max_text(c.c_max, axis),
                                    load_level_text(c.fails_at, axis), why));
    }
  } else if (c.c_max > 0.0) {
    c.notes.push_back(fmt::format(
        "every measured level meets both SLOs, up to {}: capacity may be higher than measured",
        load_level_text(c.c_max, axis)));
  } else {
    c.notes.emplace_back(
        "no run sent a fixed request rate: C_max is 0 (rerun vllm bench serve with "
        "--request-rate R for several R)");
  }
  if (axis == LoadAxis::request_rate) {
    int judged = 0;
    for (const auto& v : c.points) {
      if (v.unlimited()) c.notes.push_back(unlimited_note(v));
      judged += v.sustained_judged ? 1 : 0;
    }
    const int rated = static_cast<int>(std::count_if(
        c.points.begin(), c.points.end(), [](const PointVerdict& v) { return !v.unlimited(); }));
    if (judged < rated) {
      c.notes.push_back(fmt::format(
          "{} of {} runs lack request_throughput (or duration), completed or a latency: whether "
          "they kept up with their rate was not judged",
          rated - judged, rated));
    }
  }
  if (at_c_max != nullptr && (at_c_max->ttft_on_edge || at_c_max->tps_on_edge)) {
    std::vector<std::string> parts;
    if (at_c_max->ttft_on_edge) {
      parts.push_back(fmt::format("TTFT {} against {}", ms(at_c_max->ttft), ms(slo.ttft)));
    }
    if (at_c_max->tps_on_edge) {
      parts.push_back(
          fmt::format("TPS {} against {} tokens/s", tokens(at_c_max->tps), tokens(slo.tps)));
    }
    c.notes.push_back(fmt::format("{} meets the SLOs within {:g}% of a threshold ({}): on the edge",
                                  load_level_text(c.c_max, axis), edge_pct,
                                  parts.size() == 2 ? parts[0] + ", " + parts[1] : parts[0]));
  }
  if (!equal_within_slack(c.c_max_tight, c.c_max_loose)) {
    c.notes.push_back(fmt::format(
        "capacity swings: C_max is {} with both thresholds {:g}% tighter and {} with them {:g}% "
        "looser",
        c_max_text(c.c_max_tight, axis), edge_pct, c_max_text(c.c_max_loose, axis), edge_pct));
  } else if (c.on_edge) {
    c.notes.push_back(fmt::format(
        "a deciding point is on the edge, but C_max stays {} with the thresholds {:g}% tighter "
        "or looser",
        c_max_text(c.c_max, axis), edge_pct));
  }
  if (c.c_max > 0.0 && !c.latency_at_c_max) {
    c.notes.push_back(
        fmt::format("latency not reported at {}: users by Little's law cannot be computed",
                    load_level_text(c.c_max, axis)));
  }
  c.gaps = gaps_of(points, all_levels, axis);
  if (!c.gaps.empty()) {
    std::string note = fmt::format("{} not measured", join_levels(c.gaps, axis));
    if (c.fails_at > 0.0 && std::any_of(c.gaps.begin(), c.gaps.end(),
                                        [&](double g) { return g > c.c_max && g < c.fails_at; })) {
      const double lowest = axis == LoadAxis::concurrency ? 1.0 : load_level(points.front(), axis);
      note += fmt::format("; the limit lies between the measured {} and {}",
                          load_level_text(std::max(c.c_max, lowest), axis),
                          load_level_text(c.fails_at, axis));
    }
    c.notes.push_back(note);
  }
  for (const auto& n : sweep.notes) c.notes.push_back(n);
  add_data_warnings(c);
  return c;
}

/// Every level any sweep measured, ascending, each once.
std::vector<double> levels_of(const std::vector<Sweep>& sweeps) {
  std::vector<double> levels;
  for (const auto& s : sweeps) {
    for (const auto& p : s.points) {
      if (s.axis == LoadAxis::concurrency || p.request_rate)
        levels.push_back(load_level(p, s.axis));
    }
  }
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  return levels;
}

void require_positive(double value, const char* flag, const char* what) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw InputError(fmt::format("must be a positive {}", what), InputLocation::for_key(flag));
  }
}

/// The list with `chosen` added where it is missing, in ascending order.
template <typename T, typename Value>
std::vector<T> with_chosen(std::vector<T> values, T chosen, Value value) {
  const bool present = std::any_of(values.begin(), values.end(), [&](const T& v) {
    return std::fabs(value(v) - value(chosen)) <= kSloEqualSlack * value(chosen);
  });
  if (!present) values.push_back(chosen);
  std::sort(values.begin(), values.end(),
            [&](const T& a, const T& b) { return value(a) < value(b); });
  return values;
}

/// One row: C_max, users and the edge per config, without the notes and
/// warnings of a full analysis, on points sorted once (so a sweep of n levels
/// costs n per row).
SensitivityRow sensitivity_row(const std::vector<SortedSweep>& sweeps, const SloSpec& slo,
                               const CapacityOptions& options, bool chosen) {
  SensitivityRow row;
  row.think = options.think;
  row.slo = slo;
  row.chosen = chosen;
  for (const auto& s : sweeps) {
    const std::vector<PointVerdict> verdicts =
        judge_all(s.points, slo, options.edge, s.sweep->axis);
    const MaxLoadDecision d = decide_max_load(verdicts, slo, options.think, s.sweep->axis);
    row.cells.push_back(SensitivityCell{s.sweep->config, d.c_max, d.users, d.on_edge});
  }
  return row;
}

FleetReport plan_fleet(const std::vector<ConfigCapacity>& configs, int nodes) {
  FleetReport f;
  f.nodes = nodes;
  bool single = false;
  for (const auto& c : configs) {
    if (c.tp > nodes) {
      f.notes.push_back(
          fmt::format("{} needs {} nodes per instance; the fleet has {}", c.config, c.tp, nodes));
      continue;
    }
    FleetOption o;
    o.config = c.config;
    o.tp = c.tp;
    o.replicas = nodes / c.tp;
    o.idle_nodes = nodes - o.replicas * c.tp;
    o.concurrent = o.replicas * c.c_max;
    if (c.users) {
      o.users = *c.users * o.replicas;
      o.users_after_one_loss = *c.users * (o.replicas - 1);
    }
    o.peak_throughput = c.peak_throughput * static_cast<double>(o.replicas);
    for (const auto& v : c.points) {
      if (!sets_load_level(v, c.axis) || c.c_max == 0.0 ||
          !equal_within_slack(load_level(v.point, c.axis), c.c_max)) {
        continue;
      }
      o.slo_throughput = c.axis == LoadAxis::concurrency
                             ? v.point.tps * (c.c_max * o.replicas)
                             : v.point.output_throughput.value_or(TokenRate()) * o.replicas;
    }
    o.highly_available = o.replicas >= 2;
    single = single || o.tp == nodes;
    if (o.idle_nodes > 0) {
      f.notes.push_back(fmt::format("{} x{} leaves {} of {} nodes idle", o.config, o.replicas,
                                    o.idle_nodes, nodes));
    }
    f.options.push_back(o);
  }
  if (!single) {
    f.notes.push_back(
        fmt::format("no TP{} config was measured: one instance over all {} nodes is not among "
                    "the options",
                    nodes, nodes));
  }
  // Most users; ties go to the highly available option, then to throughput.
  const auto better = [&](std::size_t i, std::optional<std::size_t> best) {
    if (!best) return true;
    const FleetOption& a = f.options[i];
    const FleetOption& b = f.options[*best];
    if (*a.users != *b.users) return *a.users > *b.users;
    if (a.highly_available != b.highly_available) return a.highly_available;
    return a.peak_throughput > b.peak_throughput;
  };
  for (std::size_t i = 0; i < f.options.size(); ++i) {
    if (!f.options[i].users) continue;
    if (better(i, f.most_users)) f.most_users = i;
    if (f.options[i].highly_available && better(i, f.best_available)) f.best_available = i;
  }
  for (const auto& o : f.options) {
    if (!o.users) {
      f.notes.push_back(
          fmt::format("{} x{}: users unknown (no latency at C_max), left out of the comparison",
                      o.config, o.replicas));
    }
  }
  return f;
}

/// Calls `visit(va, vb)` for each level both configs measured, lowest
/// first: a merge of their points, which are sorted by level.
template <typename Visit>
void for_shared_levels(const ConfigCapacity& a, const ConfigCapacity& b, Visit visit) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.points.size() && j < b.points.size()) {
    const PointVerdict& va = a.points[i];
    const PointVerdict& vb = b.points[j];
    if (!sets_load_level(va, a.axis) || !sets_load_level(vb, b.axis))
      return;  // unlimited runs sort last
    const double la = load_level(va.point, a.axis);
    const double lb = load_level(vb.point, b.axis);
    if (equal_within_slack(la, lb)) {
      if (!visit(va, vb)) return;
      ++i;
      ++j;
    } else if (la < lb) {
      ++i;
    } else {
      ++j;
    }
  }
}

std::vector<ScalingRow> scaling_rows(const std::vector<ConfigCapacity>& configs) {
  std::vector<ScalingRow> rows;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    for (std::size_t j = 0; j < configs.size(); ++j) {
      const ConfigCapacity& a = configs[i];
      const ConfigCapacity& b = configs[j];
      if (a.tp >= b.tp) continue;
      for_shared_levels(a, b, [&](const PointVerdict& va, const PointVerdict& vb) {
        ScalingRow r;
        r.from_config = a.config;
        r.to_config = b.config;
        r.from_tp = a.tp;
        r.to_tp = b.tp;
        r.level = load_level(va.point, a.axis);
        r.from_tps = va.point.tps;
        r.to_tps = vb.point.tps;
        r.speedup = vb.point.tps / va.point.tps;
        r.ideal = static_cast<double>(b.tp) / a.tp;
        r.efficiency = r.speedup / r.ideal;
        rows.push_back(r);
        return true;
      });
    }
  }
  return rows;
}

/// TTFT at the lowest level two configs share, where a larger TP is slower.
void ttft_findings(const std::vector<ConfigCapacity>& configs, std::vector<std::string>& notes) {
  for (const auto& a : configs) {
    for (const auto& b : configs) {
      if (a.tp >= b.tp) continue;
      for_shared_levels(a, b, [&](const PointVerdict& va, const PointVerdict& vb) {
        if (vb.point.ttft > va.point.ttft) {
          notes.push_back(
              fmt::format("{}'s {} TTFT ({}) is worse than {}'s ({}): prefill of few requests is "
                          "compute-bound and a larger TP adds all-reduce steps",
                          b.config, load_level_text(va.point, a.axis), ms(vb.point.ttft), a.config,
                          ms(va.point.ttft)));
        }
        return false;  // the lowest shared level only
      });
    }
  }
}

}  // namespace

std::string_view to_string(Binding binding) {
  switch (binding) {
    case Binding::none_measured:
      return "none measured";
    case Binding::ttft:
      return "ttft";
    case Binding::tps:
      return "tps";
    case Binding::both:
      return "ttft+tps";
    case Binding::unsustained:
      return "rate not sustained";
  }
  return "none measured";
}

ConfigCapacity analyze_config(const Sweep& sweep, const SloSpec& slo,
                              const CapacityOptions& options) {
  return analyze_impl(SortedSweep{&sweep, sorted_points(sweep)}, slo, options, levels_of({sweep}));
}

CapacityReport analyze_capacity(const std::vector<Sweep>& sweeps, const SloSpec& slo,
                                const CapacityOptions& options) {
  if (sweeps.empty()) {
    throw InputError("no sweeps given: name a CSV, a vLLM result JSON file or a folder of them",
                     InputLocation::for_key("sweeps"));
  }
  require_positive(slo.ttft.value(), "slo.ttft", "TTFT target, e.g. 1000ms");
  require_positive(slo.tps.tokens_per_second(), "slo.tps", "decode rate in tokens/s, e.g. 15");
  require_positive(options.think.value(), "think", "think time, e.g. 45s");
  if (!(options.edge >= 0.0 && options.edge <= 0.5)) {
    throw InputError("must lie in 0% to 50%", InputLocation::for_key("edge"));
  }
  if (options.fleet_nodes < 0) {
    throw InputError("must be a positive number of nodes", InputLocation::for_key("fleet_nodes"));
  }
  for (const auto& t : options.think_values) {
    require_positive(t.value(), "think_values", "think time, e.g. 45s");
  }
  for (const auto& t : options.ttft_values) {
    require_positive(t.value(), "ttft_values", "TTFT target, e.g. 1000ms");
  }
  for (const auto& r : options.tps_values) {
    require_positive(r.tokens_per_second(), "tps_values", "decode rate in tokens/s, e.g. 15");
  }
  std::map<std::string, const Sweep*> names;
  for (const auto& s : sweeps) {
    if (s.tp < 1) {
      throw InputError("config '" + s.config + "' needs a tensor-parallel size of at least 1",
                       InputLocation::for_key("sweeps"));
    }
    if (!names.emplace(s.config, &s).second) {
      throw InputError("config '" + s.config + "' is given twice; merge its points into one sweep",
                       InputLocation::for_key("sweeps"));
    }
  }

  for (const auto& s : sweeps) {
    if (s.axis != sweeps.front().axis) {
      throw InputError(
          fmt::format("config '{}' is a {} sweep and '{}' a {} sweep: their C_max are different "
                      "quantities; analyse them in separate runs",
                      sweeps.front().config,
                      sweeps.front().axis == LoadAxis::concurrency ? "concurrency" : "request-rate",
                      s.config, s.axis == LoadAxis::concurrency ? "concurrency" : "request-rate"),
          InputLocation::for_key("sweeps"));
    }
  }
  CapacityReport r;
  r.axis = sweeps.front().axis;
  r.slo = slo;
  r.options = options;
  const std::vector<double> levels = levels_of(sweeps);
  std::vector<SortedSweep> sorted;
  sorted.reserve(sweeps.size());
  for (const auto& s : sweeps) sorted.push_back(SortedSweep{&s, sorted_points(s)});
  int largest_tp = 0;
  for (const auto& s : sorted) {
    r.configs.push_back(analyze_impl(s, slo, options, levels));
    largest_tp = std::max(largest_tp, s.sweep->tp);
  }
  if (r.options.fleet_nodes == 0) r.options.fleet_nodes = largest_tp;
  r.options.think_values =
      with_chosen(options.think_values, options.think, [](const Seconds& s) { return s.value(); });
  r.options.ttft_values =
      with_chosen(options.ttft_values, slo.ttft, [](const Seconds& s) { return s.value(); });
  r.options.tps_values = with_chosen(options.tps_values, slo.tps,
                                     [](const TokenRate& t) { return t.tokens_per_second(); });

  for (const auto& think : r.options.think_values) {
    CapacityOptions o = options;
    o.think = think;
    r.think_sensitivity.push_back(
        sensitivity_row(sorted, slo, o, equal_within_slack(think.value(), options.think.value())));
  }
  for (const auto& ttft : r.options.ttft_values) {
    r.ttft_sensitivity.push_back(
        sensitivity_row(sorted, SloSpec{ttft, slo.tps}, options,
                        equal_within_slack(ttft.value(), slo.ttft.value())));
  }
  for (const auto& tps : r.options.tps_values) {
    r.tps_sensitivity.push_back(
        sensitivity_row(sorted, SloSpec{slo.ttft, tps}, options,
                        equal_within_slack(tps.tokens_per_second(), slo.tps.tokens_per_second())));
  }
  r.fleet = plan_fleet(r.configs, r.options.fleet_nodes);
  r.scaling = scaling_rows(r.configs);

  if (std::all_of(r.configs.begin(), r.configs.end(),
                  [](const ConfigCapacity& c) { return c.c_max == 0.0; })) {
    r.notes.push_back(
        fmt::format("no config meets TTFT <= {} and TPS >= {} tokens/s at any measured {}: "
                    "C_max is 0 everywhere",
                    ms(slo.ttft), tokens(slo.tps),
                    r.axis == LoadAxis::concurrency ? "concurrency" : "request rate"));
  }
  ttft_findings(r.configs, r.notes);
  for (const auto& c : r.configs) {
    r.warnings.insert(r.warnings.end(), c.warnings.begin(), c.warnings.end());
  }
  return r;
}

CapacityReport run_capacity(const CapacityRequest& request) {
  CapacityReport r = analyze_capacity(request.sweeps, request.slo, request.options);
  r.warnings.insert(r.warnings.begin(), request.sweep_warnings.begin(),
                    request.sweep_warnings.end());
  return r;
}

}  // namespace tpnet
