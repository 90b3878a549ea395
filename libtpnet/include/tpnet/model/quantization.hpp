#pragma once
/// A precision asked for a whole model ("this model in FP8"), replacing what
/// its file says: --quantization nvfp4|fp8|mxfp4|int4|bf16, or
/// --bits-per-weight B (docs/models.md, "Quantization").

#include <string>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

struct PrecisionChoice {
  std::string name;    ///< "nvfp4", "fp8", "mxfp4", "int4", "bf16", or "" for plain bits
  double bits = 16.0;  ///< per quantized weight, scale factors included
};

/// `nvfp4` (4.5 bits: 4 and an FP8 scale per 16), `fp8` (8), `mxfp4` (4.25:
/// 4 and an 8-bit scale per 32), `int4` (4.25: AWQ/GPTQ with a 16-bit scale
/// and zero point per 128), `bf16`/`fp16` (16). Throws InputError naming
/// `where` otherwise.
[[nodiscard]] PrecisionChoice parse_quantization(std::string_view text, const InputLocation& where);

/// Serves `model` in `choice`: every linear layer at its bits; the embedding
/// table (not a linear layer), the output head and the MoE router (vLLM
/// leaves both unquantized) stay at 16 bits unless the choice is 16-bit.
void apply_quantization(ModelArch& model, const PrecisionChoice& choice);

/// Keeps at `dtype_bits` the parts vLLM builds unquantized in a quantized
/// checkpoint whatever its file lists: a latent MoE's projections where the
/// layer says so (MoeSpec::latent_unquantized).
void keep_unquantized_parts(ModelArch& model, double dtype_bits);

/// Every weight at `bits` (1 to 64); throws InputError naming `model.bits_per_weight`.
void apply_bits_per_weight(ModelArch& model, double bits);

}  // namespace tpnet
