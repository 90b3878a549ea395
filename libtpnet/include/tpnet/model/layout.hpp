#pragma once
/// Parallel layouts beyond plain TP: pipeline stages (PP) and MoE expert
/// parallelism (EP): which are valid for a model and which TP sizes vLLM takes
/// (what each sends is traffic/layout_traffic.hpp).
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
  [[nodiscard]] bool operator==(const ParallelLayout&) const = default;
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

}  // namespace tpnet
