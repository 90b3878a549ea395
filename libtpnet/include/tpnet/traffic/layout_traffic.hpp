#pragma once
/// What one forward pass of a TP x PP x EP layout sends per node: TP
/// all-reduces, EP all-to-alls and PP stage sends, and the steps on its
/// critical path (docs/formulas.md s.9).

#include "tpnet/base/units.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// Traffic of one forward pass of `tokens` tokens (per data-parallel group),
/// seen from the node of the stage that sends the most.
struct LayoutTraffic {
  ParallelLayout layout;
  TokenCount tokens = 0;
  int allreduces = 0;        ///< TP all-reduces on the busiest node's stage
  Bytes allreduce_bytes;     ///< their bytes sent per node
  int alltoall_phases = 0;   ///< EP dispatch + combine phases
  Bytes alltoall_bytes;      ///< their bytes sent per node
  int pp_boundaries = 0;     ///< stage boundaries a forward crosses
  Bytes pp_bytes;            ///< point-to-point bytes the busiest node sends
  Bytes total_bytes;         ///< all of the above, per node
  int sequential_steps = 0;  ///< latency-bound steps on the forward's critical path
  long long messages = 0;    ///< messages the busiest node sends
};

[[nodiscard]] LayoutTraffic layout_traffic(const ModelArch& model, const EngineConfig& engine,
                                           const ParallelLayout& layout, TokenCount tokens);

/// Bytes per prompt token per node for a layout (the layout's prefill traffic
/// for a full chunk, divided by the chunk).
[[nodiscard]] Bytes layout_bytes_per_token(const ModelArch& model, const EngineConfig& engine,
                                           const ParallelLayout& layout);

}  // namespace tpnet
