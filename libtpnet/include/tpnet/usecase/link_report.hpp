#pragma once
/// `tpnet link`: the link presets, what a PCIe host link carries, or what
/// one all-reduce over a link costs on its fabric profile and in NCCL's own
/// tuning model (docs/formulas.md s.20).

#include <optional>
#include <string>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/nccl_model.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet {

/// A link a user may name, and where its rate comes from.
struct NamedLink {
  std::string name;
  BitRate rate;
  std::string description;
};

/// One all-reduce to price: its size, the link it crosses, the ranks and
/// nodes, and the choices NCCL's tuner may make.
struct AllReduceAsk {
  Bytes size;  ///< each rank's buffer
  Link link;
  int ranks = 8;  ///< `nccl.ranks`
  int nodes = 0;  ///< `nccl.nodes`; 0: one rank per node
  std::vector<CollectiveAlgorithm> algorithms = NcclSetup{}.algorithms;
  std::vector<NcclProtocol> protocols = NcclSetup{}.protocols;
  int channels = NcclSetup{}.channels;  ///< `nccl.channels`
  /// The profile the estimate uses, resolved by the caller; unset: the
  /// link's nominal profile.
  std::optional<FabricProfile> fabric;
  /// `fabric` was picked for the link by name, not asked for: the built-in
  /// profiles measure one GPU a node, so with ranks sharing nodes the link's
  /// nominal profile prices it instead.
  bool fabric_picked_for_link = false;
};

/// What `tpnet link` answers: the all-reduce when one is asked, else the
/// PCIe link when its generation or lanes are given, else the presets.
struct LinkRequest {
  std::optional<AllReduceAsk> allreduce;
  int pcie_generation = 0;  ///< `pcie.generation`; 0: not asked
  int pcie_lanes = 0;       ///< `pcie.lanes`; 0: not asked
  std::optional<LineCoding> pcie_coding;
  double pcie_protocol_efficiency = PcieSpec{}.protocol_efficiency;
  std::vector<NamedLink> presets;  ///< listed when neither is asked
};

struct AllReducePrice {
  Bytes size;
  Link link;
  int ranks = 0;
  int nodes = 0;
  int channels = 0;
  FabricProfile fabric;
  FabricAllReduce estimate;  ///< on `fabric`
  NcclChoice nccl;           ///< NCCL's own tuning model
  std::string nccl_source;   ///< where NCCL's constants come from
};

struct PcieAnswer {
  PcieSpec spec;
  PcieLinkRates rates;
};

struct LinkReport {
  std::optional<AllReducePrice> allreduce;
  std::optional<PcieAnswer> pcie;
  std::vector<NamedLink> presets;  ///< when neither was asked
  std::string latency_source;      ///< the all-reduce latency model's source
};

/// Throws InputError naming the request field when the request mixes an
/// all-reduce with a PCIe link, gives only one of generation and lanes, or
/// the PCIe spec or NCCL setup is one the formulas refuse.
[[nodiscard]] LinkReport run_link(const LinkRequest& request);

/// The answer `tpnet link` opens with: what the all-reduce costs, what the
/// PCIe link carries, or which presets there are.
[[nodiscard]] std::vector<std::string> link_answer(const LinkReport& report);

[[nodiscard]] Document link_document(const LinkRequest& request, const LinkReport& report);

}  // namespace tpnet
