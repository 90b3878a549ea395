#pragma once
/// NCCL's own cost model for an all-reduce: the latency and bandwidth its
/// tuner gives each (algorithm, protocol) pair, and the pair it picks.
/// Constants: NCCL 2.28.3, src/graph/tuning.cc. Derivation and worked
/// numbers: docs/formulas.md s.20.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/model/engine.hpp"

namespace tpnet {

/// NCCL's wire protocols. LL: 8-byte lines (4 data + 4 flag), lowest latency,
/// half the bandwidth. LL128: 128-byte lines with 8 flag bytes. Simple: bulk
/// copies behind fences, highest latency, full bandwidth.
enum class NcclProtocol { ll, ll128, simple };

/// "LL", "LL128", "Simple": NCCL's own spelling.
[[nodiscard]] std::string_view to_string(NcclProtocol protocol);
/// One protocol name, case-insensitive as NCCL_PROTO reads it.
NcclProtocol parse_nccl_protocol(std::string_view text, const InputLocation& where);
/// `auto` (all three), or an NCCL_PROTO-style list: `LL`, `LL,LL128`, `^LL128`.
std::vector<NcclProtocol> parse_nccl_protocols(std::string_view text, const InputLocation& where);
/// `auto` (tree and ring), or an NCCL_ALGO-style list: `ring`, `Tree,Ring`, `^tree`.
std::vector<CollectiveAlgorithm> parse_nccl_algorithms(std::string_view text,
                                                       const InputLocation& where);

/// The CPU vendor NCCL detects; it sets the network overhead per ring step and,
/// across nodes, the row of the LL bandwidth cap.
enum class CpuVendor { arm, intel, amd };
[[nodiscard]] std::string_view to_string(CpuVendor vendor);

/// How GPUs inside one node reach each other (only matters with several GPUs a node).
enum class IntraNodeLink { pci, nvlink };

/// The constants of NCCL's tuning model. Latencies in microseconds, bandwidths
/// in GB/s (10^9 B/s), as tuning.cc writes them. Index order follows NCCL:
/// algorithm [tree, ring], protocol [LL, LL128, Simple], column [1 node,
/// 2 nodes, more], architecture [Volta, Ampere, Hopper, Blackwell].
struct NcclTuningConstants {
  std::string_view source;  ///< where the numbers come from, for reports
  double base_latency_us[2][3];
  double net_latency_us[2][3];     ///< hwLat[NET]: one step across the network
  double pci_latency_us[2][3];     ///< hwLat[PCI]: one step inside a node over PCIe
  double nvlink_latency_us[2][3];  ///< hwLat[NVLINK]
  /// llMaxBws: rows 0-3 by architecture on one node; across nodes row 0 for
  /// Intel/Arm CPUs and row 1 for AMD.
  double ll_max_bw[4][3];
  double ring_ll128_max_bw_per_channel[4][3];
  double tree_ll128_max_bw_per_channel[4][3];
  double tree_max_bw_per_channel[4][3];
  /// treeCorrectionFactor[protocol][log2(bytes / 64)] for 64 B to 256 MiB.
  double tree_correction[3][23];
  double ring_ll_efficiency;              ///< LL moves 4 data bytes per 8
  double ring_ll128_efficiency;           ///< ~120 of 128 bytes
  double tree_efficiency;                 ///< tree all-reduce, any protocol
  double tree_ll_divisor;                 ///< tree LL: busBw / 3.8
  double tree_ll128_single_node;          ///< 7/9
  double tree_ll128_multi_node;           ///< 120/128
  double ring_simple_plateau;             ///< multi-node ring Simple latency x, cc >= 8.0
  double ring_simple_plateau_pre_ampere;  ///< the same below cc 8.0
  double net_overhead_us;                 ///< per ring step, Intel and Arm CPUs
  double net_overhead_amd_us;             ///< AMD CPUs
  double simple_net_overhead_factor;      ///< Simple posts three times as much per step
};

/// NCCL 2.28.3's constants (src/graph/tuning.cc); docs/formulas.md s.20 lists them.
[[nodiscard]] const NcclTuningConstants& nccl_2_28_tuning();

/// What NCCL's tuner knows about one communicator. Defaults describe DGX Sparks:
/// one GB10 GPU a node, both RDMA devices of a ConnectX-7 port.
struct NcclSetup {
  int ranks = 8;
  int nodes = 0;  ///< 0: one GPU per node (DGX Spark), so nodes = ranks
  /// nChannels x per-channel bandwidth: NCCL's busBw before its refinements.
  BitRate link_rate = BitRate::gigabits_per_second(200.0);
  int channels = 2;                  ///< one per RDMA device of a DGX Spark port
  double compute_capability = 12.1;  ///< GB10
  CpuVendor cpu = CpuVendor::arm;
  IntraNodeLink intra_node = IntraNodeLink::pci;
  /// Candidates the tuner may pick (NCCL_ALGO, NCCL_PROTO). LL128 is on: NCCL
  /// enables it by default for cc >= 9.0 when the GPU reaches its NIC within
  /// PXN, as a GB10 does (docs/formulas.md s.20).
  std::vector<CollectiveAlgorithm> algorithms{CollectiveAlgorithm::tree, CollectiveAlgorithm::ring};
  std::vector<NcclProtocol> protocols{NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple};
  /// NCCL_NET_OVERHEAD; unset: 1 us (Arm, Intel) or 2 us (AMD).
  std::optional<Seconds> net_overhead;
  /// Latency a net plugin reports for its transport; 0 for NCCL's own IB/RoCE.
  Seconds latency_inter;
  NcclTuningConstants tuning = nccl_2_28_tuning();
};

/// One (algorithm, protocol) pair as the tuner prices it.
struct NcclCost {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  NcclProtocol protocol = NcclProtocol::ll;
  /// false when the setup leaves the pair out (NCCL gives it bandwidth 0);
  /// its numbers are still filled in for comparison.
  bool enabled = true;
  Seconds latency;              ///< incl. the ring Simple plateau factor
  BitRate bus_bandwidth;        ///< after the protocol's refinements
  BitRate algorithm_bandwidth;  ///< bus x (ring: N / 2(N-1); tree: 1/2) x tree correction
  double tree_correction = 1.0;
  double plateau_factor = 1.0;
  Seconds time;  ///< latency + size / algorithm bandwidth
};

struct NcclChoice {
  NcclCost chosen;                   ///< the cheapest enabled candidate
  std::vector<NcclCost> candidates;  ///< all six: tree then ring; LL, LL128, Simple
};

/// Prices one all-reduce of `size` bytes (each rank's buffer). N = 1 costs
/// nothing. Throws InputError for a setup NCCL would not run (see validate).
[[nodiscard]] NcclCost nccl_allreduce_cost(Bytes size, const NcclSetup& setup,
                                           CollectiveAlgorithm algorithm, NcclProtocol protocol);

/// The tuner's pick: the lowest time among enabled candidates, the first
/// (tree before ring, LL before LL128 before Simple) on a tie, as NCCL
/// iterates. Throws InputError when nothing is enabled.
[[nodiscard]] NcclChoice choose_nccl_allreduce(Bytes size, const NcclSetup& setup);

/// A ring all-gather whose gathered result is `size` bytes (N-1 steps, same
/// latencies and refinements, no plateau). NCCL's PAT algorithm is left out.
[[nodiscard]] NcclCost nccl_allgather_cost(Bytes size, const NcclSetup& setup,
                                           NcclProtocol protocol);
/// The cheapest enabled protocol for that ring all-gather.
[[nodiscard]] NcclChoice choose_nccl_allgather(Bytes size, const NcclSetup& setup);

/// Throws InputError unless ranks >= 1, nodes divide ranks, channels >= 1, the
/// rate is positive, the compute capability is 6.0 or more, overheads are not
/// negative, and at least one algorithm and protocol are enabled.
void validate(const NcclSetup& setup);

/// "ring/LL": how reports name a pair.
[[nodiscard]] std::string describe(const NcclCost& cost);

}  // namespace tpnet
