#include "charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tpnet/base/error.hpp"
#include "tpnet/base/quantity_text.hpp"

namespace tpnet::cli {
namespace {

using chart::Annotation;
using chart::Axis;
using chart::BarSeries;
using chart::Figure;
using chart::LineSeries;
using chart::Panel;
using chart::Point;

/// "+1.11 s", "-0.5 s": a difference (a faster --to link gives a negative one).

}  // namespace

Figure penalty_figure(const PenaltyReport& report, const Link& from, const Link& to,
                      const std::string& subject) {
  Figure f;
  f.title = fmt::format("Extra time to first token, {} -> {}", from.name, to.name);
  f.subtitle = subject;
  Panel extra;
  extra.kind = Panel::Kind::bars;
  extra.title = "Extra TTFT per test";
  extra.y = Axis{"extra TTFT", "s", {}, {}};
  extra.x.quantity = "test (requests x prompt tokens)";
  BarSeries bound{"bound at the nominal rates (no overlap)", {}, {}};
  BarSeries predicted{"predicted (scheduler steps on the fabric profiles)", {}, {}};
  // Its own colour, after the TTFT panel's measured series (style 2).
  BarSeries achieved{"bound at the profiles' achieved rates", {}, {}, 3};
  bool any_prediction = false;
  for (const auto& s : report.scenarios) {
    extra.categories.push_back(s.scenario.name);
    bound.values.emplace_back(s.nominal_bound.value());
    bound.hovers.push_back(fmt::format("{}: bound {} ({} prompt tokens)", s.scenario.name,
                                       format_signed_seconds(s.nominal_bound.value()),
                                       s.total_tokens));
    if (s.predicted_extra) {
      any_prediction = true;
      predicted.values.emplace_back(s.predicted_extra->value());
      predicted.hovers.push_back(fmt::format("{}: predicted {}", s.scenario.name,
                                             format_signed_seconds(s.predicted_extra->value())));
    } else {
      predicted.values.emplace_back();
      predicted.hovers.emplace_back();
    }
    if (s.achieved_bound && s.predicted_gap) {
      achieved.values.emplace_back(s.achieved_bound->value());
      achieved.hovers.push_back(fmt::format("{}: bound {} at {:.1f} / {:.1f} Gb/s achieved",
                                            s.scenario.name,
                                            format_signed_seconds(s.achieved_bound->value()),
                                            s.predicted_gap->from_rate.bits_per_second() / 1e9,
                                            s.predicted_gap->to_rate.bits_per_second() / 1e9));
    } else {
      achieved.values.emplace_back();
      achieved.hovers.emplace_back();
    }
  }
  extra.bars.push_back(std::move(bound));
  if (any_prediction) {
    extra.bars.push_back(std::move(predicted));
    extra.bars.push_back(std::move(achieved));
  }
  extra.caption = fmt::format(
      "The nominal bound prices every prompt byte again at {}'s nominal rate with nothing hidden "
      "under compute; the prediction runs vLLM's scheduler step by step with each link's fabric "
      "profile; the achieved-rate bound prices every byte it sends at the largest per-byte gap of "
      "the two profiles and never falls below it. Extra per 1,000 prompt tokens: {}.",
      to.name, format_seconds(report.extra_per_1k_tokens.value()));
  f.panels.push_back(std::move(extra));

  const bool baseline = std::any_of(report.scenarios.begin(), report.scenarios.end(),
                                    [](const auto& s) { return s.scenario.baseline_ttft; });
  if (baseline) {
    Panel ttft;
    ttft.kind = Panel::Kind::bars;
    ttft.title = fmt::format("TTFT at {} (measured) and at {}", from.name, to.name);
    ttft.y = Axis{"TTFT", "s", {}, {}};
    ttft.x.quantity = "test";
    // The bound and the prediction keep their colours from the panel above.
    BarSeries measured{fmt::format("measured at {}", from.name), {}, {}, 2};
    BarSeries at_bound{fmt::format("nominal bound at {}", to.name), {}, {}, 0};
    BarSeries at_predicted{fmt::format("predicted at {}", to.name), {}, {}, 1};
    bool any_predicted_ttft = false;
    for (const auto& s : report.scenarios) {
      ttft.categories.push_back(s.scenario.name);
      const auto opt = [](const std::optional<Seconds>& v) -> std::optional<double> {
        if (!v) return std::nullopt;
        return v->value();
      };
      measured.values.push_back(opt(s.scenario.baseline_ttft));
      at_bound.values.push_back(opt(s.ttft_bound_at_to));
      at_predicted.values.push_back(opt(s.predicted_ttft_at_to));
      any_predicted_ttft = any_predicted_ttft || s.predicted_ttft_at_to.has_value();
    }
    ttft.bars = {std::move(measured), std::move(at_bound)};
    if (any_predicted_ttft) ttft.bars.push_back(std::move(at_predicted));
    ttft.caption =
        "Each test's TTFT from the baseline file, and that TTFT plus the extra time above.";
    f.panels.push_back(std::move(ttft));
  }
  return f;
}

Figure compare_figure(const CompareReport& report) {
  const CompareRequest& request = report.request;
  Figure f;
  f.title = fmt::format("{}: layouts compared", request.model.name);
  f.subtitle = fmt::format("{} layouts, {} link pairs, {} prompts; ratios against {}",
                           report.layouts.size(), request.from.size() * request.to.size(),
                           request.prompts.size(), report.reference.name());
  Panel bytes;
  bytes.kind = Panel::Kind::bars;
  bytes.title = "All-reduce bytes per prompt token per node";
  bytes.y = Axis{"bytes per token per node", "B", {}, {}};
  bytes.legend = false;
  bytes.x.quantity = "layout";
  BarSeries per_token{"bytes per prompt token per node", {}, {}};
  for (const auto& l : report.layouts) {
    bytes.categories.push_back(l.layout.name());
    per_token.values.emplace_back(l.per_token_bytes.count());
    per_token.hovers.push_back(fmt::format(
        "{}: {} per prompt token per node ({:.2f}x {})", l.layout.name(),
        format_quantity(l.per_token_bytes.count(), "B"), l.bytes_ratio, report.reference.name()));
  }
  bytes.bars.push_back(std::move(per_token));
  bytes.caption =
      "What each node sends per prompt token in prefill: more nodes share the compute, but each "
      "all-reduce still moves about the whole hidden state.";
  f.panels.push_back(std::move(bytes));

  const WorstByLayout worst = worst_by_layout(report);
  const bool projected = worst.projected;
  std::vector<std::string> pairs;
  for (const auto& a : request.from) {
    for (const auto& b : request.to) {
      pairs.push_back(fmt::format("{} -> {}", a.link.name, b.link.name));
    }
  }
  Panel cost;
  cost.kind = Panel::Kind::bars;
  cost.x.quantity = "layout";
  if (projected) {
    cost.title = "Projected TTFT increase on the slower link, worst prompt";
    cost.y = Axis{"TTFT increase", "%", {}, {}};
    cost.caption =
        "From the measured TTFT, each layout's compute share scaled by its nodes and its "
        "network time at the two rates; the worst of the prompts.";
  } else {
    cost.title = "Extra TTFT bound per 1,000 prompt tokens on the slower link";
    cost.y = Axis{"extra TTFT per 1,000 prompt tokens", "s", {}, {}};
    cost.caption =
        "Without a measured TTFT the increase cannot be projected: this is the bound on the "
        "extra network time alone (give --baseline-ttft for the increase).";
  }
  for (const auto& l : report.layouts) cost.categories.push_back(l.layout.name());
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    BarSeries s{pairs[p], {}, {}};
    for (const auto& value : worst.by_pair[p]) {
      if (!value) {
        s.values.emplace_back();
      } else {
        s.values.emplace_back(projected ? *value * 100.0 : *value);  // the axis is in %
      }
    }
    cost.bars.push_back(std::move(s));
  }
  f.panels.push_back(std::move(cost));
  return f;
}

