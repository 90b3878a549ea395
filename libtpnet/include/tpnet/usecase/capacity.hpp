#pragma once
/// Capacity under SLOs from measured load sweeps: the largest load level
/// (a concurrency, or a sustained request rate) that meets a TTFT and a
/// decode-rate target (C_max), users by Little's law, sensitivity to think
/// time and thresholds, fleet topologies and TP scaling efficiency
/// (docs/background.md s.7, docs/formulas.md s.13).

#include <array>
#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet {

/// What a sweep varies: requests in flight (vLLM's --max-concurrency, a
/// closed loop) or requests sent per second (--request-rate, an open loop).
enum class LoadAxis { concurrency, request_rate };
/// "concurrency", "request_rate"
[[nodiscard]] std::string_view to_string(LoadAxis axis);

/// Which statistic over a run's requests the SLOs judge: vLLM's results
/// carry the mean, median and p99 of TTFT and TPOT (p90 too with
/// --metric-percentiles 90,99); SLOs are usually percentiles.
enum class SloStatistic { mean, median, p90, p99 };
/// "mean", "median", "p90", "p99"
[[nodiscard]] std::string_view to_string(SloStatistic statistic);
/// The percentiles a point may carry besides its means, in this order.
inline constexpr std::array<SloStatistic, 3> kSloPercentiles{SloStatistic::median,
                                                             SloStatistic::p90, SloStatistic::p99};

/// One measured load level of one configuration (means over requests).
struct SweepPoint {
  /// Concurrency axis: requests in flight. Rate axis: the run's
  /// --max-concurrency cap on top of its rate, 0 when it had none.
  int concurrency = 0;
  /// Rate axis: requests sent per second. nullopt on a rate sweep for a run
  /// that sent every request at once (vLLM's request_rate "inf").
  std::optional<double> request_rate;
  std::optional<double> achieved_rate;  ///< completed requests per second (request_throughput)
  std::optional<long long> completed;   ///< requests completed in the run
  std::optional<Seconds> duration;      ///< the run's length
  double burstiness = 1.0;              ///< vLLM's gamma shape of inter-arrival times; 1 = Poisson
  std::optional<Seconds> p99_latency;   ///< 99th-percentile end-to-end latency, when reported
  std::optional<TokenRate> output_throughput;  ///< output tokens per second over the run
  Seconds ttft;                                ///< mean time to first token
  TokenRate tps;                               ///< mean per-request decode rate
  /// TTFT in seconds at the median, p90 and p99 (kSloPercentiles' order);
  /// 0 where not reported. Plain numbers: a sweep may hold 100,000 points.
  std::array<double, 3> ttft_percentiles_s{};
  /// The decode rate in tokens/s at the same percentiles of the time per
  /// output token (1 / p99 TPOT: what 99% of requests reach at least); 0
  /// where not reported.
  std::array<double, 3> tps_percentiles{};
  std::optional<Seconds> itl;      ///< mean inter-token latency, when reported
  std::optional<Seconds> latency;  ///< mean end-to-end latency per request, when reported
  /// Compare TPS with 1 / ITL to catch a wrong column (a CSV). False for a
  /// vLLM result's TPOT: its mean ITL averages over streamed chunks (several
  /// tokens each on chat endpoints) and stalls, so the two differ by design.
  bool check_tps_against_itl = true;
  InputLocation source;  ///< file and line it was read from, for messages
};

/// The sweep of one serving configuration (one TP size, one set of flags).
struct Sweep {
  std::string config;  ///< "TP4", "TP8-300K"
  int tp = 0;          ///< tensor-parallel size: nodes per instance
  LoadAxis axis = LoadAxis::concurrency;
  std::vector<SweepPoint> points;  ///< any order; one per load level
  std::vector<std::string> notes;  ///< how values were derived (vLLM JSON), kept in the report
};

