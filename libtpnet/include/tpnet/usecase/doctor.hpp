#pragma once
/// `tpnet doctor`: a measured all-reduce sweep judged against its link: the
/// alpha-beta fit, the bus bandwidth reached, the known bad fabric states and
/// the NCCL settings to check (docs/calibration.md).

#include <optional>
#include <string>
#include <vector>

#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/measured/allreduce_fit.hpp"
#include "tpnet/measured/allreduce_sweep.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet {

/// The rank count to fit with: `asked` when given (at least 2; a warning when
/// it differs from the file's), else the file's own. Throws InputError naming
/// `ranks` for fewer than 2, or the file when neither says.
[[nodiscard]] int resolve_sweep_ranks(const AllReduceSweep& sweep, std::optional<int> asked,
                                      std::vector<std::string>& warnings);

struct DoctorRequest {
  AllReduceSweep sweep;
  Link link;                 ///< `link`: what the bus bandwidth should reach
  std::optional<int> ranks;  ///< `ranks`: replaces the file's
  FitRange range;            ///< `fit.min_size`, `fit.max_size`
  /// `node`: the catalog entry a sweep from its hardware (a GB10, or a log
  /// that names no GPU) is judged against; absent, only the link is.
  std::optional<NodeSpec> node;
  /// `fabric`: the profile of the path the run crossed; a built-in or
  /// calibrated one says what a healthy node reaches at each size, and a
  /// sweep from the node's hardware is judged against that instead of the
  /// link's nominal rate. Absent or nominal, the link rate.
  std::optional<FabricProfile> fabric;
};

struct DoctorReport {
  int ranks = 0;
  int ranks_per_node = 0;  ///< from the log's `#  Rank ... on HOST` lines; 0 = not said
  AllReduceFit fit;
  bool fitted = false;  ///< false with under 2 sizes in range: `fit` is then all zero
  BitRate busbw;        ///< mean out-of-place bus bandwidth of the three largest sizes
  BitRate peak_busbw;   ///< the highest of any size
  /// What a healthy node shows at the sizes `busbw` averages (the fabric
  /// profile's measured curve there), the reference the share is of; the
  /// link rate when no measured profile applies.
  BitRate healthy_busbw;
  std::string healthy_from;  ///< "dgx-spark-200g-switch (measured)" or "the link rate"
  /// The share of the link a healthy fabric would show at the largest size:
  /// its bytes at the link rate over those plus the fixed cost of one call
  /// (docs/formulas.md s.16.1). Below kHealthyShare the sizes are too small
  /// for the bus bandwidth to say anything about the link.
  double reachable_share = 1.0;
  bool bandwidth_judged = true;  ///< reachable_share >= kHealthyShare
  /// Sizes too small for bandwidth, on DGX Sparks: the slowest out-of-place
  /// time at or under the node catalog's `small_allreduce_latency.max_size`,
  /// judged against its healthy range; 0 when not judged so.
  Seconds small_latency;
  Seconds healthy_latency_max;  ///< the catalog's slowest healthy time; 0 when not used
  FabricDiagnosis diagnosis;
  std::vector<std::string> checks;    ///< the settings to check on any cluster
  std::vector<std::string> warnings;  ///< the file's notes, the rank override, the fit's own

  [[nodiscard]] bool healthy() const { return diagnosis.state == FabricState::healthy; }
  /// The fabric is slower than its link (the CI gate fails): every state but
  /// healthy, above_link, not_judged and latency_healthy, which find nothing wrong.
  [[nodiscard]] bool gate_failed() const {
    return diagnosis.state != FabricState::healthy && diagnosis.state != FabricState::above_link &&
           diagnosis.state != FabricState::not_judged &&
           diagnosis.state != FabricState::latency_healthy;
  }
};

/// Judges the sweep. Throws InputError naming `fit.min_size` when the range
/// is empty (its minimum above its maximum, or no size of the log in it).
[[nodiscard]] DoctorReport run_doctor(const DoctorRequest& request);

/// The run (its file, ranks, NCCL version, collective), the state found and
/// its advice, the bus bandwidth against what a healthy node reaches, the
/// alpha-beta fit, the curve and the settings to check: every key of
/// `tpnet doctor`'s JSON (docs/json.md).
/// The answer first: the finding (the state and the bandwidth against a
/// healthy node) and the advice, as sentences.
[[nodiscard]] std::vector<std::string> doctor_answer(const DoctorReport& report);

[[nodiscard]] Document doctor_document(const DoctorRequest& request, const DoctorReport& report);

}  // namespace tpnet
