#pragma once
/// `tpnet doctor`: a measured all-reduce sweep judged against its link: the
/// alpha-beta fit, the bus bandwidth reached, the known bad fabric states and
/// the NCCL settings to check (docs/calibration.md).

#include <optional>
#include <string>
#include <vector>

#include "tpnet/fabric/link.hpp"
#include "tpnet/measured/allreduce_fit.hpp"
#include "tpnet/measured/allreduce_sweep.hpp"

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
};

struct DoctorReport {
  int ranks = 0;
  int ranks_per_node = 0;  ///< from the log's `#  Rank ... on HOST` lines; 0 = not said
  AllReduceFit fit;
  bool fitted = false;  ///< false with under 2 sizes in range: `fit` is then all zero
  BitRate busbw;        ///< mean out-of-place bus bandwidth of the three largest sizes
  BitRate peak_busbw;   ///< the highest of any size
  FabricDiagnosis diagnosis;
  std::vector<std::string> checks;    ///< the settings to check on any cluster
  std::vector<std::string> warnings;  ///< the file's notes, the rank override, the fit's own

  [[nodiscard]] bool healthy() const { return diagnosis.state == FabricState::healthy; }
  /// The fabric is slower than its link (the CI gate fails): every state but
  /// healthy, above_link and not_judged, which find nothing wrong.
  [[nodiscard]] bool gate_failed() const {
    return diagnosis.state != FabricState::healthy && diagnosis.state != FabricState::above_link &&
           diagnosis.state != FabricState::not_judged;
  }
};

[[nodiscard]] DoctorReport run_doctor(const DoctorRequest& request);

}  // namespace tpnet
