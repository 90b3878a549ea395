#pragma once
/// The model layer by layer: each layer's mixer and FFN (docs/models.md,
/// "The layer plan"). Parameters, all-reduces per forward, pipeline stages
/// and the KV cache count their layers here.

#include <string_view>
#include <utility>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// model.layers when the model states them; else the layers its counts
/// imply: the first moe.first_dense_layers dense and the rest MoE (all dense
/// without MoE), linear-attention and sliding-window layers spread evenly
/// among full-attention ones. Where counts alone say a layer's kind, its
/// position is a convention: it matters only to which pipeline stage holds it.
[[nodiscard]] std::vector<LayerSpec> layer_plan(const ModelArch& model);

/// The width of a dense FFN layer: its own, else the model's intermediate_size.
[[nodiscard]] long long dense_width(const ModelArch& model, const LayerSpec& layer);

/// The dense FFN widths of a model's layers with how many layers have each,
/// in order of first appearance.
[[nodiscard]] std::vector<std::pair<long long, int>> dense_widths(const ModelArch& model);

/// Layers from Nemotron-H's hybrid_override_pattern letters, one layer each:
/// M a Mamba-2 mixer alone, * attention alone, - a dense MLP alone, E a MoE
/// alone. Throws InputError at `where` naming a letter outside these.
[[nodiscard]] std::vector<LayerSpec> layers_from_block_pattern(std::string_view pattern,
                                                               const InputLocation& where);

/// How many layers of each kind lie in [begin, end) of a plan.
struct LayerTally {
  int layers = 0;
  int attention = 0;  ///< full attention (MHA, GQA, MLA, sparse)
  int sliding = 0;
  int linear = 0;
  int mamba = 0;
  int cross = 0;  ///< cross-attention to an encoder's tokens
  int no_mixer = 0;
  int dense = 0;
  int moe = 0;
  int no_ffn = 0;
  int reduced_blocks = 0;  ///< mixers and FFNs present: one all-reduce each under TP
};

[[nodiscard]] LayerTally tally_layers(const std::vector<LayerSpec>& plan, int begin, int end);
[[nodiscard]] LayerTally tally_layers(const ModelArch& model);

/// Whether the layers differ from attention + FFN in every layer, so that an
/// all-reduce count of 2 per layer would be wrong for them.
[[nodiscard]] bool has_single_block_layers(const ModelArch& model);

}  // namespace tpnet