/// Both SLOs hold at a point when TTFT <= ttft and TPS >= tps.
struct SloSpec {
  Seconds ttft = Seconds::milliseconds(1000.0);
  TokenRate tps{15.0};
  SloStatistic statistic = SloStatistic::mean;  ///< `slo.statistic`
};

/// A point's TTFT and decode rate at `statistic`. Throws InputError at the
/// point's file and line, naming `slo.statistic`, when it lacks them.
[[nodiscard]] Seconds ttft_at(const SweepPoint& point, SloStatistic statistic);
[[nodiscard]] TokenRate tps_at(const SweepPoint& point, SloStatistic statistic);

struct CapacityOptions {
  Seconds think{45.0};  ///< think time between a user's requests (Little's law)
  double edge = 0.02;   ///< a point within this fraction of a threshold is on its edge
  int fleet_nodes = 0;  ///< nodes to split into topologies; 0 = the largest measured TP
  std::vector<Seconds> think_values{Seconds(15.0), Seconds(30.0), Seconds(45.0),
                                    Seconds(60.0), Seconds(90.0), Seconds(120.0)};
  std::vector<Seconds> ttft_values{Seconds(0.5), Seconds(0.75), Seconds(1.0), Seconds(1.5),
                                   Seconds(2.0)};
  std::vector<TokenRate> tps_values{TokenRate(10.0), TokenRate(12.0), TokenRate(15.0),
                                    TokenRate(18.0), TokenRate(20.0)};
};

/// Which SLO fails at the first measured level above C_max.
/// `unsustained`: the SLOs hold but the run fell behind its request rate.
enum class Binding { none_measured, ttft, tps, both, unsustained };
/// "none measured", "ttft", "tps", "ttft+tps", "rate not sustained"
[[nodiscard]] std::string_view to_string(Binding binding);

/// One measured point judged against the SLOs.
struct PointVerdict {
  SweepPoint point;
  Seconds ttft;   ///< the TTFT the SLO judged: at slo.statistic
  TokenRate tps;  ///< the decode rate the SLO judged: at slo.statistic
  bool meets_ttft = false;
  bool meets_tps = false;
  /// Rate axis: the run completed requests about as fast as they were sent
  /// (docs/formulas.md s.13); true where it cannot be judged, and on the
  /// concurrency axis.
  bool sustained = true;
  bool sustained_judged = false;        ///< achieved rate, duration and count were reported
  std::optional<double> expected_rate;  ///< requests/s a sustained run of this length completes
  Seconds tail;                         ///< the tail it allowed: p99 latency, else 2 x mean
  /// That tail is longer than the run spent sending (completed / rate): the
  /// run shows no steady state, so it is not sustained whatever it completed.
  bool tail_outlasts_sending = false;
  bool ttft_on_edge = false;              ///< |TTFT - slo| <= edge x slo
  bool tps_on_edge = false;               ///< |TPS - slo| <= edge x slo
  std::optional<TokenRate> tps_from_itl;  ///< 1 / ITL, when ITL is reported

  [[nodiscard]] bool meets() const { return meets_ttft && meets_tps && sustained; }
  /// A rate-axis run that sent every request at once: judged, never C_max.
  [[nodiscard]] bool unlimited() const { return !point.request_rate.has_value(); }
};

/// The load level of a point on an axis: its concurrency or its request rate
/// (requests/s); 0 for a point of the other axis or an unlimited run.
[[nodiscard]] double load_level(const SweepPoint& point, LoadAxis axis);

/// C_max: the largest measured load level at which TTFT <= slo.ttft and
/// TPS >= slo.tps (equal passes) and, on the rate axis, the rate was
/// sustained; 0 when none does (docs/formulas.md s.13).
[[nodiscard]] double max_load(const Sweep& sweep, const SloSpec& slo);

/// Little's law: users = C_max x (1 + think / latency), latency the mean
/// end-to-end latency at C_max. Zero users for C_max = 0; nullopt when
/// C_max > 0 and the latency was not reported (docs/formulas.md s.13).
[[nodiscard]] std::optional<double> users_by_littles_law(double c_max,
                                                         std::optional<Seconds> latency,
                                                         Seconds think);