Figure capacity_figure(const CapacityReport& report) {
  const bool rate = report.axis == LoadAxis::request_rate;
  const Axis load = rate ? Axis{"request rate", "req/s", {}, {}} : Axis{"concurrency", "", {}, {}};
  Figure f;
  f.title = "Capacity under the SLOs";
  f.subtitle = fmt::format("SLOs: TTFT <= {}, decode >= {} tokens/s per request",
                           format_seconds(report.slo.ttft.value()),
                           format_quantity(report.slo.tps.tokens_per_second(), "", 3));
  Panel tps;
  tps.kind = Panel::Kind::line;
  tps.title = "Decode speed per request";
  tps.x = load;
  tps.y = Axis{"decode rate per request", "tok/s", {}, {}};
  Panel ttft;
  ttft.kind = Panel::Kind::line;
  ttft.title = "Time to first token";
  ttft.x = load;
  ttft.y = Axis{"mean TTFT", "s", {}, {}};
  for (const auto& c : report.configs) {
    LineSeries t{c.config, {}, false, true};
    LineSeries l{c.config, {}, false, true};
    for (const auto& v : c.points) {
      if (rate && v.unlimited()) continue;  // sent all at once: no level to draw at
      const double x = load_level(v.point, report.axis);
      const std::string at = fmt::format("{} at {} {}", c.config, rate ? "rate" : "C",
                                         format_quantity(x, rate ? "req/s" : "", 4));
      t.points.push_back(Point{x, v.point.tps.tokens_per_second(),
                               fmt::format("{}: {} tokens/s{}", at,
                                           format_quantity(v.point.tps.tokens_per_second(), "", 3),
                                           v.meets() ? "" : " (misses an SLO)")});
      l.points.push_back(
          Point{x, v.point.ttft.value(),
                fmt::format("{}: TTFT {}{}", at, format_seconds(v.point.ttft.value()),
                            v.meets() ? "" : " (misses an SLO)")});
    }
    const auto by_x = [](const Point& a, const Point& b) { return a.x < b.x; };
    std::sort(t.points.begin(), t.points.end(), by_x);
    std::sort(l.points.begin(), l.points.end(), by_x);
    if (c.c_max > 0.0) {
      for (std::size_t i = 0; i < t.points.size(); ++i) {
        if (t.points[i].x != c.c_max) continue;
        const std::string label =
            fmt::format("{} C_max {}", c.config, format_quantity(c.c_max, rate ? "req/s" : ""));
        tps.annotations.push_back({Annotation::Kind::point, c.c_max, t.points[i].y, label});
        ttft.annotations.push_back({Annotation::Kind::point, c.c_max, l.points[i].y, label});
      }
    }
    tps.lines.push_back(std::move(t));
    ttft.lines.push_back(std::move(l));
  }
  tps.annotations.push_back(
      {Annotation::Kind::y_line, report.slo.tps.tokens_per_second(), 0.0,
       fmt::format("SLO {} tokens/s", format_quantity(report.slo.tps.tokens_per_second(), "", 3))});
  ttft.annotations.push_back({Annotation::Kind::y_line, report.slo.ttft.value(), 0.0,
                              fmt::format("SLO {}", format_seconds(report.slo.ttft.value()))});
  tps.caption =
      "Above the SLO line is good; C_max (ringed) is the highest measured load level where both "
      "SLOs hold.";
  ttft.caption = "Below the SLO line is good.";
  f.panels.push_back(std::move(tps));
  f.panels.push_back(std::move(ttft));
  return f;
}

