#include "tpnet/analysis/model_summary.hpp"

#include "tpnet/analysis/bytes_per_token.hpp"
#include "tpnet/analysis/weights.hpp"
#include "tpnet/model/layout.hpp"

namespace tpnet {

ModelSummary summarize_model(const ModelArch& model) {
  ModelSummary s;
  s.model = model;
  s.estimate = estimate_params(model);
  for (int tp : {1, 2, 4, 8, 16}) {
    EngineConfig engine;
    engine.tensor_parallel_size = tp;
    s.per_tp.push_back(ModelTpRow{tp, weight_memory(model, ParallelLayout{tp, 1, 1}).per_node(),
                                  bytes_per_prompt_token(model, engine),
                                  tp_divides_heads(model, tp)});
  }
  return s;
}

}  // namespace tpnet
