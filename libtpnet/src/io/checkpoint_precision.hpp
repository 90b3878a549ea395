#pragma once
// Private: how a quantized checkpoint stores each part of the model, from
// config.json's quantization_config or modelopt's hf_quant_config.json:
// the format's bits per weight (scale factors included), the modules it
// leaves out (exclude_modules, ignore, modules_to_not_convert) and, for
// MIXED_PRECISION, its per-module map (docs/models.md, "Quantization").

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json_value.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet::detail {

struct CheckpointPrecision {
  std::string quantization;                ///< "nvfp4", "fp8", "mxfp4", "awq", "gptq", "mixed"
  double bits = 16.0;                      ///< the format's bits per quantized weight
  std::map<WeightPart, double> part_bits;  ///< parts stored otherwise than `bits`
  std::string why;                         ///< for the model's assumptions
  std::vector<std::string> warnings;
  /// The exclusion list names the MTP layers (`mtp*`): they stay at the dtype.
  bool mtp_unquantized = false;
};

/// The part a module named by transformers' and vLLM's conventions belongs to
/// ("model.layers.3.mlp.experts.7.down_proj" -> routed_experts); nullopt for
/// norms, biases and names it does not know.
[[nodiscard]] std::optional<WeightPart> part_of_module(std::string_view module);

/// fnmatch-style match (`*` any run, `?` one character) of the module or any
/// module it sits in, or a regular
/// expression when the pattern starts with "re:" (compressed-tensors).
[[nodiscard]] bool module_matches(std::string_view pattern, std::string_view module);

/// Reads `quantization_config` (the node of config.json, `where` names its key
/// prefix) for a model whose unquantized weights are `dtype_bits` wide.
/// Throws InputError naming the key for a format it does not know.
[[nodiscard]] CheckpointPrecision precision_from_quantization_config(const json::Value& config,
                                                                     const std::string& origin,
                                                                     const std::string& prefix,
                                                                     double dtype_bits,
                                                                     const ModelArch& model);

/// Reads modelopt's hf_quant_config.json (`{"producer": ..., "quantization":
/// {"quant_algo": ..., "exclude_modules": [...], "quantized_layers": {...}}}`).
[[nodiscard]] CheckpointPrecision precision_from_hf_quant_config(std::string_view json_text,
                                                                 const std::string& origin,
                                                                 double dtype_bits,
                                                                 const ModelArch& model);

}  // namespace tpnet::detail