Figure expected_figure(const ExpectReport& report, const std::string& model) {
  Figure f;
  f.title = fmt::format("{}: expected decode tokens/s by layout", model);
  f.subtitle = "typical rates of public runs on the node; hover for the range";
  Panel p;
  p.kind = Panel::Kind::bars;
  p.title = "All requests together";
  p.y = Axis{"decode tokens/s", "tok/s", {}, {}};
  p.x.quantity = "layout";
  std::vector<BarSeries> series;
  for (const auto& l : report.layouts) {
    if (l.decode.empty()) continue;
    const std::string name =
        l.replicas > 1 ? fmt::format("{} x {}", l.replicas, l.layout.name()) : l.layout.name();
    p.categories.push_back(name);
    if (series.empty()) {
      for (const auto& c : l.decode) {
        series.push_back(
            BarSeries{fmt::format("{} request{}", c.requests, c.requests > 1 ? "s" : ""), {}, {}});
      }
    }
    for (std::size_t k = 0; k < l.decode.size() && k < series.size(); ++k) {
      const ExpectConcurrency& c = l.decode[k];
      series[k].values.emplace_back(c.aggregate.typical);
      series[k].hovers.push_back(fmt::format("{}: {} requests {:.0f} tok/s ({:.0f}-{:.0f})", name,
                                             c.requests, c.aggregate.typical, c.aggregate.slow,
                                             c.aggregate.fast));
    }
  }
  p.bars = std::move(series);
  p.caption =
      "Each layout's decode tokens/s of all requests at each concurrency (the weights read "
      "once a step for the batch, each request's KV cache, the experts a batch touches).";
  f.panels.push_back(std::move(p));
  return f;
}

