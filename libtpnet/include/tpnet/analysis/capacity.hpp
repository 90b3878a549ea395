#pragma once
/// Capacity under SLOs from measured concurrency sweeps: the largest
/// concurrency that meets a TTFT and a decode-rate target (C_max), users by
/// Little's law, sensitivity to think time and thresholds, fleet topologies
/// and TP scaling efficiency (docs/background.md s.7, docs/formulas.md s.13).

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/error.hpp"
#include "tpnet/units.hpp"

namespace tpnet {

/// One measured concurrency level of one configuration (means over requests).
struct SweepPoint {
  int concurrency = 0;             ///< requests in flight (vLLM's max_concurrency)
  Seconds ttft;                    ///< mean time to first token
  TokenRate tps;                   ///< mean per-request decode rate
  std::optional<Seconds> itl;      ///< mean inter-token latency, when reported
  std::optional<Seconds> latency;  ///< mean end-to-end latency per request, when reported
  InputLocation source;            ///< file and line it was read from, for messages
};

/// The sweep of one serving configuration (one TP size, one set of flags).
struct Sweep {
  std::string config;              ///< "TP4", "TP8-300K"
  int tp = 0;                      ///< tensor-parallel size: nodes per instance
  std::vector<SweepPoint> points;  ///< any order; one per concurrency level
  std::vector<std::string> notes;  ///< how values were derived (vLLM JSON), kept in the report
};

/// Both SLOs hold at a point when TTFT <= ttft and TPS >= tps.
struct SloSpec {
  Seconds ttft = Seconds::milliseconds(1000.0);
  TokenRate tps{15.0};
};

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
enum class Binding { none_measured, ttft, tps, both };
/// "none measured", "ttft", "tps", "ttft+tps"
[[nodiscard]] std::string_view to_string(Binding binding);

/// One measured point judged against the SLOs.
struct PointVerdict {
  SweepPoint point;
  bool meets_ttft = false;
  bool meets_tps = false;
  bool ttft_on_edge = false;              ///< |TTFT - slo| <= edge x slo
  bool tps_on_edge = false;               ///< |TPS - slo| <= edge x slo
  std::optional<TokenRate> tps_from_itl;  ///< 1 / ITL, when ITL is reported

  [[nodiscard]] bool meets() const { return meets_ttft && meets_tps; }
};

/// C_max: the largest measured concurrency at which TTFT <= slo.ttft and
/// TPS >= slo.tps (equal passes); 0 when none does (docs/formulas.md s.13).
[[nodiscard]] int max_concurrency(const Sweep& sweep, const SloSpec& slo);

/// Little's law: users = C_max x (1 + think / latency), latency the mean
/// end-to-end latency at C_max. Zero users for C_max = 0; nullopt when
/// C_max > 0 and the latency was not reported (docs/formulas.md s.13).
[[nodiscard]] std::optional<double> users_by_littles_law(int c_max, std::optional<Seconds> latency,
                                                         Seconds think);

struct ConfigCapacity {
  std::string config;
  int tp = 0;
  std::vector<PointVerdict> points;  ///< by concurrency
  int c_max = 0;
  Binding binding = Binding::none_measured;
  int fails_at = 0;  ///< the first measured level above C_max; 0 when none
  std::optional<Seconds> latency_at_c_max;
  std::optional<double> users;  ///< nullopt: C_max > 0 but no latency reported there
  /// A point deciding C_max (at C_max or at fails_at) lies within the edge of a threshold.
  bool on_edge = false;
  int c_max_tight = 0;        ///< C_max with both thresholds tightened by the edge margin
  int c_max_loose = 0;        ///< ... and loosened by it; differs from tight when capacity swings
  TokenRate peak_throughput;  ///< max over measured C of TPS x C
  int peak_concurrency = 0;   ///< the C where that peak was measured
  std::vector<int> gaps;      ///< levels other configs (or powers of two) have, not measured here
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
  int c_max = 0;
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
  int concurrent = 0;                          ///< replicas x C_max
  std::optional<double> users;                 ///< replicas x users of one instance
  std::optional<double> users_after_one_loss;  ///< (replicas - 1) x users of one instance
  TokenRate peak_throughput;                   ///< replicas x max over C of TPS x C
  TokenRate slo_throughput;                    ///< replicas x C_max x TPS at C_max
  bool highly_available = false;               ///< survives losing one replica
};

struct FleetReport {
  int nodes = 0;
  std::vector<FleetOption> options;           ///< configs with tp <= nodes, in report order
  std::optional<std::size_t> most_users;      ///< index into options
  std::optional<std::size_t> best_available;  ///< most users among highly available options
  std::vector<std::string> notes;
};

/// Measured speed-up between two TP sizes at one concurrency.
struct ScalingRow {
  std::string from_config;
  std::string to_config;
  int from_tp = 0;
  int to_tp = 0;
  int concurrency = 0;
  TokenRate from_tps;
  TokenRate to_tps;
  double speedup = 0.0;     ///< to_tps / from_tps
  double ideal = 0.0;       ///< to_tp / from_tp
  double efficiency = 0.0;  ///< speedup / ideal
};

struct CapacityReport {
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
/// sizes, or a sweep with no points or two points at one concurrency.
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

}  // namespace tpnet
