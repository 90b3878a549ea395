#include "tpnet/fabric/measured_allreduce.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tpnet/base/error.hpp"
#include "tpnet/traffic/collective.hpp"

namespace tpnet {

namespace {

/// alpha + sent(S) x 8 / beta at the sweep's own ranks.
Seconds fitted_time(const AllReduceCalibration& c, Bytes block) {
  const double sent_factor = allreduce_sent_factor(c.ranks, CollectiveAlgorithm::ring);
  return c.alpha + block * sent_factor / c.beta;
}

}  // namespace

Seconds measured_allreduce_time(const AllReduceCalibration& c, Bytes block) {
  const auto& curve = c.curve;
  if (curve.empty() || block < curve.front().size || block > curve.back().size) {
    const Seconds fitted = fitted_time(c, block);
    if (fitted.value() > 0.0 || curve.empty()) return fitted;
    return curve.front().time;
  }
  const auto upper =
      std::lower_bound(curve.begin(), curve.end(), block,
                       [](const CalibrationPoint& p, Bytes size) { return p.size < size; });
  if (upper->size == block) return upper->time;
  const auto lower = upper - 1;
  // Linear in log-log: exact for a constant time and for a time proportional to size.
  const double u = std::log(block / lower->size) / std::log(upper->size / lower->size);
  return lower->time * std::pow(upper->time / lower->time, u);
}

Seconds calibrated_allreduce_time(const AllReduceCalibration& c, Bytes block, int ranks,
                                  BitRate rate) {
  if (ranks < 2) {
    throw InputError(
        fmt::format("{} rank(s): an all-reduce over the network needs at least 2", ranks),
        InputLocation::for_key("traffic.tp"));
  }
  if (block.count() < 0.0) {
    throw InputError("an all-reduce block cannot be negative", InputLocation::for_key("block"));
  }
  if (!(rate.bits_per_second() > 0.0)) {
    throw InputError("a link rate must be positive", InputLocation::for_key("link"));
  }
  const Seconds alpha(std::max(0.0, c.alpha.value()));
  const double steps_ratio =
      static_cast<double>(allreduce_steps(ranks, CollectiveAlgorithm::ring)) /
      allreduce_steps(c.ranks, CollectiveAlgorithm::ring);
  const double bytes_ratio = allreduce_sent_factor(ranks, CollectiveAlgorithm::ring) /
                             allreduce_sent_factor(c.ranks, CollectiveAlgorithm::ring);
  const Seconds measured = measured_allreduce_time(c, block * bytes_ratio);
  const Seconds transfer(std::max(0.0, (measured - alpha).value()));
  return alpha * steps_ratio + transfer * (c.link_rate / rate);
}

BitRate calibrated_rate(const AllReduceCalibration& c, BitRate rate) {
  return c.beta * (rate / c.link_rate);
}

}  // namespace tpnet
