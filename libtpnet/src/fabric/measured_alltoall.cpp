#include "tpnet/fabric/measured_alltoall.hpp"

#include <fmt/format.h>

#include "tpnet/base/error.hpp"
#include "tpnet/base/quantity_text.hpp"

namespace tpnet {

MeasuredAllToAllRound measured_alltoall_round(const MeasuredAllToAll& measured, Bytes sent,
                                              int ranks) {
  if (ranks < 2) {
    throw InputError(fmt::format("an all-to-all needs 2 ranks or more, not {}", ranks),
                     InputLocation::for_key("fabric"));
  }
  if (sent.count() < 0.0) {
    throw InputError(fmt::format("an all-to-all cannot send {} bytes", sent.count()),
                     InputLocation::for_key("fabric"));
  }
  MeasuredAllToAllRound round;
  round.time = measured.alpha + Seconds(sent.bits() / measured.rate.bits_per_second());
  round.size = sent * (static_cast<double>(ranks) / static_cast<double>(ranks - 1));
  round.extrapolated = round.size.count() < measured.min_size.count() ||
                       round.size.count() > measured.max_size.count();
  return round;
}

std::string describe(const MeasuredAllToAll& measured) {
  return fmt::format("measured at {} ranks from {} ({} a round, {})", measured.ranks,
                     measured.origin, format_quantity(measured.alpha.value(), "s"),
                     format_quantity(measured.rate.bits_per_second(), "b/s"));
}

}  // namespace tpnet
