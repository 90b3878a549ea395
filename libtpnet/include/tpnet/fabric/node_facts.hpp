#pragma once
/// What one node says about its own fabric, as plain values: the RDMA
/// devices and their ports, the network interfaces behind them, the PCIe
/// links of their functions, the NCCL settings in the environment, the
/// memlock limit and the NCCL library. io/node_facts.hpp reads them from a
/// node (or a tree saved from one, docs/preflight.md); preflight.hpp judges
/// them. Rates, link speeds and PCI addresses are typed values, parsed once
/// by the reader; a port's state stays as the kernel writes it ("4: ACTIVE").

#include <compare>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tpnet/base/units.hpp"

namespace tpnet {

/// A PCI function's address, domain:bus:device.function as sysfs names the
/// function's folder ("0000:01:00.1").
struct PciAddress {
  unsigned domain = 0;    ///< 16 bits, more behind a VMD controller
  unsigned bus = 0;       ///< 0-255
  unsigned device = 0;    ///< 0-31
  unsigned function = 0;  ///< 0-7: on a ConnectX-7, the QSFP port of a PCIe half

  // clang-tidy 14 misreads the defaulted <=> as comparing with literal 0.
  friend auto operator<=>(const PciAddress&,
                          const PciAddress&) = default;  // NOLINT(modernize-use-nullptr)
};

/// "0000:01:00.1": four hex digits of domain (more when it needs them), two
/// of bus and device, one of function.
[[nodiscard]] std::string to_string(const PciAddress& address);

/// One entry of a port's GID table (`ports/N/gids/I`, `gid_attrs/*/I`).
struct GidEntry {
  int index = 0;
  std::string gid;     ///< "0000:0000:0000:0000:0000:ffff:c0a8:640c"
  std::string type;    ///< "RoCE v2", "IB/RoCE v1"; empty when unreadable
  std::string netdev;  ///< the interface the GID belongs to
};

struct RdmaPortFacts {
  int number = 1;
  std::string state;       ///< "4: ACTIVE"
  std::string phys_state;  ///< "5: LinkUp"
  /// The port's data rate (sysfs "200 Gb/sec (2X NDR)"); nullopt when
  /// unreadable or not positive.
  std::optional<BitRate> rate;
  /// The active RoCE MTU in bytes as `ibv_devinfo` reports it; absent when
  /// not saved (sysfs does not hold it), and then derived from the interface MTU.
  std::optional<int> active_mtu;
  std::vector<GidEntry> gids;  ///< the non-zero entries, by index
};

struct RdmaDeviceFacts {
  std::string name;                       ///< "rocep1s0f1"
  std::optional<PciAddress> pci_address;  ///< nullopt when unknown
  std::string hca_type;                   ///< "MT4129"
  std::string firmware;                   ///< "28.45.4028"
  std::vector<std::string> netdevs;       ///< "enp1s0f1np1"
  std::vector<RdmaPortFacts> ports;
};

struct NetInterfaceFacts {
  std::string name;
  std::optional<int> mtu;  ///< bytes
  std::string operstate;   ///< "up", "down"
};

/// One PCIe function's link, as /sys/bus/pci/devices/ADDR/ says.
struct PciLinkFacts {
  PciAddress address;
  /// Transfers per second per lane, in GT/s (sysfs "32.0 GT/s PCIe"); nullopt
  /// when unreadable or "Unknown" (a link that has not trained).
  std::optional<double> current_gt_s;
  std::optional<double> max_gt_s;
  std::optional<int> current_width;  ///< lanes
  std::optional<int> max_width;
};

/// A libnccl found on the node, and where.
struct NcclLibraryFacts {
  std::string version;  ///< "2.28.9", with any suffix the build carried
  std::string where;    ///< the file it was read from
};

/// The locked-memory limit RDMA registration is held to.
struct MemlockFacts {
  bool unlimited = false;
  Bytes limit;  ///< when not unlimited
};

struct NodeFacts {
  std::string host;
  std::vector<RdmaDeviceFacts> devices;
  std::vector<NetInterfaceFacts> interfaces;
  std::vector<PciLinkFacts> pci_links;
  /// NCCL_* variables of the environment NCCL will run in; nullopt when not known.
  std::optional<std::map<std::string, std::string>> nccl_environment;
  std::optional<MemlockFacts> memlock;  ///< nullopt when not known
  std::optional<bool> ipc_lock;         ///< CAP_IPC_LOCK effective; nullopt when not known
  std::vector<NcclLibraryFacts> nccl;
  /// What was looked for and not found, for the report's warnings.
  std::vector<std::string> unread;
};

}  // namespace tpnet
