#pragma once
/// The model layer by layer (docs/models.md, "The layer plan"): runs of
/// identical layers in order, each layer with its own mixer and FFN shapes.
/// It is the only description of a model's layers: parameters, all-reduces
/// per forward, pipeline stages, the KV cache, GEMM shapes and the mixer
/// compute all read it, and the counts shown beside it (layers, attention
/// heads, experts) are views of it.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tpnet/model/layer.hpp"

namespace tpnet {

/// `count` identical layers in a row.
struct LayerRun {
  int count = 0;
  LayerSpec layer;
  friend bool operator==(const LayerRun&, const LayerRun&) = default;
};

/// A model's layers in order, stored as runs of identical layers (a
/// 61-layer DeepSeek-V3 is two runs, Qwen3.5's 3:1 hybrid 32).
class LayerPlan {
 public:
  LayerPlan() = default;
  /// `count` copies of `layer` after the last layer; merged into the last
  /// run when it is the same layer.
  void append(const LayerSpec& layer, int count = 1);
  [[nodiscard]] int size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] const std::vector<LayerRun>& runs() const { return runs_; }
  /// Layer `index` (0-based); throws std::out_of_range outside the plan.
  [[nodiscard]] const LayerSpec& at(int index) const;
  /// Layers [begin, end) as a plan of their own (a pipeline stage's);
  /// clamped to the plan.
  [[nodiscard]] LayerPlan slice(int begin, int end) const;
  /// Every layer one by one (for readers that edit layers by index).
  [[nodiscard]] std::vector<LayerSpec> layers() const;
  /// The plan of `layers`, merging neighbours that are the same.
  [[nodiscard]] static LayerPlan of(const std::vector<LayerSpec>& layers);
  friend bool operator==(const LayerPlan&, const LayerPlan&) = default;

 private:
  std::vector<LayerRun> runs_;
  int size_ = 0;
};

/// How many layers of each kind a plan holds.
struct LayerTally {
  int layers = 0;
  int attention = 0;  ///< full attention (MHA, GQA, MLA, sparse; DeepSeek-V4's compressing layers)
  int sliding = 0;    ///< sliding-window attention (DeepSeek-V4's window-only layers)
  int chunked = 0;    ///< chunked local attention
  int linear = 0;
  int mamba = 0;
  int cross = 0;  ///< cross-attention to an encoder's tokens
  int no_mixer = 0;
  int dense = 0;
  int moe = 0;
  int no_ffn = 0;
  int reduced_blocks = 0;  ///< mixers and FFNs present: one all-reduce each under TP
};

[[nodiscard]] LayerTally tally_layers(const LayerPlan& plan);
/// Layers [begin, end) of the plan.
[[nodiscard]] LayerTally tally_layers(const LayerPlan& plan, int begin, int end);

/// Whether some layer has a single block (no mixer or no FFN), so that an
/// all-reduce count of 2 per layer would be wrong for it.
[[nodiscard]] bool has_single_block_layers(const LayerPlan& plan);

/// The attention shape a model is listed by: its first full-attention
/// layer's, else its first attention layer's of any span; nullptr when it
/// has no attention layer (a pure Mamba model).
[[nodiscard]] const AttentionSpec* first_attention(const LayerPlan& plan);
/// The first MoE layer's experts; nullptr for a dense model.
[[nodiscard]] const MoeSpec* first_moe(const LayerPlan& plan);
/// The first layer of `kind`'s mixer; nullptr when none has it.
[[nodiscard]] const MixerSpec* first_mixer(const LayerPlan& plan, Mixer kind);

/// The dense FFN widths of a plan's layers with how many layers have each,
/// in order of first appearance.
[[nodiscard]] std::vector<std::pair<long long, int>> dense_widths(const LayerPlan& plan);

/// The shape keys a plan's layers lack for counting their weights, in the
/// names model files use: "mla" (latent attention without its ranks),
/// "linear_attention", "mamba", "intermediate_size" (a dense FFN without a
/// width), "moe.expert_intermediate_size"; each once, in that order.
[[nodiscard]] std::vector<std::string> missing_shapes(const LayerPlan& plan);

/// How attention is built, as one word for listings: "compressed" when a
/// layer is DeepSeek-V4's, else "sparse" with a top-k selection, "mla",
/// "hybrid-linear" with linear or Mamba layers, "sliding-window" with
/// windowed or chunked layers, else "mha" (as many KV heads as query heads)
/// or "gqa". It summarises the plan; nothing is computed from it.
[[nodiscard]] std::string attention_label(const LayerPlan& plan);

/// The layer a multi-token-prediction module adds: a full-attention layer
/// with the model's last FFN (the last layer's that has one; eh_proj apart). Its mixer is the
/// plan's first full attention (DeepSeek-V4: window only, no compressor or indexer, as vLLM's MTP
/// layer runs it), else its first mixer.
[[nodiscard]] LayerSpec mtp_layer(const LayerPlan& plan);

/// The runs as one line each, for a person to hold against a model card:
/// "3 x [attention 64 q / 8 kv x 128, dense FFN 12288]".
[[nodiscard]] std::vector<std::string> describe_runs(const LayerPlan& plan);
/// One layer as `describe_runs` words it, without the count.
[[nodiscard]] std::string describe_layer(const LayerSpec& layer);

}  // namespace tpnet
