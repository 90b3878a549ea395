#pragma once
/// What tensor parallelism sends: all-reduces per forward pass, the block of
/// each, and bytes per prompt token per node (docs/background.md s.2,
/// docs/formulas.md s.3).

#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/traffic/collective.hpp"

namespace tpnet {

/// The all-reduces of layers [begin, end): one per block of the layer plan
/// whose output is reduced (its mixer and its FFN), or layers x
/// allreduces_per_layer when that is set.
[[nodiscard]] int layer_allreduces(const ModelArch& model, const EngineConfig& engine, int begin,
                                   int end);

/// layer_allreduces over every layer + extra_allreduces_per_forward: 2L + 1
/// for attention + FFN layers, L + 1 for Nemotron-H's one-block layers.
[[nodiscard]] int allreduces_per_forward(const ModelArch& model, const EngineConfig& engine);

/// S(t) = t x hidden_size x activation_bytes. Independent of TP.
[[nodiscard]] Bytes activation_block(const ModelArch& model, const EngineConfig& engine,
                                     TokenCount tokens);

/// (allreduces per forward) x hidden x activation_bytes x sent factor(N).
[[nodiscard]] Bytes bytes_per_prompt_token(const ModelArch& model, const EngineConfig& engine);

/// One row of a TP scaling table, relative to a reference TP.
struct TpShare {
  int tp = 0;
  Bytes per_token_bytes;
  double bytes_vs_reference = 0.0;    ///< f(N) / f(ref)
  double compute_vs_reference = 0.0;  ///< ref / N: weights and FLOPs split N ways
};

struct BytesReport {
  int allreduces_per_forward = 0;
  Bytes per_token_bytes;
  double sent_factor = 0.0;
  AllReducePlan chunk_allreduce;  ///< one all-reduce of a full chunk
  Bytes chunk_forward_bytes;      ///< all all-reduces of a full-chunk forward pass
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
[[nodiscard]] BytesReport analyze_bytes(const ModelArch& model, const EngineConfig& engine,
                                        const Link& link, Seconds fixed_overhead);

/// Warnings about a TP size the model's heads do not divide evenly.
[[nodiscard]] std::vector<std::string> layout_warnings(const ModelArch& model,
                                                       const EngineConfig& engine);

/// Throws InputError unless 2 <= TP: a single node sends nothing.
void require_network_tp(const EngineConfig& engine);

}  // namespace tpnet
