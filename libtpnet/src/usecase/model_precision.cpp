#include "tpnet/usecase/model_precision.hpp"

#include "tpnet/base/error.hpp"
#include "tpnet/model/quantization.hpp"

namespace tpnet {

ModelArch at_precision(ModelArch model, const PrecisionAsk& ask) {
  if (!ask.quantization.empty() && ask.bits_per_weight) {
    // Applied one after the other, the second would silently win.
    throw InputError("give `model.quantization` or `model.bits_per_weight`, not both",
                     InputLocation::for_key("model.quantization"));
  }
  if (!ask.quantization.empty()) {
    apply_quantization(
        model, parse_quantization(ask.quantization, InputLocation::for_key("model.quantization")));
  }
  if (ask.bits_per_weight) apply_bits_per_weight(model, *ask.bits_per_weight);
  // The precision asked for settles what the files left in doubt about it.
  if (ask.any()) model.precision_doubt.clear();
  return model;
}

}  // namespace tpnet
