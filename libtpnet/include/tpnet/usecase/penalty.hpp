#pragma once
/// Prefill over a slower link: the upper bound on extra time-to-first-token
/// and, given a measured TTFT, the bound as a share of it
/// (docs/formulas.md s.4).

#include <optional>
#include <string>
#include <vector>

#include "tpnet/base/quantity.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/fabric/collective_settings.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/profiled_link.hpp"
#include "tpnet/measured/point_estimate.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/traffic/transfer_time.hpp"
#include "tpnet/usecase/budgets.hpp"
#include "tpnet/usecase/calibration_use.hpp"
#include "tpnet/usecase/decode.hpp"
#include "tpnet/usecase/document.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

namespace tpnet {

struct ScenarioPenalty {
  PrefillScenario scenario;
  TokenCount total_tokens = 0;
  Bytes prefill_bytes_per_node;
  long long prefill_forwards = 0;  ///< forward passes the engine needs for the prompt(s)
  Bytes step_block;                ///< block of one all-reduce in a full prefill step
  Seconds comm_time_from;          ///< prefill bytes at the `from` rate
  Seconds nominal_bound;
  // With a baseline TTFT:
  std::optional<double> network_share;           ///< comm_time_from / baseline, capped at 1
  std::optional<double> ttft_increase_bound;     ///< network_share x (from/to - 1)
  std::optional<Seconds> ttft_bound_at_to;       ///< baseline + extra bound
  std::optional<PrefillPoint> calibrated_point;  ///< with a calibration: priced from the curve
  // With fabric profiles: the scenario's steps through vLLM's scheduler until
  // its last first token, communication priced on each link's profile
  // (docs/formulas.md s.25; the same number as tpnet predict's extra).
  std::optional<Seconds> predicted_comm_from;
  std::optional<Seconds> predicted_comm_to;
  std::optional<Seconds> predicted_extra;
  /// predicted_extra at the two ends of what the profiles measured (s.29).
  std::optional<ExtraRange> predicted_extra_range;
  /// The achieved-rate bound of predicted_extra (s.25) and the per-byte gap
  /// of the two profiles it takes every all-reduce byte at.
  std::optional<Seconds> achieved_bound;
  std::optional<PerByteGap> predicted_gap;
  std::optional<Seconds> predicted_ttft_at_to;  ///< with a baseline TTFT
  std::vector<std::string> notes;
};

struct PenaltyReport {
  Link from;
  Link to;
  Bytes per_token_bytes;
  bool per_token_measured = false;  ///< true when the user gave measured bytes per token
  Seconds extra_per_1k_tokens;
  std::vector<ScenarioPenalty> scenarios;
  std::optional<CalibrationUse> calibration;
  bool gated = false;  ///< budgets were given
  std::vector<Verdict> verdicts;
  std::vector<std::string> warnings;
  /// What the slower link does to decode, when the request named a node
  /// whose decode the formulas can price (the answer's third sentence).
  std::optional<DecodeReport> decode;

  [[nodiscard]] bool passed() const { return all_within(verdicts); }
};

/// `measured_per_token` replaces the formula's bytes per token (e.g. from
/// RDMA counters: the study measured 3.54-3.60 MB at TP8).
[[nodiscard]] PenaltyReport analyze_penalty(const ModelArch& model, const EngineConfig& engine,
                                            const Link& from, const Link& to,
                                            const std::vector<PrefillScenario>& scenarios,
                                            std::optional<Bytes> measured_per_token = {});

/// Everything `tpnet penalty` answers depends on.
struct PenaltyRequest {
  ModelArch model;
  EngineConfig engine;
  /// The link the baseline runs on and the slower one, each with the
  /// profile (`fabric`) that prices each scenario's predicted extra time
  /// through the scheduler; a profile unset on either: no prediction.
  ProfiledLink from;
  ProfiledLink to;
  /// The cluster's NCCL settings: what prices decode's latency and what the
  /// answer says priced it.
  CollectiveSettings collective;
  /// Scenarios; empty = the study's P1-P6. Those from a baseline CSV carry
  /// their TTFT measured at `from` (`workload.baseline`).
  std::vector<PrefillScenario> scenarios;
  std::optional<Bytes> measured_per_token;  ///< bytes_per_token: replaces the formula's
  /// Where measured_per_token came from, as the answer names it.
  std::string measured_per_token_origin = "given";
  Budgets budgets;
  std::optional<CalibrationInput> calibration;
  /// Output tokens a decode forward yields per request, for the decodes
  /// that share prefill steps; unset: 1 + drafts.
  std::optional<double> accepted_tokens;
  /// The node whose decode the answer prices (what the slower link does to
  /// a forward); unset, or a node the decode formulas cannot price: none.
  std::optional<NodeSpec> decode_node;
};

/// The bounds, the point estimates of a calibration, and the budget verdicts:
/// max_extra_ttft_per_1k_tokens once, then each scenario's max_extra_ttft and
/// max_ttft_increase. Throws InputError naming `budgets.max_ttft_increase`
/// when that budget is set and a scenario has no measured TTFT.
[[nodiscard]] PenaltyReport run_penalty(const PenaltyRequest& request);

/// The answer in at most four sentences: what the slower link costs the
/// longest prompt (predicted, else the nominal bound), per 1,000 prompt
/// tokens, what it does to decode, and the bounds beside a prediction.
/// Empty without scenarios or when both links are the same.
[[nodiscard]] std::vector<std::string> penalty_answer(const PenaltyReport& report);

/// The answer, the settings, both links, bytes per token, a row per scenario
/// and the fabric profiles: `tpnet penalty`'s keys (docs/json.md), without
/// the calibration's and the budgets' records, which the caller adds.
[[nodiscard]] Document penalty_document(const PenaltyRequest& request, const PenaltyReport& report);

}  // namespace tpnet
