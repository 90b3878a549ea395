#pragma once
/// Point estimates from a calibration, beside the bounds: prefill and decode
/// communication priced with the measured all-reduce curve at each link, and
/// the network share from measured compute (docs/formulas.md s.19).

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/quantity.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/measured/calibration.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// A calibration.yaml a request carries (`calibration`), and the NCCL
/// version the estimate is for (`calibration.nccl_version`; "" = not said).
struct CalibrationInput {
  std::shared_ptr<const Calibration> file;
  std::string nccl_version;
};

/// What a calibration can be used for against what is asked. The pointers
/// point into `file`, which the use keeps alive.
struct CalibrationUse {
  std::shared_ptr<const Calibration> file;
  const AllReduceCalibration* allreduce = nullptr;  ///< never null once checked
  /// The compute section, when its model and chunk match (and its TP, unless
  /// `project_compute`); null otherwise, with a warning saying why.
  const ComputeCalibration* compute = nullptr;
  std::vector<std::string> warnings;
  std::vector<std::string> notes;  ///< what every point estimate assumes
};

/// What a use case asks of a calibration.
struct CalibrationAsk {
  std::vector<int> tps;    ///< the TP sizes asked (one for penalty and decode)
  std::vector<Link> from;  ///< the baseline links
  /// compare: a compute section of another TP is divided evenly over each
  /// layout's nodes (as compare's baseline projection) instead of being unused.
  bool project_compute = false;
  /// decode: there is no prompt compute to share with, so the compute section
  /// is not asked about.
  bool use_compute = true;
};

/// Throws InputError (naming the file and `allreduce`) when the calibration
/// has no all-reduce sweep. Warns, and scales, when its ranks differ from a
/// TP asked; warns when its link differs from a `from` link, its NCCL version
/// from the one asked, its backend is MPI (no NCCL), its sweep is partial,
/// or the engine's all-reduce algorithm is not ring; and when the compute
/// section's model, TP or chunk differ from what is asked (compute unused).
[[nodiscard]] CalibrationUse check_calibration(const CalibrationInput& input,
                                               const ModelArch& model, const EngineConfig& engine,
                                               const CalibrationAsk& ask);

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
