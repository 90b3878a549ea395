#pragma once
/// A cluster node as data: memory, memory bandwidth, its NIC's ports and the
/// host links behind them. The built-in catalog is models/nodes/*.yaml
/// ("dgx-spark"), embedded at build time; schema in docs/switch.md.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/fabric/expected_rates.hpp"

namespace tpnet {

/// The NIC's network ports.
struct NodePorts {
  int count = 0;
  std::string cage;             ///< "QSFP112"
  BitRate rate;                 ///< each port's top rate
  std::vector<BitRate> speeds;  ///< rates a port can link at, fastest first

  [[nodiscard]] bool supports(BitRate speed) const;
};

/// The links between the NIC and the host (PCIe), each carrying part of the traffic.
struct HostLinks {
  int count = 0;
  int pcie_gen = 0;
  int lanes = 0;
  BitRate usable;  ///< what one link carries, measured (DGX Spark: 109 Gb/s)
};

/// NCCL's buffer settings: NCCL_MAX_NCHANNELS channels of NCCL_BUFFSIZE bytes
/// per connection. The channel count here sizes buffers; it is not the
/// network channel count of NCCL's latency model (tpnet/fabric/nccl_model.hpp).
struct NcclBuffers {
  int channels = 0;
  Bytes buffsize;
};

/// NCCL's memory per rank on this node, measured with NCCL's own buffer
/// settings and with a tuned pair, both at `ranks` ranks; tpnet's footprint
/// model is fitted to the two (docs/formulas.md s.12.2).
struct NcclMemoryProfile {
  int ranks = 0;
  NcclBuffers defaults;  ///< what NCCL picks on this node when left alone
  Bytes defaults_per_rank;
  NcclBuffers tuned;  ///< the smaller settings a deployment can choose
  Bytes tuned_per_rank;
};

/// How long a healthy small all-reduce takes between these nodes, measured:
/// the range `doctor` judges a sweep by when its sizes are too small for the
/// bus bandwidth to show (docs/calibration.md, docs/formulas.md s.16).
struct SmallAllReduceLatency {
  int ranks = 0;        ///< the rank count it was measured at
  Bytes max_size;       ///< the largest size the range covers
  Seconds healthy_min;  ///< the fastest measured
  Seconds healthy_max;  ///< the slowest a healthy run took
  std::string source;
};

/// The bus bandwidths of a large all-reduce that name a known fault of this
/// node's port, each band drawn around rates measured on the hardware
/// (models/nodes/*.yaml `bus_bandwidth_faults`; `doctor` names them).
struct BusBandwidthFaults {
  BitRate software_forwarded_below;  ///< a CPU-forwarded bridge or an RSTP detour
  BitRate degraded_nic_up_to;        ///< a throttled NIC whose link still reports its rate
  BitRate one_pcie_half_from;        ///< one of the port's two RDMA devices carrying it all
  BitRate one_pcie_half_to;
  /// One half is a fault only where both halves were expected: a link of at
  /// least this rate (a 100G link is one half's worth).
  BitRate one_pcie_half_on_links_from;
  /// The bus bandwidth NCCL's socket transport (TCP) gives on this port, as
  /// [from, to]: a log that names no transport and lands in it is most likely
  /// a fallback off RDMA. Unset when never measured.
  std::optional<std::pair<BitRate, BitRate>> socket_fallback;
  std::string source;
};

/// What one preflight finding costs on this node and how to fix it, as
/// measured by someone who hit it (models/nodes/*.yaml `preflight.findings`).
struct PreflightFinding {
  std::string cost;    ///< "nccl-tests bus bandwidth 98 Gb/s instead of 161 Gb/s"
  std::string source;  ///< where the measurement is published
  std::string fix;     ///< the node's own fix (a Spark's BIOS update, say)
  /// The measured rates behind `cost`, when it is a rate: what the fault
  /// gave and what the same hardware gave without it.
  std::optional<BitRate> degraded;
  std::optional<BitRate> healthy;
};

/// The fabric settings a node needs to reach its measured rates, and what
/// each known fault costs there (docs/preflight.md). The PCIe link each half
/// should train at is `host_links` (pcie_gen, lanes).
struct NodePreflight {
  int interface_mtu = 0;     ///< bytes, each fabric interface (DGX Spark: 9000)
  int roce_mtu = 0;          ///< bytes, the active RoCE path MTU (4096)
  std::string nccl_release;  ///< the NCCL release measured at full rate ("2.28.9")
  /// Keyed by finding: one_device, mtu, gid_index, pcie_link, nccl_build, memlock.
  std::vector<std::pair<std::string, PreflightFinding>> findings;

  [[nodiscard]] const PreflightFinding* finding(std::string_view key) const;
};

/// What a KV connector (NIXL over UCX) measured moving a buffer from one
/// node to another of this kind: the most a prefill/decode hand-off gets,
/// whatever the fabric carries for NCCL.
struct KvConnectorRate {
  BitRate host_memory;  ///< host (pinned DRAM) buffers on both sides
  /// GPU-allocated buffers on both sides (staged through bounce buffers on a
  /// node without GPUDirect RDMA); 0 when not measured.
  BitRate gpu_memory;
  std::string source;
};

struct NodeSpec {
  std::string name;  ///< "dgx-spark"
  std::string description;
  std::string source;
  Bytes memory;              ///< installed (128 GB)
  BitRate memory_bandwidth;  ///< 273 GB/s, as a BitRate (bytes_per_second() reads it)
  Bytes usable_memory;       ///< left to applications by the OS (121 GB)
  /// Of the usable memory, what a deployment leaves to the OS and the rest of
  /// the system (DGX Spark: 9 GB in the study); 0 when not stated.
  Bytes reserved_memory;
  /// The GPU and the host share one memory (DGX Spark's 128 GB): pinned host
  /// memory then counts against the same budget as the GPU's.
  bool unified_memory = false;
  std::string nic;  ///< "ConnectX-7"
  /// Absent when no KV connector was measured between two such nodes: the
  /// hand-off is then priced on the fabric profile alone.
  std::optional<KvConnectorRate> kv_connector;
  NodePorts ports;
  HostLinks host_links;
  BitRate network_limit;  ///< the NIC's total over all ports (0: none stated)
  /// NCCL's buffers on this node; absent when never measured, and then the
  /// memory fit cannot price them.
  std::optional<NcclMemoryProfile> nccl_memory;
  /// Small all-reduce latency of a healthy fabric; absent when never measured.
  std::optional<SmallAllReduceLatency> small_allreduce_latency;
  /// The port's known faults by bus bandwidth; absent when none was measured,
  /// and then `doctor` judges only the share of the link.
  std::optional<BusBandwidthFaults> bus_bandwidth_faults;
  /// Absent for a node whose fabric settings nobody stated: preflight then
  /// judges only what needs no threshold.
  std::optional<NodePreflight> preflight;
  /// What public serving runs achieved on this node; absent for a node
  /// nobody measured, and then a prediction needs the user's own.
  std::optional<ExpectedRates> expected;
  std::vector<std::string> notes;

  /// What the node can move in total however it is cabled:
  /// min(ports x rate, host links x usable, network_limit). DGX Spark: 200 Gb/s.
  [[nodiscard]] BitRate network_rate() const;
};

/// The node every command assumes unless a request's `node` says otherwise.
inline constexpr std::string_view kDefaultNodeName = "dgx-spark";

}  // namespace tpnet
