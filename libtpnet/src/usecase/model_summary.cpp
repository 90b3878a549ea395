#include "tpnet/usecase/model_summary.hpp"

#include <algorithm>

#include "tpnet/base/error.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/model/mixer_compute.hpp"
#include "tpnet/model/prefill_gemms.hpp"
#include "tpnet/model/weights.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"

namespace tpnet {

namespace {

CompressedLayerCounts count_compressed_layers(const ModelArch& model) {
  CompressedLayerCounts counts;
  for (const LayerRun& run : model.layers.runs()) {
    const AttentionSpec& a = run.layer.mixer.attention;
    if (!is_attention(run.layer.mixer.kind) || !a.compressed) continue;
    const int ratio = a.compression.ratio;
    (ratio <= 1 ? counts.window_only : ratio == 4 ? counts.ratio_4 : counts.ratio_128) += run.count;
  }
  return counts;
}

}  // namespace

ModelSummary summarize_model(const ModelArch& model) {
  ModelSummary s;
  s.model = model;
  s.warnings = model.doubts();
  s.layers = tally_layers(model.layers);
  s.compressed_layers = count_compressed_layers(model);
  s.estimate = estimate_params(model);
  s.effective_bits = effective_bits_per_weight(model);
  const WeightMemory whole = weight_memory(model, ParallelLayout{1, 1, 1});
  const WeightMemory tp8 = weight_memory(model, ParallelLayout{8, 1, 1});
  for (const auto& [part, bytes] : whole.model_bytes_by_part) {
    Bytes node;
    for (const auto& [p, b] : tp8.node_bytes_by_part) {
      if (p == part) node = b;
    }
    s.parts.push_back(WeightPartRow{part, model.bits_of(part), bytes, node});
  }
  for (int tp : {1, 2, 4, 8, 16}) {
    EngineConfig engine;
    engine.tensor_parallel_size = tp;
    s.per_tp.push_back(ModelTpRow{tp, weight_memory(model, ParallelLayout{tp, 1, 1}).per_node(),
                                  bytes_per_prompt_token(model, engine),
                                  tp_divides_heads(model, tp)});
  }
  if (const auto missing = prefill_compute_missing(model)) {
    s.prefill_compute_missing = missing->reason;
  } else {
    const double gemm_per_token = total_flops(prefill_gemm_shapes(model, 1, 1));
    for (TokenCount prompt : {TokenCount{4096}, TokenCount{32768}, TokenCount{131072}}) {
      const double mixer = prefill_mixer_flops(model, 1, 0, prompt).total();
      s.prefill_compute.push_back(
          PrefillComputeRow{prompt, gemm_per_token, mixer / static_cast<double>(prompt)});
    }
  }
  return s;
}

std::optional<MissingShape> prefill_compute_missing(const ModelArch& model) {
  try {
    (void)prefill_gemm_shapes(model, 1, 1);
    (void)prefill_mixer_flops(model, 1, 0, 1);
  } catch (const InputError& e) {
    return MissingShape{e.where().key, e.what()};
  }
  return std::nullopt;
}

}  // namespace tpnet
