#pragma once
/// What bounds one decode forward from below: each node reading its share of
/// the active weights, and the logits' all-gather (docs/formulas.md s.6).

#include "tpnet/base/units.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// Bytes each node sends in the vocab-parallel LM head's ring all-gather of
/// the logits of `tokens` tokens: tokens x vocab x activation bytes x (N-1)/N.
[[nodiscard]] Bytes logits_gather_bytes(const ModelArch& model, const EngineConfig& engine, int tp,
                                        TokenCount tokens);

/// The least time one decode forward can take on a node: its share of the
/// active weights (active params at each part's bits / 8 / nodes) read at
/// `bandwidth`.
[[nodiscard]] Seconds weight_read_floor(const ModelArch& model, int nodes, BitRate bandwidth);

}  // namespace tpnet
