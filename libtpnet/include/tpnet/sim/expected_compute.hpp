#pragma once
/// The compute models a node's public serving runs give (ExpectedRates),
/// at one end of their spread: what predict, expect and report price a
/// forward with when the user measured nothing (docs/prediction.md s.5).

#include "tpnet/fabric/expected_rates.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/sim/step_cost.hpp"

namespace tpnet {

struct ExpectedCompute {
  PrefillComputeModel prefill;
  /// The decode coefficients (efficiency, per_step, seconds_per_flop,
  /// expert_concentration); the caller fills in the reads, TP and bandwidth.
  DecodeComputeModel decode;
};

/// `rates` at `end`: the dense GEMMs at the 16-bit rate for a model whose
/// weights are 16-bit (bits per weight 16 or more), else at the 8- and 4-bit
/// rate; the fixed decode cost with or without CUDA graphs.
[[nodiscard]] ExpectedCompute expected_compute(const ExpectedRates& rates, const ModelArch& model,
                                               RateEnd end, bool enforce_eager);

}  // namespace tpnet
