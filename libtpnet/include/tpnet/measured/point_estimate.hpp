#pragma once
/// Point estimates from a calibration, beside the bounds: prefill and decode
/// communication priced with the measured all-reduce curve at each link, and
/// the network share from measured compute (docs/formulas.md s.19). Which
/// calibration a request carries and what of it a use case may use is
/// tpnet/usecase/calibration_use.hpp.

#include <optional>

#include "tpnet/base/quantity.hpp"
#include "tpnet/measured/calibration.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// Compute seconds per prompt token on the nodes of `layout` from a compute
/// section: per_prompt_token x its TP / the layout's nodes (equal for the
/// same TP; other layouts assume compute divides evenly).
[[nodiscard]] Seconds compute_per_token_for(const ComputeCalibration& compute,
                                            const ParallelLayout& layout);

/// One prompt's prefill communication at two links, priced from the curve.
struct PrefillPoint {
  long long forwards = 0;      ///< prefill forward passes: ceil(P / step budget)
  TokenCount last_tokens = 0;  ///< tokens of the last forward (a partial chunk or a full one)
  Seconds comm_from;           ///< all of the prompt's collectives at `from`, no overlap
  Seconds comm_to;
  Seconds extra;  ///< comm_to - comm_from
  // With measured compute:
  std::optional<Seconds> compute;       ///< compute per token x P
  std::optional<double> network_share;  ///< comm_from / (compute + comm_from)
  std::optional<double> ttft_increase;  ///< extra / (compute + comm_from)
};

/// Each forward of t tokens runs the layout's all-reduces of S(t) = t x h x a
/// (the busiest stage's count) at calibrated_allreduce_time, plus its other
/// bytes (all-to-all, stage sends) at calibrated_rate. `compute_per_token`
/// (seconds per prompt token on each node) adds the share and the increase.
[[nodiscard]] PrefillPoint point_prefill(const AllReduceCalibration& c, const ModelArch& model,
                                         const EngineConfig& engine, const ParallelLayout& layout,
                                         const PromptSpec& prompt, BitRate from, BitRate to,
                                         std::optional<Seconds> compute_per_token = {});

/// One decode forward priced from the curve.
struct DecodePoint {
  Bytes block;             ///< S of one all-reduce: tokens x h x a
  Seconds allreduce_from;  ///< one all-reduce at `from`
  Seconds allreduce_to;
  Seconds forward_comm_from;  ///< all all-reduces and the logits gather of one forward
  Seconds forward_comm_to;
  Seconds added_per_forward;  ///< forward_comm_to - forward_comm_from
};

/// All-reduces of S(tokens) at calibrated_allreduce_time, the logits
/// all-gather (`logits_sent` bytes per node) as (N-1) fitted step latencies
/// plus its bytes at calibrated_rate.
[[nodiscard]] DecodePoint point_decode(const AllReduceCalibration& c, const ModelArch& model,
                                       const EngineConfig& engine, TokenCount tokens,
                                       Bytes logits_sent, BitRate from, BitRate to);

}  // namespace tpnet
