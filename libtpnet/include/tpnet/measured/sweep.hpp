#pragma once
/// Measured load sweeps and their arithmetic: the points of one serving
/// configuration at several load levels (a concurrency, or a sustained
/// request rate), each judged against TTFT and decode-rate targets, the
/// largest level that meets them (C_max), whether a rate was sustained, and
/// users by Little's law (docs/background.md s.7, docs/formulas.md s.13).
/// io/sweep_io.hpp reads them; usecase/capacity.hpp words the answer.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"

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

/// Relative slack for "equal passes": 1000 ms typed as a flag and 1000 read
/// from a CSV may differ in the last bit.
inline constexpr double kSloEqualSlack = 1e-9;

/// Two levels (or thresholds) are one: equal within kSloEqualSlack of `b`.
[[nodiscard]] bool equal_within_slack(double a, double b);

/// "C=8", "1.5 requests/s", "rate inf" for a run that sent everything at once.
[[nodiscard]] std::string load_level_text(const SweepPoint& point, LoadAxis axis);
/// "C=8", "1.5 requests/s".
[[nodiscard]] std::string load_level_text(double level, LoadAxis axis);
/// Where a point was read, "file:line key", for messages; "input" when unknown.
[[nodiscard]] std::string source_text(const InputLocation& at);

/// The sweep's points by load level, unlimited runs last. Throws InputError
/// at the point's file and line (`sweeps` for an empty sweep) for no points,
/// a concurrency below 1, a request rate that is not a positive number,
/// non-positive TTFT or TPS, or two points at one level.
[[nodiscard]] std::vector<SweepPoint> sorted_points(const Sweep& sweep);

/// One point against the SLOs: both thresholds (equal passes), whether it
/// lies within `edge` (a fraction) of either, and on the rate axis whether
/// the run kept up with its rate (docs/formulas.md s.13).
[[nodiscard]] PointVerdict judge_point(const SweepPoint& point, const SloSpec& slo, double edge,
                                       LoadAxis axis);

/// Whether a judged point sets a load level: always on the concurrency axis;
/// on the rate axis an unlimited run is judged but sent no rate.
[[nodiscard]] bool sets_load_level(const PointVerdict& verdict, LoadAxis axis);

/// The SLOs with both thresholds tightened (`loosen` false) or loosened by
/// the fraction `edge`.
[[nodiscard]] SloSpec shifted_slo(const SloSpec& slo, double edge, bool loosen);

/// C_max of judged points: the largest level that sets one, was sustained
/// and meets `slo`; 0 when none does.
[[nodiscard]] double max_load(const std::vector<PointVerdict>& verdicts, const SloSpec& slo,
                              LoadAxis axis);

/// What C_max is and what decides it: the one computation behind a
/// configuration's capacity and every sensitivity cell, so the two agree.
struct MaxLoadDecision {
  double c_max = 0.0;
  const PointVerdict* at_c_max = nullptr;  ///< into the verdicts decided on
  const PointVerdict* failing = nullptr;   ///< the first level above C_max that sets one
  /// A deciding point (at C_max, or the failing one on a threshold it fails)
  /// lies within the edge.
  bool on_edge = false;
  std::optional<Seconds> latency;  ///< the mean end-to-end latency at C_max
  /// Little's law, rounded down to whole users; nullopt when C_max > 0 and
  /// no latency was reported there.
  std::optional<double> users;
};

/// C_max of `verdicts` (sorted by level), its deciding points and the users
/// it serves with `think` between a user's requests.
[[nodiscard]] MaxLoadDecision decide_max_load(const std::vector<PointVerdict>& verdicts,
                                              const SloSpec& slo, Seconds think, LoadAxis axis);

}  // namespace tpnet
