#pragma once
/// What one request's KV hand-off (tpnet/traffic/kv_transfer.hpp) costs in
/// time: the bytes on the fabric profile, the copies through host memory on a
/// node whose GPU shares its memory (a Spark: GPUDirect RDMA registration of
/// its memory fails, so the connector stages through pinned host buffers),
/// and a cost per region read (docs/formulas.md s.32). Not validated on a
/// Spark: no public measurement of a P/D transfer between Sparks exists that
/// tpnet knows of.

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/traffic/kv_transfer.hpp"

namespace tpnet {

struct KvTransferTime {
  /// The busier side's bytes (a prefill rank's send or a decode rank's
  /// receive) as one step on the profile, its fixed cost included, or at the
  /// node's measured KV connector rate when that is slower.
  Seconds wire;
  /// The node's measured KV connector rate (NodeSpec::kv_connector, host
  /// buffers) set `wire`: slower than the profile for these bytes.
  bool connector_bound = false;
  bool host_staged = false;
  /// Host staging: a copy out of the GPU's pool on the prefill node and into
  /// it on the decode node, each reading and writing its bytes at the node's
  /// memory bandwidth; 0 without staging.
  Seconds staging;
  Seconds regions;  ///< descriptors x the per-region cost
  Seconds total;    ///< wire + staging + regions, taken one after another
};

/// `per_region`: the cost of one more region read beyond its bytes (0 when
/// nothing measured it). Throws InputError naming `disaggregation.per_region`
/// when negative.
[[nodiscard]] KvTransferTime kv_transfer_time(const FabricProfile& profile,
                                              const KvTransfer& transfer, const NodeSpec& node,
                                              Seconds per_region);

}  // namespace tpnet
