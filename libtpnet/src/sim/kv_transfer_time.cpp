#include "tpnet/sim/kv_transfer_time.hpp"

#include <algorithm>

#include "tpnet/base/error.hpp"

namespace tpnet {

KvTransferTime kv_transfer_time(const FabricProfile& profile, const KvTransfer& transfer,
                                const NodeSpec& node, Seconds per_region) {
  require_field(per_region.value() >= 0.0, "disaggregation.per_region",
                "must be a time of at least 0 s");
  KvTransferTime out;
  const Bytes busier = std::max(transfer.per_prefill_rank, transfer.per_decode_rank);
  // A point-to-point transfer is one step of a two-rank all-gather.
  out.wire = fabric_allgather(profile, busier, 2);
  // The connector moves host buffers slower than NCCL moves its own: what it
  // measured between two such nodes bounds the hand-off.
  if (node.kv_connector) {
    const Seconds connector = busier / node.kv_connector->host_memory;
    if (connector > out.wire) {
      out.wire = connector;
      out.connector_bound = true;
    }
  }
  out.host_staged = node.unified_memory;
  if (out.host_staged && node.memory_bandwidth.bits_per_second() > 0.0) {
    const double read_and_write = 2.0;
    out.staging = (transfer.per_prefill_rank + transfer.per_decode_rank) * read_and_write /
                  node.memory_bandwidth;
  }
  out.regions = per_region * static_cast<double>(transfer.descriptors_per_decode_rank);
  out.total = out.wire + out.staging + out.regions;
  return out;
}

}  // namespace tpnet
