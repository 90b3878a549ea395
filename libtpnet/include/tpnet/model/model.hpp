#pragma once
/// A model: its layer plan (tpnet/model/layer_plan.hpp), the widths around
/// it (hidden size, vocabulary), its stated parameter counts and the
/// precision its weights are stored in. What a forward sends, reads and
/// caches derives from the plan.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/limits.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/model/layer_plan.hpp"

namespace tpnet {

/// The parts of a model's weights a checkpoint may store at different
/// precisions (a quantization that leaves some modules in BF16).
enum class WeightPart {
  embedding,  ///< the input embedding table
  lm_head,    ///< the output head
  attention,  ///< the mixers: attention, linear-attention and Mamba-2 projections, the DSA indexer
  dense_ffn,  ///< dense FFNs
  routed_experts,  ///< routed experts
  shared_experts,  ///< shared experts
  router,          ///< expert gates
  /// a latent MoE's projections into and out of the experts' width (every
  /// token reads them, every rank holds them whole)
  latent_projections,
};

/// Every part, in the order above.
inline constexpr WeightPart kWeightParts[] = {
    WeightPart::embedding, WeightPart::lm_head,           WeightPart::attention,
    WeightPart::dense_ffn, WeightPart::routed_experts,    WeightPart::shared_experts,
    WeightPart::router,    WeightPart::latent_projections};

/// "embedding", "lm_head", "attention", "dense_ffn", "routed_experts", "shared_experts",
/// "router", "latent_projections"
[[nodiscard]] std::string_view to_string(WeightPart part);

/// Where a model's lookup tables live while it serves.
enum class TablePlacement {
  gpu,   ///< in GPU memory, with the weights
  host,  ///< in pinned host memory (on a unified-memory node, the same memory)
  disk,  ///< on local NVMe, the rows a forward needs staged before it
};
/// "gpu", "host", "disk"
[[nodiscard]] std::string_view to_string(TablePlacement placement);

/// Lookup tables outside the transformer's matrices (DeepSeek's Engram):
/// read by row, never multiplied, so they need not live in GPU memory. Each
/// rank holds its 1/(tp x pp) of the rows (docs/formulas.md s.12.11).
struct EngramSpec {
  Bytes table_bytes;  ///< the whole model's tables
  /// Of each rank's tables, the share a host placement pins in host memory;
  /// the rest stays in GPU memory.
  double host_share = 1.0;
  TablePlacement placement = TablePlacement::host;  ///< as deployed: the default
};

struct ModelArch {
  std::string name;         ///< catalog name, e.g. "glm-5.3"
  std::string description;  ///< one line for listings
  std::string source;       ///< where the numbers come from

  long long hidden_size = 0;
  long long vocab_size = 0;
  /// The layers, each with its own mixer and FFN shapes: the model.
  LayerPlan layers;
  int mtp_layers = 0;  ///< multi-token-prediction layers (num_nextn_predict_layers)
  /// DeepSeek-V4's hyper-connections: the residual stream is this many
  /// copies, mixed around every mixer and FFN; 0 = none.
  int hyper_connections = 0;
  bool tie_word_embeddings = false;  ///< LM head shares the input embedding
  /// Gemma 4's per-layer inputs: a second embedding table of
  /// per_layer_input_vocab rows, each layers x per_layer_input_width wide,
  /// and per layer a gate (hidden -> width) and a projection back; 0 = none.
  long long per_layer_input_width = 0;
  long long per_layer_input_vocab = 0;

  double total_params = 0.0;   ///< all weights
  double active_params = 0.0;  ///< weights read per token (= total for dense models)
  double bits_per_weight = 16.0;
  /// Bits per weight of the parts stored otherwise than bits_per_weight: the
  /// modules a quantization leaves out, or a mixed-precision map's mean over
  /// the part's layers. A part not listed is at bits_per_weight.
  std::map<WeightPart, double> part_bits;
  /// Bits per weight of the MTP layers when the checkpoint leaves them out of
  /// its quantization; 0 = the main layers' mean (weights.hpp).
  double mtp_bits_per_weight = 0.0;
  std::string torch_dtype;   ///< checkpoint dtype, e.g. "bfloat16"; empty = unknown
  std::string quantization;  ///< checkpoint format, e.g. "fp8", "mxfp4"; empty = none

  /// Values not stated by the model's source, with why they were chosen.
  std::map<std::string, std::string> assumptions;
  /// What the model's files leave in doubt, for every command that uses it to
  /// warn about (keys the reader did not read, a per-layer indexer it reads
  /// as its own).
  std::vector<std::string> warnings;
  /// A doubt about the precision alone (a checkpoint named NVFP4 whose files
  /// state no quantization): asking for a precision settles it.
  std::string precision_doubt;

  /// Engram tables beside the weights; absent for a model without them.
  std::optional<EngramSpec> engram;
  /// KV cache one token adds on every rank, as a deployment measured it, for
  /// a model whose attention shapes are not stated (memory.kv_bytes_per_token
  /// replaces it; the architecture's shapes, when stated, come first).
  std::optional<Bytes> kv_bytes_per_token;

  /// Layers in the plan.
  [[nodiscard]] int num_layers() const { return layers.size(); }
  /// part_bits' entry for `part`, else bits_per_weight.
  [[nodiscard]] double bits_of(WeightPart part) const;
  /// Every doubt to warn about: the warnings, then the precision doubt.
  [[nodiscard]] std::vector<std::string> doubts() const;
};

/// The model's layers by kind (tally_layers of its plan).
[[nodiscard]] inline LayerTally tally_layers(const ModelArch& model) {
  return tally_layers(model.layers);
}

}  // namespace tpnet
