#include "tpnet/measured/calibration_fabric.hpp"

#include <fmt/format.h>

#include <memory>

#include "tpnet/base/error.hpp"
#include "tpnet/base/quantity_text.hpp"

namespace tpnet {

MeasuredAllToAll measured_alltoall(const AllToAllCalibration& alltoall, const std::string& origin,
                                   const Link& link, const AllReduceCalibration* allreduce) {
  MeasuredAllToAll out;
  out.origin = origin;
  out.source = alltoall.source;
  out.link = alltoall.link;
  out.ranks = alltoall.ranks;
  out.alpha = alltoall.alpha;
  out.rate = alltoall.rate;
  out.min_size = alltoall.min_size;
  out.max_size = alltoall.max_size;
  const bool same_link_known = allreduce != nullptr && allreduce->link == alltoall.link &&
                               allreduce->link_rate.bits_per_second() > 0.0 &&
                               link.rate.bits_per_second() > 0.0;
  if (same_link_known) {
    out.rate =
        alltoall.rate * (link.rate.bits_per_second() / allreduce->link_rate.bits_per_second());
  }
  return out;
}

FabricProfile calibration_fabric(const Calibration& calibration, const Link& link) {
  if (!calibration.allreduce) {
    throw InputError(fmt::format("{}: has no allreduce section; a fabric profile needs a measured "
                                 "all-reduce sweep",
                                 calibration.origin),
                     InputLocation::for_key("fabric"));
  }
  FabricProfile profile =
      calibration_fabric(std::make_shared<const AllReduceCalibration>(*calibration.allreduce),
                         calibration.origin, link);
  if (calibration.alltoall) {
    profile.alltoall =
        measured_alltoall(*calibration.alltoall, calibration.origin, link, &*calibration.allreduce);
    profile.provenance.push_back(fmt::format(
        "expert parallelism's all-to-all: the measured sweep {} ({} ranks on {}), {} a round and "
        "{} at {} (docs/formulas.md s.31.1)",
        calibration.alltoall->source, calibration.alltoall->ranks, calibration.alltoall->link,
        format_quantity(profile.alltoall->alpha.value(), "s"),
        format_quantity(profile.alltoall->rate.bits_per_second(), "b/s"), link.name));
  }
  return profile;
}

}  // namespace tpnet
