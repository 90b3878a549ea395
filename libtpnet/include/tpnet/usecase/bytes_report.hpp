#pragma once
/// `tpnet bytes`: what one forward pass sends per node, one full chunk's
/// all-reduce over a link and whether latency or bytes dominate it, and how
/// the bytes per token move from TP2 to TP16 (docs/formulas.md s.1-s.3, s.5).

#include <string>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/allreduce_time.hpp"
#include "tpnet/fabric/collective_settings.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/collective.hpp"

namespace tpnet {

struct BytesReport {
  int allreduces_per_forward = 0;
  Bytes per_token_bytes;
  double sent_factor = 0.0;
  AllReduceTraffic chunk_allreduce;  ///< one all-reduce of a full chunk
  Bytes chunk_forward_bytes;         ///< all all-reduces of a full-chunk forward pass
  Link link;
  Seconds chunk_allreduce_transfer;        ///< at `link`
  Seconds chunk_allreduce_latency;         ///< fixed part at `link`
  AllReduceLatency chunk_latency_pricing;  ///< how: NCCL's pick, or the user's override
  Seconds fixed_overhead;                  ///< a generous per-transfer overhead to compare with
  Bytes bytes_in_fixed_overhead;           ///< what `link` moves in that time
  CommRegime chunk_regime = CommRegime::bandwidth_bound;
  std::vector<TpShare> tp_scaling;  ///< TP2..TP16 against the engine's TP
  std::vector<std::string> warnings;
};

/// Throws InputError for TP < 2 (nothing crosses the network) or invalid settings.
/// `settings`: the cluster's NCCL settings, what prices the chunk's latency.
[[nodiscard]] BytesReport analyze_bytes(const ModelArch& model, const EngineConfig& engine,
                                        const Link& link, const CollectiveSettings& settings,
                                        Seconds fixed_overhead);

}  // namespace tpnet
