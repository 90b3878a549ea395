#pragma once
/// Decode over a slower link: small per-request blocks, latency-bound
/// all-reduces, and a weight-read floor that dwarfs the transfer time
/// (docs/background.md s.3, docs/formulas.md s.6).

#include <optional>
#include <string>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/allreduce_time.hpp"
#include "tpnet/fabric/collective_settings.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/nccl_model.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/fabric/profiled_link.hpp"
#include "tpnet/measured/point_estimate.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/sim/decode_floor.hpp"
#include "tpnet/traffic/collective.hpp"
#include "tpnet/usecase/calibration_use.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet {

struct DecodeInputs {
  int requests = 1;  ///< running requests in one decode forward
  /// Memory bandwidth each node reads its weights at: the node catalog's
  /// (NodeSpec::memory_bandwidth) unless replaced; must be set.
  BitRate memory_bandwidth;
  /// The cluster's NCCL settings: what prices the all-reduces' and the
  /// logits gather's fixed latency.
  CollectiveSettings collective = {};
};

struct DecodeReport {
  TokenCount tokens_per_forward = 0;  ///< requests x (1 + draft tokens)
  AllReduceTraffic allreduce;
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
  /// One request's decode speed, at most (docs/formulas.md s.6, "Decode
  /// speed per request"): its tokens per forward (1 + draft tokens) over the
  /// weight-read floor plus the forward's bytes at each link. A forward also
  /// computes and waits on every collective's fixed latency, so it is slower.
  double request_tokens_per_s_bound_from = 0.0;
  double request_tokens_per_s_bound_to = 0.0;
  /// The same with latency_per_forward added: the floor, the bytes and the
  /// collectives' modelled fixed latency, still without compute.
  double request_tokens_per_s_with_latency_from = 0.0;
  double request_tokens_per_s_with_latency_to = 0.0;
  BitRate memory_bandwidth;  ///< what the floor reads the weights at
  /// With a calibration: one forward priced from the measured curve, and
  /// what the slower link adds as a share of the weight-read floor.
  std::optional<DecodePoint> point;
  std::optional<double> point_added_share;
  /// With fabric profiles: one forward's collectives (the all-reduces and the
  /// logits all-gather) priced on each link's profile, as tpnet predict
  /// prices a decode step (docs/formulas.md s.23).
  struct FabricForward {
    Seconds comm_from;
    Seconds comm_to;
    Seconds added;             ///< comm_to - comm_from
    double added_share = 0.0;  ///< of the weight-read floor
  };
  std::optional<FabricForward> fabric;
  std::optional<CalibrationUse> calibration;
  std::vector<std::string> warnings;
};

/// The formulas of one decode forward (docs/formulas.md s.6). Throws
/// InputError naming `workload.decode_requests` or `memory.memory_bandwidth`.
[[nodiscard]] DecodeReport analyze_decode(const ModelArch& model, const EngineConfig& engine,
                                          const Link& from, const Link& to,
                                          const DecodeInputs& inputs);

/// Everything `tpnet decode` answers depends on.
struct DecodeRequest {
  ModelArch model;
  EngineConfig engine;
  /// Both links, each with its profile (`fabric`); a profile unset on
  /// either: no fabric estimate.
  ProfiledLink from;
  ProfiledLink to;
  CollectiveSettings collective;  ///< the cluster's NCCL settings, for both links
  int requests = 1;               ///< workload.decode_requests
  NodeSpec node;                  ///< its memory bandwidth, unless memory_bandwidth is set
  std::optional<BitRate> memory_bandwidth;  ///< memory.memory_bandwidth
  std::optional<CalibrationInput> calibration;
};

/// analyze_decode with the node's bandwidth, plus the point estimate from a
/// calibration (its compute section is not used: decode has no prompt).
[[nodiscard]] DecodeReport run_decode(const DecodeRequest& request);

/// The traffic of one forward at both links against the weight-read floor,
/// NCCL's pick and candidates, the explanation, and with a calibration or
/// fabric profiles their estimate of the forward: every key of
/// `tpnet decode`'s JSON (docs/json.md).
[[nodiscard]] Document decode_document(const DecodeRequest& request, const DecodeReport& report);

}  // namespace tpnet
