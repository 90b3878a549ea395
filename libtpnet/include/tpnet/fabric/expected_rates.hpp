#pragma once
/// What a node achieved in public serving runs, with their spread: the rates
/// tpnet expects when a user brings no measurement of their own
/// (models/nodes/*.yaml `expected`, docs/prediction.md s.5). Each value is
/// a slow end, a typical value and a fast end; the two ends make the range
/// an expectation carries.

#include <string>

namespace tpnet {

/// One rate at the slow end, typically, and at the fast end. Whatever the
/// quantity's direction (a time falls as a rate rises), `slow` is the value
/// that makes a forward slowest.
struct Spread {
  double slow = 0.0;
  double typical = 0.0;
  double fast = 0.0;
};

/// Which of a Spread's values a run takes.
enum class RateEnd { slow, typical, fast };

[[nodiscard]] double value_at(const Spread& spread, RateEnd end);

/// Decode forwards (docs/formulas.md s.23): a fixed cost, the weights and KV
/// cache read at a share of the memory bandwidth, the batch's GEMMs at a
/// rate, and the distinct experts a batch's tokens touch.
struct ExpectedDecode {
  Spread bandwidth_share;        ///< of the node's memory bandwidth, (0, 1]
  Spread step_overhead_s;        ///< per decode forward with CUDA graphs
  Spread eager_step_overhead_s;  ///< per decode forward with --enforce-eager
  Spread gemm_flops_per_s;       ///< per node, the batch's GEMM work beside its reads
  /// A batch of B tokens touches the distinct experts B^c tokens would if
  /// each were routed uniformly: 1 = independent tokens, below 1 the
  /// repetition real routing shows.
  Spread expert_concentration;
};

/// Forwards with prompt tokens: a fixed cost, the dense GEMMs and the
/// routed experts' GEMMs at their own rates, and the token mixing.
struct ExpectedPrefill {
  Spread step_overhead_s;
  Spread gemm_flops_per_s;         ///< dense GEMMs, 8- and 4-bit weights
  Spread bf16_gemm_flops_per_s;    ///< dense GEMMs, 16-bit weights
  Spread expert_gemm_flops_per_s;  ///< the routed experts' grouped GEMMs
  Spread mixer_flops_per_s;        ///< attention and the other token mixers
};

struct ExpectedRates {
  ExpectedDecode decode;
  ExpectedPrefill prefill;
  std::string source;  ///< the runs they come from
};

}  // namespace tpnet
