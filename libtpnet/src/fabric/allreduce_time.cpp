#include "tpnet/fabric/allreduce_time.hpp"

#include <string>
#include <utility>

namespace tpnet {

Seconds allreduce_latency(const AllReduceTraffic& traffic, const StepLatency& latency) {
  if (traffic.steps == 0) return Seconds(0.0);
  return latency.base + latency.per_step * traffic.steps;
}

NcclSetup nccl_setup(const AllReduceTraffic& traffic, const Link& link,
                     const CollectiveSettings& settings) {
  NcclSetup setup = settings.nccl;
  setup.ranks = traffic.ranks;
  setup.nodes = traffic.ranks;
  setup.link_rate = link.rate;
  if (settings.nccl_algorithm_from_engine) setup.algorithms = {traffic.algorithm};
  return setup;
}

AllReduceLatency price_allreduce_latency(const AllReduceTraffic& traffic, const Link& link,
                                         const CollectiveSettings& settings) {
  if (settings.latency_override) {
    return {allreduce_latency(traffic, *settings.latency_override), {}};
  }
  NcclChoice choice = choose_nccl_allreduce(traffic.block, nccl_setup(traffic, link, settings));
  const Seconds alpha = choice.chosen.latency;
  return {alpha, std::move(choice)};
}

Seconds allreduce_latency(const AllReduceTraffic& traffic, const Link& link,
                          const CollectiveSettings& settings) {
  return price_allreduce_latency(traffic, link, settings).alpha;
}

Seconds allreduce_time(const AllReduceTraffic& traffic, const Link& link,
                       const CollectiveSettings& settings) {
  return allreduce_latency(traffic, link, settings) + allreduce_transfer_time(traffic, link.rate);
}

std::string_view to_string(CommRegime regime) {
  return regime == CommRegime::latency_bound ? "latency-bound" : "bandwidth-bound";
}

CommRegime classify(const AllReduceTraffic& traffic, const Link& link,
                    const CollectiveSettings& settings) {
  return allreduce_latency(traffic, link, settings) >= allreduce_transfer_time(traffic, link.rate)
             ? CommRegime::latency_bound
             : CommRegime::bandwidth_bound;
}

}  // namespace tpnet
