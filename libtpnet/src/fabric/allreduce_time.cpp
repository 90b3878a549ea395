#include "tpnet/fabric/allreduce_time.hpp"

#include <string>
#include <utility>

namespace tpnet {

Seconds allreduce_latency(const AllReducePlan& plan, const StepLatency& latency) {
  if (plan.steps == 0) return Seconds(0.0);
  return latency.base + latency.per_step * plan.steps;
}

NcclSetup nccl_setup(const AllReducePlan& plan, const Link& link) {
  NcclSetup setup = link.latency.nccl;
  setup.ranks = plan.ranks;
  setup.nodes = plan.ranks;
  setup.link_rate = link.rate;
  if (link.latency.nccl_algorithm_from_engine) setup.algorithms = {plan.algorithm};
  return setup;
}

AllReduceLatency price_allreduce_latency(const AllReducePlan& plan, const Link& link) {
  if (link.latency.override) return {allreduce_latency(plan, *link.latency.override), {}};
  NcclChoice choice = choose_nccl_allreduce(plan.block, nccl_setup(plan, link));
  const Seconds alpha = choice.chosen.latency;
  return {alpha, std::move(choice)};
}

Seconds allreduce_latency(const AllReducePlan& plan, const Link& link) {
  return price_allreduce_latency(plan, link).alpha;
}

Seconds allreduce_time(const AllReducePlan& plan, const Link& link) {
  return allreduce_latency(plan, link) + allreduce_transfer_time(plan, link.rate);
}

std::string_view to_string(CommRegime regime) {
  return regime == CommRegime::latency_bound ? "latency-bound" : "bandwidth-bound";
}

CommRegime classify(const AllReducePlan& plan, const Link& link) {
  return allreduce_latency(plan, link) >= allreduce_transfer_time(plan, link.rate)
             ? CommRegime::latency_bound
             : CommRegime::bandwidth_bound;
}

}  // namespace tpnet
