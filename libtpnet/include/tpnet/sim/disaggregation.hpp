#pragma once
/// Prefill/decode disaggregation as a layout, xPyD: x prefill instances and
/// y decode instances, each with its own TP (vLLM's disaggregated prefill
/// with a KV connector). What each pool can serve, which one binds, how many
/// prefill instances keep the decode instances busy, and the first token's
/// time without queueing (docs/formulas.md s.32).

#include <string>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

namespace tpnet {

struct DisaggregationLayout {
  int prefill_instances = 1;
  int decode_instances = 1;
  int prefill_tp = 1;  ///< nodes per prefill instance (one GPU each)
  int decode_tp = 1;   ///< nodes per decode instance

  [[nodiscard]] int nodes() const {
    return prefill_instances * prefill_tp + decode_instances * decode_tp;
  }
  /// "2P1D", with the TPs when above 1: "2P1D TP2" when both pools share
  /// it, else "2P1D (P TP2, D TP4)".
  [[nodiscard]] std::string name() const;
};

/// "2P1D" (either case): the instance counts, TPs left at 1. Throws
/// InputError at `where` naming the form when the text is not xPyD with x
/// and y from 1 to 1,024.
[[nodiscard]] DisaggregationLayout parse_disaggregation(std::string_view text,
                                                        const InputLocation& where);

struct DisaggregationInput {
  DisaggregationLayout layout;
  Seconds prefill_per_request;  ///< one prompt through one prefill instance
  Seconds kv_transfer;          ///< its cache handed to a decode instance
  Seconds decode_step;          ///< one decode step of a decode instance at decode_batch
  int decode_batch = 1;         ///< requests one decode instance decodes at once
  TokenCount output_tokens = kDefaultOutputTokens;
};

struct DisaggregationRates {
  double prefill_requests_per_s = 0.0;  ///< x / prefill_per_request
  double decode_requests_per_s = 0.0;   ///< y x batch / (output x decode_step)
  double served_requests_per_s = 0.0;   ///< the smaller
  bool prefill_bound = false;           ///< the prefill pool is the smaller
  /// Prefill instances at which both pools are just busy (fractional).
  double matched_prefill_instances = 0.0;
  /// Prefill, hand-off, then the decode instance's first step: what a lone
  /// request waits for its first token (vLLM's proxy streams it from decode).
  Seconds ttft;
  TokenRate decode_tokens_per_s;  ///< per request: 1 / decode_step, never interrupted by prefills
};

/// Throws InputError naming `disaggregation.*` for counts below 1, a time
/// below 0 (decode_step at or below 0) or not finite.
[[nodiscard]] DisaggregationRates disaggregation_rates(const DisaggregationInput& input);

}  // namespace tpnet