Figure memory_figure(const std::vector<MemoryReport>& by_tp, const std::string& model) {
  Figure f;
  f.title = fmt::format("{}: memory per node by TP size", model);
  if (!by_tp.empty()) {
    f.subtitle = fmt::format("{}; vLLM's budget {} ({} x {:.2f} utilization)", by_tp.front().node,
                             format_quantity(by_tp.front().budget.count(), "B"),
                             format_quantity(by_tp.front().node_memory.count(), "B"),
                             by_tp.front().gpu_memory_utilization);
  }
  Panel p;
  p.kind = Panel::Kind::bars;
  p.stacked = true;
  p.title = "What each node holds";
  p.y = Axis{"memory per node", "B", {}, {}};
  p.x.quantity = "tensor-parallel size";
  // The Engram tables and the autotune spike get a bar part only where some TP has them.
  const bool engram = std::any_of(by_tp.begin(), by_tp.end(), [](const MemoryReport& r) {
    return r.engram.counted.count() > 0.0;
  });
  const bool spike = std::any_of(by_tp.begin(), by_tp.end(), [](const MemoryReport& r) {
    return r.autotune_spike_bytes.count() > 0.0;
  });
  std::vector<std::string> names{"weights"};
  if (engram) names.emplace_back("Engram tables");
  for (const char* n : {"NCCL buffers", "CUDA graphs", "activation peak"}) names.emplace_back(n);
  if (spike) names.emplace_back("autotune spike");
  names.emplace_back("KV cache left");
  std::vector<BarSeries> parts;
  parts.reserve(names.size());
  for (const auto& n : names) parts.push_back(BarSeries{n, {}, {}});
  for (const auto& r : by_tp) {
    const std::string tp = fmt::format("TP{}", r.tp);
    p.categories.push_back(r.fits ? tp : tp + " (does not fit)");
    std::vector<double> values{r.weights_bytes.count()};
    if (engram) values.push_back(r.engram.counted.count());
    for (double v :
         {r.nccl_bytes.count(), r.cuda_graph_bytes.count(), r.activation_peak_bytes.count()}) {
      values.push_back(v);
    }
    if (spike) values.push_back(r.autotune_spike_bytes.count());
    values.push_back(r.kv_cache_bytes.count());
    for (std::size_t k = 0; k < names.size(); ++k) {
      parts[k].values.emplace_back(values[k]);
      parts[k].hovers.push_back(
          fmt::format("{}: {} {}", tp, names[k], format_quantity(values[k], "B")));
    }
  }
  p.bars = std::move(parts);
  if (!by_tp.empty()) {
    p.annotations.push_back(
        {Annotation::Kind::y_line, by_tp.front().budget.count(), 0.0,
         fmt::format("vLLM's budget {}", format_quantity(by_tp.front().budget.count(), "B"))});
  }
  p.caption =
      "Weights split over the TP ranks (replicated parts held whole); what the budget leaves after "
      "the fixed parts is the KV cache. A bar above the line does not fit.";
  f.panels.push_back(std::move(p));
  return f;
}

namespace {

/// The first `shown` requests' spans, as the run kept them (contiguous
/// steps of one kind merged).
std::vector<std::vector<chart::Segment>> request_segments(const PredictLink& run,
                                                          std::size_t shown) {
  std::vector<std::vector<chart::Segment>> out(shown);
  for (std::size_t i = 0; i < std::min(shown, run.spans.size()); ++i) {
    for (const RequestSpan& span : run.spans[i]) {
      out[i].push_back(chart::Segment{span.start_s, span.end_s, span.prefill ? 1 : 2, ""});
    }
  }
  return out;
}

}  // namespace

