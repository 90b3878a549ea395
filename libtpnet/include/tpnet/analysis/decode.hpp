#pragma once
/// Decode over a slower link: small per-request blocks, latency-bound
/// all-reduces, and a weight-read floor that dwarfs the transfer time
/// (DOMAIN.md s.3, docs/formulas.md s.6).

#include <optional>
#include <string>
#include <vector>

#include "tpnet/fabric/collective.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/nccl_model.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/units.hpp"

namespace tpnet {

struct DecodeInputs {
  int requests = 1;  ///< running requests in one decode forward
  /// Memory bandwidth each node reads its weights at (DGX Spark: 273 GB/s).
  BitRate memory_bandwidth = BitRate::gigabytes_per_second(273.0);
};

struct DecodeReport {
  TokenCount tokens_per_forward = 0;  ///< requests x (1 + draft tokens)
  AllReducePlan allreduce;
  int allreduces_per_forward = 0;
  Seconds transfer_from;  ///< one all-reduce's bytes at the `from` rate
  Seconds transfer_to;
  Seconds allreduce_latency;           ///< fixed alpha, priced at `from`
  AllReduceLatency allreduce_pricing;  ///< how: NCCL's pick at `from`, or the override
  /// What NCCL would pick at `from` left alone (every algorithm and protocol
  /// allowed), to compare with the pick the report assumes.
  NcclChoice nccl_unpinned;
  CommRegime regime = CommRegime::latency_bound;  ///< at the slower link
  Bytes allreduce_forward_bytes;                  ///< all all-reduces of one forward
  Bytes logits_sent;                              ///< all-gather of vocab-parallel logits
  Bytes forward_sent;                             ///< both together
  Bytes weight_bytes_per_node;                    ///< active params x bits / 8 / TP
  Seconds weight_read_floor;                      ///< weight bytes / memory bandwidth
  BitRate traffic_ceiling;                        ///< forward_sent over the floor
  Seconds max_added_per_forward;                  ///< forward_sent x 8 x (1/to - 1/from)
  double max_added_share = 0.0;                   ///< of the weight-read floor
  Seconds gather_latency;                         ///< the logits all-gather's fixed latency
  std::optional<NcclChoice> gather_nccl;          ///< its NCCL pick (ring); nullopt under override
  Seconds latency_per_forward;                    ///< alpha x all-reduces + gather latency
  std::vector<std::string> warnings;
};

[[nodiscard]] DecodeReport analyze_decode(const ModelArch& model, const EngineConfig& engine,
                                          const Link& from, const Link& to,
                                          const DecodeInputs& inputs);

}  // namespace tpnet
