#pragma once
/// `tpnet models show`: one model's shapes beside its parameter estimate, and
/// per TP size the weights each node holds (as the memory fit counts them),
/// the bytes each node sends per prompt token, and whether vLLM accepts the TP.

#include <optional>
#include <string>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/model/params.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet {

struct ModelTpRow {
  int tp = 0;
  Bytes weights_per_node;     ///< weight_memory(model, TP).per_node()
  Bytes per_token_bytes;      ///< with the default engine settings; 0 at TP1
  bool heads_divide = false;  ///< tp_divides_heads
};

/// One part of the weights at the precision the checkpoint stores it.
struct WeightPartRow {
  WeightPart part = WeightPart::attention;
  double bits = 0.0;        ///< ModelArch::bits_of
  Bytes model_bytes;        ///< the whole model's
  Bytes node_bytes_at_tp8;  ///< what one node of TP8 holds of it
};

/// Prefill compute of the whole model (TP1) for one prompt from an empty KV
/// cache: the weight GEMMs against the token mixing (docs/formulas.md s.18.1).
struct PrefillComputeRow {
  TokenCount prompt_tokens = 0;
  double gemm_flops_per_token = 0.0;   ///< total_flops(prefill_gemm_shapes) per token
  double mixer_flops_per_token = 0.0;  ///< prefill_mixer_flops(...).total() per token
  [[nodiscard]] double mixer_share() const {
    const double sum = gemm_flops_per_token + mixer_flops_per_token;
    return sum > 0.0 ? mixer_flops_per_token / sum : 0.0;
  }
};

/// DeepSeek-V4's compressed attention: its layers by how many tokens each
/// compresses to one (CompressedAttentionSpec::compress_ratios).
struct CompressedLayerCounts {
  long long window_only = 0;  ///< ratio 0 or 1: the sliding window alone
  long long ratio_4 = 0;
  long long ratio_128 = 0;
};

struct ModelSummary {
  ModelArch model;
  LayerTally layers;                        ///< tally_layers: mixers and FFNs by kind
  CompressedLayerCounts compressed_layers;  ///< all 0 without compressed attention
  ParamEstimate estimate;
  double effective_bits = 0.0;       ///< effective_bits_per_weight
  std::vector<WeightPartRow> parts;  ///< empty when the shapes do not place the parts
  std::vector<ModelTpRow> per_tp;    ///< TP1, 2, 4, 8, 16
  /// Prompts of 4K, 32K and 128K tokens; empty when the model does not
  /// state the shapes the GEMMs or the mixers need (the reason in
  /// prefill_compute_missing).
  std::vector<PrefillComputeRow> prefill_compute;
  std::string prefill_compute_missing;
  std::vector<std::string> warnings;  ///< the model's doubts (ModelArch::doubts)
};

[[nodiscard]] ModelSummary summarize_model(const ModelArch& model);

/// The model, its shapes (the layer plan run by run), its stated and
/// estimated parameters, its weights per node at each TP and by part, and
/// its prefill compute: every key of `tpnet models show`'s JSON
/// (docs/json.md).
[[nodiscard]] Document model_summary_document(const ModelSummary& summary);

/// `tpnet models`: one row a model (its size, attention, parameters and
/// whether predict can price it), in the order given; no title, which the
/// caller words.
[[nodiscard]] Document model_catalog_document(const std::vector<ModelArch>& models);

/// Why prefill compute (and so `tpnet predict`) cannot price `model`.
struct MissingShape {
  std::string key;     ///< the first model key it lacks ("mla")
  std::string reason;  ///< the whole refusal, as predict gives it
};

/// The first shape prefill compute lacks; nullopt when every GEMM and
/// token-mixing shape is stated.
[[nodiscard]] std::optional<MissingShape> prefill_compute_missing(const ModelArch& model);

}  // namespace tpnet
