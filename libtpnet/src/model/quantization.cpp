#include "tpnet/model/quantization.hpp"

#include <fmt/format.h>

#include "../base/ascii_case.hpp"
#include "tpnet/model/layer_plan.hpp"

namespace tpnet {

PrecisionChoice parse_quantization(std::string_view given, const InputLocation& where) {
  const std::string text = detail::lowercase(given);
  if (text == "nvfp4") return {"nvfp4", 4.5};
  if (text == "fp8") return {"fp8", 8.0};
  if (text == "mxfp4") return {"mxfp4", 4.25};
  if (text == "int4") return {"int4", 4.25};
  if (text == "bf16" || text == "fp16") return {text, 16.0};
  throw InputError(fmt::format("'{}' is not a quantization tpnet knows; use nvfp4, fp8, mxfp4, "
                               "int4, bf16 or fp16 (or a number of bits per weight)",
                               given),
                   where);
}

void apply_quantization(ModelArch& model, const PrecisionChoice& choice) {
  model.bits_per_weight = choice.bits;
  model.quantization = choice.bits >= 16.0 ? "" : choice.name;
  model.part_bits.clear();
  if (choice.bits < 16.0) {
    model.part_bits[WeightPart::embedding] = 16.0;
    model.part_bits[WeightPart::lm_head] = 16.0;
    model.part_bits[WeightPart::router] = 16.0;
    keep_unquantized_parts(model, 16.0);
  }
  model.assumptions["bits_per_weight"] = fmt::format(
      "asked for {}: {:g} bits per weight{}.", choice.name, choice.bits,
      choice.bits < 16.0 ? "; the embedding, the output head and the router stay at 16 bits" : "");
}

void keep_unquantized_parts(ModelArch& model, double dtype_bits) {
  if (!(model.bits_per_weight < dtype_bits)) return;
  for (const LayerRun& run : model.layers.runs()) {
    const FfnSpec& ffn = run.layer.ffn;
    if (ffn.kind == FfnKind::moe && ffn.moe.latent_size > 0 && ffn.moe.latent_unquantized) {
      model.part_bits[WeightPart::latent_projections] = dtype_bits;
      return;
    }
  }
}

void apply_bits_per_weight(ModelArch& model, double bits) {
  if (!(bits >= 1.0 && bits <= 64.0)) {
    throw InputError(fmt::format("{:g} is not allowed; use 1 to 64 bits per weight", bits),
                     InputLocation::for_key("model.bits_per_weight"));
  }
  model.bits_per_weight = bits;
  model.part_bits.clear();
  model.assumptions["bits_per_weight"] = fmt::format("asked for {:g} bits per weight.", bits);
}

}  // namespace tpnet