/// Little's law on the rate axis: users = rate x (latency + think), each
/// user sending one request per latency + think. Zero users at rate 0;
/// nullopt when the rate is positive and the latency unknown.
[[nodiscard]] std::optional<double> users_at_rate(double requests_per_second,
                                                  std::optional<Seconds> latency, Seconds think);

/// Requests per second a run of `completed` requests at `rate` completes
/// when the server keeps up: completed / (completed / rate + tail), the
/// run ending a tail after the last request is sent. The tail is the p99
/// end-to-end latency where reported, else twice the mean: the last
/// requests finish up to a high-percentile latency late (docs/formulas.md s.13).
[[nodiscard]] double sustained_rate(double rate, long long completed, Seconds tail);

/// Whether a run's tail (its slowest requests' latency) outlasts the time it
/// spent sending: completed / rate. A queue that grows through a run grows
/// its latencies with it, and with them the tail that sustained_rate allows,
/// so such a run cannot show that the server kept up (docs/formulas.md s.13).
[[nodiscard]] bool tail_outlasts_sending(double rate, long long completed, Seconds tail);

/// The fraction of sustained_rate a run may fall short by and still count as
/// sustained: 10%, or three standard deviations of the sending time of
/// `completed` gamma-distributed gaps of shape `burstiness`, whichever is more.
[[nodiscard]] double sustained_margin(long long completed, double burstiness);

struct ConfigCapacity {
  std::string config;
  int tp = 0;
  LoadAxis axis = LoadAxis::concurrency;
  std::vector<PointVerdict> points;  ///< by load level; unlimited runs last
  double lowest_level = 0.0;   ///< the lowest measured level (unlimited runs left out); 0 if none
  double highest_level = 0.0;  ///< the highest; 0 if none
  double c_max = 0.0;          ///< a concurrency, or requests/s on the rate axis
  Binding binding = Binding::none_measured;
  /// The first measured level above C_max; 0 when none. A rate sweep's
  /// unlimited run is never it.
  double fails_at = 0.0;
  bool fails_unsustained = false;  ///< the rate at fails_at was not sustained
  std::optional<Seconds> latency_at_c_max;
  std::optional<double> users;  ///< nullopt: C_max > 0 but no latency reported there
  /// A point deciding C_max (at C_max or at fails_at) lies within the edge of a threshold.
  bool on_edge = false;
  double c_max_tight = 0.0;  ///< C_max with both thresholds tightened by the edge margin
  double c_max_loose = 0.0;  ///< ... and loosened by it; differs from tight when capacity swings
  /// Max over measured levels of TPS x C (concurrency axis) or of the run's
  /// output tokens per second (rate axis).
  TokenRate peak_throughput;
  double peak_level = 0.0;   ///< the level where that peak was measured
  std::vector<double> gaps;  ///< levels other configs (or powers of two) have, not measured here
  std::vector<std::string> notes;     ///< how C_max was decided, and what it depends on
  std::vector<std::string> warnings;  ///< doubtful data: non-monotone values, TPS vs 1/ITL
};

/// Analyses one configuration; throws InputError for a sweep with no points
/// or two points at one concurrency.
[[nodiscard]] ConfigCapacity analyze_config(const Sweep& sweep, const SloSpec& slo,
                                            const CapacityOptions& options = {});

/// One row of a sensitivity table: the parameters it used and, per config in
/// report order, C_max and users.
struct SensitivityCell {
  std::string config;
  double c_max = 0.0;
  std::optional<double> users;
  bool on_edge = false;
};
struct SensitivityRow {
  Seconds think;
  SloSpec slo;
  bool chosen = false;  ///< the row of the analysed think time / threshold
  std::vector<SensitivityCell> cells;
};

