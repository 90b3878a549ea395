#include "tpnet/usecase/link_report.hpp"

#include "tpnet/base/error.hpp"

namespace tpnet {
namespace {

AllReducePrice price_allreduce(const AllReduceAsk& ask) {
  NcclSetup setup;
  setup.ranks = ask.ranks;
  setup.nodes = ask.nodes;
  setup.link_rate = ask.link.rate;
  setup.channels = ask.channels;
  setup.algorithms = ask.algorithms;
  setup.protocols = ask.protocols;
  AllReducePrice price;
  price.nccl = choose_nccl_allreduce(ask.size, setup);
  price.size = ask.size;
  price.link = ask.link;
  price.ranks = ask.ranks;
  price.nodes = ask.nodes == 0 ? ask.ranks : ask.nodes;
  price.channels = setup.channels;
  price.nccl_source = std::string(setup.tuning.source);
  const bool ranks_share_nodes = price.nodes != ask.ranks;
  price.fabric = ask.fabric && !(ranks_share_nodes && ask.fabric_picked_for_link)
                     ? *ask.fabric
                     // NCCL's default setup: the ask's algorithms and protocols
                     // price `nccl` above, apart from the estimate.
                     : nominal_fabric(ask.link, CollectiveSettings{});
  price.estimate = fabric_allreduce(price.fabric, ask.size, ask.ranks, CollectiveAlgorithm::ring);
  return price;
}

}  // namespace

LinkReport run_link(const LinkRequest& request) {
  LinkReport report;
  report.latency_source = std::string(nccl_2_28_tuning().source);
  const bool pcie_asked = request.pcie_generation != 0 || request.pcie_lanes != 0;
  if (request.allreduce) {
    if (pcie_asked) {
      throw InputError("prices an all-reduce; leave out `pcie.generation` and `pcie.lanes`",
                       InputLocation::for_key("nccl.size"));
    }
    report.allreduce = price_allreduce(*request.allreduce);
    return report;
  }
  if (!pcie_asked) {
    report.presets = request.presets;
    return report;
  }
  if (request.pcie_generation == 0 || request.pcie_lanes == 0) {
    throw InputError(
        "give both `pcie.generation` and `pcie.lanes` (e.g. generation 5 with 4 lanes)",
        InputLocation::for_key(request.pcie_generation == 0 ? "pcie.generation" : "pcie.lanes"));
  }
  PcieSpec spec;
  spec.generation = request.pcie_generation;
  spec.lanes = request.pcie_lanes;
  spec.coding = request.pcie_coding;
  spec.protocol_efficiency = request.pcie_protocol_efficiency;
  report.pcie = PcieAnswer{spec, pcie_link_rates(spec)};
  return report;
}

}  // namespace tpnet
