#include "tpnet/traffic/bytes_per_token.hpp"

#include <algorithm>
#include <string>

#include "tpnet/base/checked_math.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/model/layout.hpp"

namespace tpnet {

int layer_allreduces(const ModelArch& model, const EngineConfig& engine, int begin, int end) {
  const LayerTally t = tally_layers(model.layers, begin, end);
  return engine.allreduces_per_layer ? t.layers * *engine.allreduces_per_layer : t.reduced_blocks;
}

int allreduces_per_forward(const ModelArch& model, const EngineConfig& engine) {
  return layer_allreduces(model, engine, 0, model.num_layers()) +
         engine.extra_allreduces_per_forward;
}

Bytes activation_block(const ModelArch& model, const EngineConfig& engine, TokenCount tokens) {
  // A whole number of bytes, multiplied in checked 64-bit integers.
  const long long values =
      checked_mul(tokens, model.hidden_size, "activation values (tokens x hidden size)");
  return Bytes(static_cast<double>(checked_mul(values, engine.activation_bytes,
                                               "activation block (tokens x hidden size x bytes)")));
}

Bytes bytes_per_prompt_token(const ModelArch& model, const EngineConfig& engine) {
  return activation_block(model, engine, 1) * allreduces_per_forward(model, engine) *
         allreduce_sent_factor(engine.tensor_parallel_size, engine.algorithm);
}

void require_network_tp(const EngineConfig& engine) {
  if (engine.tensor_parallel_size < 2) {
    throw InputError(std::to_string(engine.tensor_parallel_size) +
                         " is not allowed here; use 2 or more (TP1 sends nothing over the "
                         "network)",
                     InputLocation::for_key("layout.tp"));
  }
  validate(engine);
}

std::vector<std::string> layout_warnings(const ModelArch& model, const EngineConfig& engine) {
  std::vector<std::string> warnings;
  const int tp = engine.tensor_parallel_size;
  if (std::string refusal = tp_refusal(model, tp); !refusal.empty()) {
    warnings.push_back(std::move(refusal));
  }
  return warnings;
}

}  // namespace tpnet
