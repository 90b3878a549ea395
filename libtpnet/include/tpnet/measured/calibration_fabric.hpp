#pragma once
/// A calibration as the fabric profile every use case prices with: its
/// measured all-reduce curve (s.19) and, when it has one, its measured
/// all-to-all, which then prices expert parallelism (s.31.1). The one place
/// a calibration becomes a profile, so predict, expect and plan agree.

#include <string>

#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/measured_alltoall.hpp"
#include "tpnet/measured/calibration.hpp"

namespace tpnet {

/// The all-to-all section as a profile carries it, named after `origin`
/// (the calibration file), its rate moved to `link` as s.19 moves the
/// all-reduce's (rate x link / measured link) when `allreduce` was measured
/// on the same link and says that link's rate; as measured otherwise.
[[nodiscard]] MeasuredAllToAll measured_alltoall(const AllToAllCalibration& alltoall,
                                                 const std::string& origin, const Link& link,
                                                 const AllReduceCalibration* allreduce = nullptr);

/// calibration_fabric of the calibration's all-reduce section on `link`,
/// with its all-to-all attached when present. Throws InputError naming
/// `fabric` for a calibration without an all-reduce section.
[[nodiscard]] FabricProfile calibration_fabric(const Calibration& calibration, const Link& link);

}  // namespace tpnet
