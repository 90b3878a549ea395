#pragma once
// What the sweep readers (CSV, vllm bench JSON) hand on: sweeps of positive
// measurements, and the capacity analysis of them with finite results.

#include <optional>
#include <vector>

#include "fuzz_check.hpp"
#include "tpnet/io/sweep_io.hpp"
#include "tpnet/usecase/capacity.hpp"

namespace tpnet::fuzz {

inline void check_point(const SweepPoint& p, LoadAxis axis) {
  if (axis == LoadAxis::concurrency) {
    within(p.concurrency, 1.0, 1e6, "concurrency");
    if (p.request_rate) violated("a concurrency point with a request rate");
  } else {
    within(p.concurrency, 0.0, 1e6, "max_concurrency cap");
    if (p.request_rate) within(*p.request_rate, 1e-300, 1e6, "request rate");
  }
  if (p.achieved_rate) within(*p.achieved_rate, 1e-300, 1e6, "achieved rate");
  if (p.duration) positive(*p.duration, "duration");
  if (p.p99_latency) positive(*p.p99_latency, "p99 latency");
  if (p.output_throughput) positive(p.output_throughput->tokens_per_second(), "output throughput");
  within(p.burstiness, 1e-300, 1e6, "burstiness");
  positive(p.ttft, "ttft");
  positive(p.tps.tokens_per_second(), "tps");
  if (p.itl) positive(*p.itl, "itl");
  if (p.latency) positive(*p.latency, "latency");
  if (p.source.file.empty()) violated("a point without its file");
}

inline void check_sweeps(const SweepSet& set) {
  for (const auto& s : set.sweeps) {
    if (s.config.empty()) violated("a sweep without a config name");
    within(s.tp, 1.0, 1e6, "tp");
    for (const auto& p : s.points) check_point(p, s.axis);
  }
}

inline void check_rows(const std::vector<SensitivityRow>& rows) {
  for (const auto& row : rows) {
    positive(row.think, "sensitivity think");
    positive(row.slo.ttft, "sensitivity ttft");
    positive(row.slo.tps.tokens_per_second(), "sensitivity tps");
    for (const auto& c : row.cells) {
      non_negative(c.c_max, "sensitivity c_max");
      if (c.users) non_negative(*c.users, "sensitivity users");
    }
  }
}

/// The capacity analysis at the default SLOs; InputErrors are fine.
inline void analyze_sweeps(const SweepSet& set) {
  contract(Origin::any, [&] {
    const CapacityReport r = analyze_capacity(set.sweeps, SloSpec{});
    for (const auto& c : r.configs) {
      non_negative(c.c_max, "c_max");
      non_negative(c.c_max_tight, "c_max_tight");
      non_negative(c.c_max_loose, "c_max_loose");
      non_negative(c.fails_at, "fails_at");
      if (c.latency_at_c_max) positive(*c.latency_at_c_max, "latency_at_c_max");
      if (c.users) non_negative(*c.users, "users");
      non_negative(c.peak_throughput.tokens_per_second(), "peak_throughput");
      for (const auto& v : c.points) {
        check_point(v.point, c.axis);
        if (v.expected_rate) within(*v.expected_rate, 1e-300, 1e6, "sustained rate");
        if (v.tps_from_itl) positive(v.tps_from_itl->tokens_per_second(), "tps_from_itl");
      }
    }
    check_rows(r.think_sensitivity);
    check_rows(r.ttft_sensitivity);
    check_rows(r.tps_sensitivity);
    for (const auto& o : r.fleet.options) {
      non_negative(o.replicas, "replicas");
      non_negative(o.idle_nodes, "idle_nodes");
      non_negative(o.concurrent, "concurrent");
      if (o.users) non_negative(*o.users, "fleet users");
      if (o.users_after_one_loss) non_negative(*o.users_after_one_loss, "users_after_one_loss");
      non_negative(o.peak_throughput.tokens_per_second(), "fleet peak_throughput");
      non_negative(o.slo_throughput.tokens_per_second(), "fleet slo_throughput");
    }
    for (const auto& s : r.scaling) {
      positive(s.from_tps.tokens_per_second(), "scaling from_tps");
      positive(s.to_tps.tokens_per_second(), "scaling to_tps");
      positive(s.speedup, "speedup");
      positive(s.ideal, "ideal");
      positive(s.efficiency, "efficiency");
    }
  });
}

}  // namespace tpnet::fuzz
