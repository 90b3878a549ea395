#pragma once
/// Capacity under SLOs from measured load sweeps: the largest load level
/// (a concurrency, or a sustained request rate) that meets a TTFT and a
/// decode-rate target (C_max), users by Little's law, sensitivity to think
/// time and thresholds, fleet topologies and TP scaling efficiency
/// (docs/background.md s.7, docs/formulas.md s.13).

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/measured/sweep.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet {

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
