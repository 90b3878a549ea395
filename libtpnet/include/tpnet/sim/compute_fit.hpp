#pragma once
/// Compute coefficients from measurements: the prefill model fitted by
/// non-negative least squares to measured single-request TTFTs, and the
/// decode weight-read efficiency from a measured inter-token latency
/// (docs/formulas.md s.24).

#include <optional>
#include <string>
#include <vector>

#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/measured/calibration.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/sim/step_cost.hpp"
#include "tpnet/sim/step_schedule.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

namespace tpnet {

/// min ||A x - b|| over x >= 0, for a few unknowns (columns of A, at most 8):
/// every subset of free unknowns solved by least squares, the best one whose
/// coefficients are all non-negative kept (exact for this size). `a` is
/// row-major, rows x cols.
[[nodiscard]] std::vector<double> nonnegative_least_squares(const std::vector<double>& a, int rows,
                                                            int cols, const std::vector<double>& b);

/// One measured row and what the fitted model says of it.
struct FitRow {
  std::string name;
  TokenCount prompt_tokens = 0;
  Seconds measured;           ///< TTFT at the fit's link
  Seconds communication;      ///< predicted at that link, after overlap
  Seconds predicted;          ///< fitted compute + communication
  double residual_pct = 0.0;  ///< (predicted - measured) / measured x 100
};

struct PrefillFit {
  PrefillComputeModel model;
  std::string source;  ///< "fitted to N single-request rows of FILE", "calibration FILE", "given"
  std::vector<FitRow> rows;
  std::vector<std::string> coefficients_fitted;  ///< "per_step", "gemm", "mixer"
  std::vector<std::string> warnings;
};

/// Fits per_step, seconds per GEMM FLOP and seconds per mixer FLOP to the
/// single-request scenarios of `baseline` (those with a measured TTFT): each
/// row's prefill is scheduled as vLLM would, its communication priced on
/// `fabric` and subtracted, and the residual compute fitted with relative
/// weights (every row counts alike, short or long). Each coefficient needs a
/// prompt size of its own: with fewer distinct sizes than three, fewer
/// coefficients (2 sizes: per_step and GEMM; 1: GEMM only, however many
/// rows repeat it), with a warning naming the sizes. Throws InputError naming `workload.baseline`
/// when no single-request row has a TTFT, or when a row's communication alone exceeds its TTFT.
[[nodiscard]] PrefillFit fit_prefill_compute(const ModelArch& model, const EngineConfig& engine,
                                             const SchedulerSettings& scheduler,
                                             const FabricProfile& fabric, double overlap,
                                             const std::vector<PrefillScenario>& baseline,
                                             const std::string& origin);

/// Prefill compute from a calibration's timed GEMMs: seconds per FLOP of
/// the GEMMs at their TP (a FLOP costs the same at another TP on the same
/// GPU); no fixed step cost and no mixing (they are not in the timings).
[[nodiscard]] PrefillComputeModel prefill_compute_from_gemms(const ComputeCalibration& gemms,
                                                             const ModelArch& model);

/// A measured inter-token latency at one TP and concurrency 1.
struct DecodeMeasurement {
  int tp = 1;
  Seconds itl;
  std::string source;  ///< "--decode-itl 1=77.97ms", "baseline P1"
};

/// The decode rate of a baseline's shortest single-request row that states
/// one, as an ITL (1 / rate) at `tp`; nullopt when no row does.
[[nodiscard]] std::optional<DecodeMeasurement> baseline_decode_measurement(
    const std::vector<PrefillScenario>& baseline, int tp, const std::string& origin);

struct DecodeFit {
  double efficiency = 1.0;
  std::string source;  ///< "" = not fitted (the floor)
  struct Point {
    DecodeMeasurement measured;
    Seconds weight_read_floor;  ///< at its TP
    Seconds communication;      ///< one decode forward's collectives at its TP
    double efficiency = 0.0;    ///< what this point alone gives
    Seconds predicted;          ///< ITL with the fitted efficiency
    double residual_pct = 0.0;
  };
  std::vector<Point> points;
  std::vector<std::string> warnings;
};

/// The achieved share of memory bandwidth: each measurement gives
/// floor(TP) / (ITL x accepted - communication(TP)); the fit is their mean.
/// Communication is one forward of one request (1 + drafts tokens) on
/// `fabric`. Throws InputError naming `decode.itl` when a measured ITL is
/// below its communication or faster than the weight-read floor (efficiency
/// above 1: check the TP, the precision, the memory bandwidth or the accepted
/// tokens).
/// `expert_concentration` spreads a forward's 1 + drafts tokens over the
/// experts as decode_weight_bytes does (1: uniformly), as predict will.
[[nodiscard]] DecodeFit fit_decode_efficiency(const ModelArch& model, const EngineConfig& engine,
                                              const FabricProfile& fabric, BitRate memory_bandwidth,
                                              double accepted_tokens,
                                              const std::vector<DecodeMeasurement>& measured,
                                              double expert_concentration = 1.0);

}  // namespace tpnet
