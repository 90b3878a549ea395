#pragma once
/// `tpnet preflight`: a node's own fabric facts (node_facts.hpp) judged check
/// by check against what its node catalog entry needs, each check saying
/// what holds, what is wrong, what that cost someone who measured it and the
/// fix; and the checks only a whole cluster shows (GID indices, MTUs, NCCL
/// versions, port rates that differ between nodes). docs/preflight.md.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/fabric/node_facts.hpp"

namespace tpnet {

enum class CheckStatus { holds, fails, warns, not_judged };
[[nodiscard]] std::string_view to_string(CheckStatus status);

/// One check: its name ("interface_mtu"), what was found, and for a fault
/// what it costs (the measured figure and where it was published) and the fix.
struct PreflightCheck {
  std::string name;
  CheckStatus status = CheckStatus::not_judged;
  std::string finding;
  std::string cost;    ///< empty unless it fails or warns and the node states a cost
  std::string source;  ///< where `cost` was measured
  std::string fix;
  std::optional<BitRate> degraded;  ///< the measured rate with the fault...
  std::optional<BitRate> healthy;   ///< ...and without it
  /// What this node is left with, derived (a PCIe link trained narrower
  /// carries its share of the half's measured rate); absent when not derived.
  std::optional<BitRate> estimated;
};

/// One RDMA device port as preflight reads it: what the table lists.
struct PreflightDevice {
  std::string device;
  int port = 1;
  std::string pci_address;
  int qsfp_port = -1;  ///< the PCI function number: the cage the device belongs to; -1 unknown
  std::string netdev;
  bool active = false;  ///< state ACTIVE and physical state LinkUp
  std::optional<BitRate> rate;
  std::optional<int> interface_mtu;
  std::optional<int> roce_mtu;
  bool roce_mtu_derived = false;     ///< from the interface MTU, not ibv_devinfo
  std::optional<int> roce_v2_index;  ///< the first RoCE v2 GID with an IPv4 address
  bool nccl_uses = false;            ///< NCCL_IB_HCA (or its absence) selects it
};

struct PreflightRequest {
  NodeFacts facts;
  NodeSpec node;  ///< the node the facts should match (its preflight thresholds)
};

struct PreflightReport {
  std::string host;
  std::string node;  ///< the catalog node judged against
  std::vector<PreflightDevice> devices;
  std::vector<PreflightCheck> checks;
  std::vector<std::string> warnings;

  [[nodiscard]] bool gate_failed() const;
  [[nodiscard]] const PreflightCheck* check(std::string_view name) const;
};

[[nodiscard]] PreflightReport run_preflight(const PreflightRequest& request);

/// Every node's facts, rank order (`tpnet-calibrate preflight` gathers them over MPI).
struct ClusterPreflightRequest {
  std::vector<NodeFacts> nodes;
  NodeSpec node;
};

struct ClusterPreflightReport {
  std::vector<PreflightReport> nodes;  ///< each node's own checks, rank order
  std::vector<PreflightCheck> checks;  ///< what only the cluster shows
  std::vector<std::string> warnings;

  [[nodiscard]] bool gate_failed() const;
};

[[nodiscard]] ClusterPreflightReport run_cluster_preflight(const ClusterPreflightRequest& request);

/// The RoCE path MTU a RoCE device runs at on an interface of `interface_mtu`
/// bytes: the largest InfiniBand MTU (256-4096) that fits once the 96 bytes
/// of RoCE v2 headers are taken off (the kernel's iboe_get_mtu), 0 below 352.
/// docs/formulas.md s.27.
[[nodiscard]] int roce_mtu_for_interface(int interface_mtu);

/// Whether `device` is selected by an NCCL_IB_HCA value (`^` excludes, `=`
/// matches names exactly, else each entry is a name prefix; `:port` after a
/// name limits it to that port).
[[nodiscard]] bool nccl_ib_hca_selects(std::string_view value, std::string_view device, int port);

}  // namespace tpnet
