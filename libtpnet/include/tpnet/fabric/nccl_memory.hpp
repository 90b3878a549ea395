#pragma once
/// NCCL's buffer memory on each rank, fitted to a node's two measured points
/// (NodeSpec::nccl_memory; DGX Spark: 37 GB with NCCL's 64 channels of 4 MiB
/// and 11 GB with 8 of 1 MiB, both at TP8). Derivation: docs/formulas.md s.12.2.
///
/// Model: fixed + channels x connections(N) x buffers_per_connection x buffsize,
/// with connections(N) = 2(N-1), a send and a receive connection to each peer.

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/node.hpp"

namespace tpnet {

/// Connections one rank holds per channel: a send and a receive to each of N-1 peers.
[[nodiscard]] constexpr double nccl_connections(int ranks) { return 2.0 * (ranks - 1); }

/// The model's two constants, solved from a profile's two points.
struct NcclFootprint {
  double buffers_per_connection = 0.0;  ///< DGX Spark: 7.1416
  Bytes fixed;                          ///< what no channel or buffer size changes: 10.16 GB
};

/// Solves the two points of `profile` for the model's constants.
[[nodiscard]] NcclFootprint nccl_footprint(const NcclMemoryProfile& profile);

/// NCCL's buffers on one rank of a communicator of `ranks` ranks; 0 for one
/// rank (no communicator). Throws InputError naming `memory.nccl_channels`
/// (1 to 64), `memory.nccl_buffsize` (up to 1 GiB) or `layout.tp`.
[[nodiscard]] Bytes nccl_buffer_bytes(const NcclMemoryProfile& profile, NcclBuffers buffers,
                                      int ranks);

}  // namespace tpnet