Figure predict_figure(const PredictReport& report, std::size_t max_rows) {
  Figure f;
  f.title = "Predicted steps per request";
  f.subtitle =
      "vLLM's scheduler step by step: when each request waits, runs prefill steps and decode "
      "steps, and gets its first token; each link's rows one above the other";
  double latest = 0.0;
  for (const auto& s : report.scenarios) {
    for (const auto& l : s.links) latest = std::max(latest, l.finished.value());
  }
  for (const auto& s : report.scenarios) {
    Panel p;
    p.kind = Panel::Kind::timeline;
    std::vector<std::string> at;
    for (const auto& run : s.links) {
      at.push_back(
          fmt::format("{} at {}", format_seconds(run.last_first_token.value()), run.link.name));
    }
    p.title = fmt::format("{}: last first token {}", s.name, fmt::join(at, ", "));
    p.x = Axis{"time since the first request arrived", "s", 0.0, latest};
    p.segment_kinds = {"waiting", "prefill steps", "decode steps"};
    p.mark_name = "first token";
    p.legend = f.panels.empty();  // one legend for the figure
    std::size_t left_out = 0;
    for (const auto& run : s.links) {
      const std::size_t shown = std::min(max_rows, run.schedule.requests.size());
      left_out += run.schedule.requests.size() - shown;
      const auto spans = request_segments(run, shown);
      for (std::size_t i = 0; i < shown; ++i) {
        const RequestTimeline& t = run.schedule.requests[i];
        const std::string who = fmt::format("request {} at {}", i + 1, run.link.name);
        chart::TimelineRow row;
        row.label = s.links.size() > 1 || shown > 1 ? who : run.link.name;
        if (t.admitted_s > t.arrival_s) {
          row.segments.push_back(
              {t.arrival_s, t.admitted_s, 0,
               fmt::format("{} waits {}", who, format_seconds(t.admitted_s - t.arrival_s))});
        }
        if (i >= run.spans.size()) {
          row.segments.push_back({t.admitted_s, t.first_token_s, 1, ""});
          if (t.finished_s > t.first_token_s) {
            row.segments.push_back({t.first_token_s, t.finished_s, 2, ""});
          }
        } else {
          for (const auto& seg : spans[i]) row.segments.push_back(seg);
        }
        for (auto& seg : row.segments) {
          if (seg.hover.empty()) {
            seg.hover = fmt::format("{}: {} from {} to {}", who,
                                    p.segment_kinds[static_cast<std::size_t>(seg.kind)],
                                    format_seconds(seg.start), format_seconds(seg.end));
          }
        }
        row.marks.push_back({t.first_token_s, fmt::format("{}: first token at {} (TTFT {})", who,
                                                          format_seconds(t.first_token_s),
                                                          format_seconds(t.ttft_s()))});
        p.rows.push_back(std::move(row));
      }
    }
    if (left_out > 0) {
      p.caption = fmt::format("The first {} requests at each link shown; {} rows left out.",
                              max_rows, left_out);
    }
    f.panels.push_back(std::move(p));
  }
  return f;
}

Figure traffic_figure(const TrafficWindows& t, const std::string& title) {
  Figure f;
  f.title = "RDMA traffic";
  f.subtitle = title.empty() ? "samples" : title;
  std::vector<const WindowRates*> panels;
  if (!t.windows.empty()) {
    auto [finest, coarsest] = std::minmax_element(
        t.windows.begin(), t.windows.end(),
        [](const WindowRates& a, const WindowRates& b) { return a.window < b.window; });
    panels.push_back(&*finest);
    if (coarsest != finest) panels.push_back(&*coarsest);
  }
  double peak = 0.0;
  for (const auto* w : panels) {
    peak = std::max({peak, w->xmit.peak.bits_per_second(), w->rcv.peak.bits_per_second()});
  }
  // About two points per pixel: each keeps the highest window it covers, so
  // the peaks this chart is about survive.
  constexpr std::size_t kMostPoints = 1400;
  for (const auto* w : panels) {
    Panel p;
    p.kind = Panel::Kind::line;
    const std::string window = format_quantity(w->window.value(), "s");
    p.title = fmt::format("{} windows: peak {} transmit, {} receive; mean {} / {}", window,
                          format_quantity(w->xmit.peak.bits_per_second(), "b/s"),
                          format_quantity(w->rcv.peak.bits_per_second(), "b/s"),
                          format_quantity(w->xmit.mean.bits_per_second(), "b/s"),
                          format_quantity(w->rcv.mean.bits_per_second(), "b/s"));
    p.x = Axis{"time since the first read", "s", 0.0, t.span().value()};
    p.y = Axis{"rate", "b/s", 0.0, peak > 0.0 ? std::optional<double>(peak) : std::nullopt};
    for (int direction = 0; direction < 2; ++direction) {
      const auto& series = direction == 0 ? w->xmit_series : w->rcv_series;
      LineSeries s{direction == 0 ? "transmit" : "receive", {}, true, false};
      const std::size_t bucket =
          std::max<std::size_t>(1, (series.size() + kMostPoints - 1) / kMostPoints);
      for (std::size_t i = 0; i < series.size(); i += bucket) {
        double most = 0.0;
        for (std::size_t k = i; k < std::min(series.size(), i + bucket); ++k) {
          most = std::max(most, series[k].bits_per_second());
        }
        s.points.push_back(Point{w->window.value() * static_cast<double>(i), most, ""});
      }
      if (!series.empty()) {
        s.points.push_back(Point{
            std::min(t.span().value(), w->window.value() * static_cast<double>(series.size())),
            s.points.back().y, ""});
      }
      p.lines.push_back(std::move(s));
    }
    if (w->window.value() > 0 && w->xmit_series.size() > kMostPoints) {
      p.caption = "Each point is the highest window it covers.";
    }
    f.panels.push_back(std::move(p));
  }
  return f;
}

}  // namespace tpnet::cli
