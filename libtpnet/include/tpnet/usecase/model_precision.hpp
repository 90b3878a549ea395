#pragma once
/// A model served at the precision a request asks instead of what its file
/// says: a named quantization (`model.quantization`) or plain bits per weight
/// (`model.bits_per_weight`), for every command that takes a model
/// (docs/models.md, "Quantization").

#include <optional>
#include <string>

#include "tpnet/model/model.hpp"

namespace tpnet {

/// The precision a request asks for its model; neither set = the file's own.
struct PrecisionAsk {
  std::string quantization;               ///< `model.quantization`: nvfp4, fp8, ...; "" = not asked
  std::optional<double> bits_per_weight;  ///< `model.bits_per_weight`

  [[nodiscard]] bool any() const { return !quantization.empty() || bits_per_weight.has_value(); }
};

/// `model` as `ask` serves it: every linear layer at the quantization's bits
/// (the embedding, output head and router stay 16-bit), or every weight at
/// `bits_per_weight`; unchanged when nothing is asked. Throws InputError
/// naming `model.quantization` for a name tpnet does not know or for both
/// asked at once, and `model.bits_per_weight` outside 1 to 64.
[[nodiscard]] ModelArch at_precision(ModelArch model, const PrecisionAsk& ask);

}  // namespace tpnet
