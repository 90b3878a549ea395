#pragma once
/// `tpnet models show`: one model's shapes beside its parameter estimate, and
/// per TP size the weights each node holds (as the memory fit counts them),
/// the bytes each node sends per prompt token, and whether vLLM accepts the TP.

#include <vector>

#include "tpnet/model/model.hpp"
#include "tpnet/model/params.hpp"
#include "tpnet/units.hpp"

namespace tpnet {

struct ModelTpRow {
  int tp = 0;
  Bytes weights_per_node;     ///< weight_memory(model, TP).per_node()
  Bytes per_token_bytes;      ///< with the default engine settings; 0 at TP1
  bool heads_divide = false;  ///< tp_divides_heads
};

struct ModelSummary {
  ModelArch model;
  ParamEstimate estimate;
  std::vector<ModelTpRow> per_tp;  ///< TP1, 2, 4, 8, 16
};

[[nodiscard]] ModelSummary summarize_model(const ModelArch& model);

}  // namespace tpnet
