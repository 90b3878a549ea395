#pragma once
/// Parallel layouts beyond plain TP: pipeline stages (PP) and MoE expert
/// parallelism (EP), and what each sends per forward pass.
/// Assumptions and derivations: docs/formulas.md s.9.

#include <string>
#include <utility>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// tp ranks share each layer; pp stages split the layers; ep ranks share the
/// routed experts of each MoE layer (vLLM's --enable-expert-parallel with data
/// parallel attention: ep = tp x dp). Nodes per instance: pp x max(tp, ep).
struct ParallelLayout {
  int tp = 1;
  int pp = 1;
  int ep = 1;

  [[nodiscard]] int data_parallel() const { return ep > tp ? ep / tp : 1; }
  [[nodiscard]] int nodes() const { return pp * tp * data_parallel(); }
  [[nodiscard]] std::string name() const;  ///< "TP8", "TP4xPP2", "TP2xEP8"
};

/// Throws InputError naming layout.tp/pp/ep when a layout is impossible for
/// the model: sizes below 1, PP over more stages than layers, EP on a dense
/// model, EP not a multiple of TP.
void validate_layout(const ParallelLayout& layout, const ModelArch& model);

/// vLLM's reason for refusing tensor parallelism `tp` for the model, or ""
/// when it accepts it: TP must divide the attention heads; the KV heads
/// (without MLA) must divide by TP, or TP by them (replicated); TP must
/// divide the linear-attention heads.
[[nodiscard]] std::string tp_refusal(const ModelArch& model, int tp);

/// Throws InputError naming `layout.tp` with tp_refusal's reason when vLLM
/// refuses `tp` for the model: the one check of the commands whose answer
/// is a run of vLLM (predict, check, report). The bounds (bytes, penalty,
/// memory, compare's grid) warn instead and still answer.
void require_tp_accepted(const ModelArch& model, int tp);

/// True when vLLM accepts `tp` for the model (tp_refusal is empty).
[[nodiscard]] bool tp_divides_heads(const ModelArch& model, int tp);

/// vLLM's split of `layers` over `pp` stages, as [first, last) per stage.
[[nodiscard]] std::vector<std::pair<int, int>> stage_layers(int layers, int pp);

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
