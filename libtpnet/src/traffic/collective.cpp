#include "tpnet/traffic/collective.hpp"

#include <bit>
#include <string>
#include <utility>

#include "tpnet/base/error.hpp"

namespace tpnet {

double allreduce_sent_factor(int ranks, CollectiveAlgorithm algorithm) {
  if (ranks <= 1) return 0.0;
  switch (algorithm) {
    case CollectiveAlgorithm::ring:
      return 2.0 * (ranks - 1) / ranks;
    case CollectiveAlgorithm::tree:
      return ranks == 2 ? 1.0 : 2.0;
  }
  return 0.0;
}

int allreduce_steps(int ranks, CollectiveAlgorithm algorithm) {
  if (ranks <= 1) return 0;
  switch (algorithm) {
    case CollectiveAlgorithm::ring:
      return 2 * (ranks - 1);
    case CollectiveAlgorithm::tree: {
      const auto depth = std::bit_width(static_cast<unsigned>(ranks - 1));  // ceil(log2 N)
      return 2 * static_cast<int>(depth);
    }
  }
  return 0;
}

AllReducePlan plan_allreduce(Bytes block, int ranks, CollectiveAlgorithm algorithm) {
  if (ranks < 1) {
    throw InputError(std::to_string(ranks) + " ranks cannot all-reduce; use 1 or more",
                     InputLocation::for_key("layout.tp"));
  }
  if (block.count() < 0.0) throw InputError("a negative all-reduce block is not allowed");
  AllReducePlan plan;
  plan.algorithm = algorithm;
  plan.ranks = ranks;
  plan.block = block;
  plan.sent_per_node = block * allreduce_sent_factor(ranks, algorithm);
  plan.steps = allreduce_steps(ranks, algorithm);
  plan.segment = algorithm == CollectiveAlgorithm::ring ? block / ranks : block / 2.0;
  return plan;
}

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

Seconds allreduce_transfer_time(const AllReducePlan& plan, BitRate rate) {
  return plan.sent_per_node / rate;
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