/// One way of splitting the fleet's nodes: replicas of one configuration.
struct FleetOption {
  std::string config;
  int tp = 0;
  int replicas = 0;                            ///< nodes / tp, rounded down
  int idle_nodes = 0;                          ///< nodes - replicas x tp
  double concurrent = 0.0;                     ///< replicas x C_max (requests/s on the rate axis)
  std::optional<double> users;                 ///< replicas x users of one instance
  std::optional<double> users_after_one_loss;  ///< (replicas - 1) x users of one instance
  TokenRate peak_throughput;                   ///< replicas x max over C of TPS x C
  /// replicas x C_max x TPS at C_max; on the rate axis replicas x the output
  /// tokens per second measured at C_max
  TokenRate slo_throughput;
  bool highly_available = false;  ///< survives losing one replica
};

struct FleetReport {
  int nodes = 0;
  std::vector<FleetOption> options;           ///< configs with tp <= nodes, in report order
  std::optional<std::size_t> most_users;      ///< index into options
  std::optional<std::size_t> best_available;  ///< most users among highly available options
  std::vector<std::string> notes;
};

/// Measured speed-up between two TP sizes at one load level.
struct ScalingRow {
  std::string from_config;
  std::string to_config;
  int from_tp = 0;
  int to_tp = 0;
  double level = 0.0;  ///< the concurrency, or requests/s, both measured
  TokenRate from_tps;
  TokenRate to_tps;
  double speedup = 0.0;     ///< to_tps / from_tps
  double ideal = 0.0;       ///< to_tp / from_tp
  double efficiency = 0.0;  ///< speedup / ideal
};

struct CapacityReport {
  LoadAxis axis = LoadAxis::concurrency;  ///< every sweep's
  SloSpec slo;
  CapacityOptions options;  ///< as used: fleet_nodes resolved, chosen values in the lists
  std::vector<ConfigCapacity> configs;
  std::vector<SensitivityRow> think_sensitivity;
  std::vector<SensitivityRow> ttft_sensitivity;
  std::vector<SensitivityRow> tps_sensitivity;
  FleetReport fleet;
  std::vector<ScalingRow> scaling;
  std::vector<std::string> notes;     ///< findings: TTFT at C=1 rising with TP, no config meets
  std::vector<std::string> warnings;  ///< doubtful data: non-monotone sweeps, TPS vs 1/ITL
};

/// Throws InputError (naming the flag) for no sweeps, non-positive SLOs or
/// think times, an edge outside 0-50%, a config named twice with two TP
/// sizes, sweeps of two load axes, or a sweep with no points or two points
/// at one level.
[[nodiscard]] CapacityReport analyze_capacity(const std::vector<Sweep>& sweeps, const SloSpec& slo,
                                              const CapacityOptions& options = {});

/// Everything `tpnet capacity` answers depends on.
struct CapacityRequest {
  std::vector<Sweep> sweeps;  ///< `sweeps`
  /// What the sweep readers found doubtful; kept first in the report's warnings.
  std::vector<std::string> sweep_warnings;
  SloSpec slo;
  CapacityOptions options;
};

/// analyze_capacity, with the readers' warnings before the analysis's own.
[[nodiscard]] CapacityReport run_capacity(const CapacityRequest& request);

/// The answer first: the fleet layout that serves the most users on the
/// fleet's nodes, and the most a highly available one serves when that is
/// another layout.
[[nodiscard]] std::vector<std::string> capacity_answer(const CapacityReport& report);

/// The SLOs and think time, a row per config (C_max, what binds, users), the
/// fleet's replicas, the sensitivity tables, the scaling efficiency and every
/// measured point: every key of `tpnet capacity`'s JSON (docs/json.md).
/// `for_machines` (JSON, CSV) leaves out the points' table-only columns,
/// which those formats drop anyway: a sweep of 100,000 levels is held once,
/// as small as it can be (docs/hardening.md).
[[nodiscard]] Document capacity_document(const CapacityReport& report, bool for_machines = false);

}  // namespace tpnet
