#pragma once
/// `tpnet calibration`: measured runs (an all-reduce sweep, timed prefill
/// GEMMs, RDMA counters) distilled into one Calibration with its provenance,
/// and what looked doubtful on the way (docs/calibration.md). Reading the
/// files and writing calibration.yaml are the callers' part.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tpnet/fabric/link.hpp"
#include "tpnet/measured/allreduce_fit.hpp"
#include "tpnet/measured/allreduce_sweep.hpp"
#include "tpnet/measured/calibration.hpp"
#include "tpnet/measured/counters.hpp"
#include "tpnet/measured/gemm_timing.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet {

struct SweepInput {
  AllReduceSweep sweep;      ///< its origin is the file named in the calibration
  Link link;                 ///< `link`: the link it ran on
  std::optional<int> ranks;  ///< `ranks`
  FitRange range;            ///< `fit.min_size`, `fit.max_size`
  /// `fit.force`: write a fit worse than kPoorFitRms all the same.
  bool force = false;
};

struct GemmInput {
  GemmRun run;
  /// The model the caller asked about, to compare with the one the run timed.
  std::optional<std::string> model_name;
};

struct CounterInput {
  CounterSeries counters;
  std::string source;
  std::optional<std::vector<RequestTiming>> requests;  ///< count the prefill share only
  TokenCount prompt_tokens = 0;                        ///< `traffic.prompt_tokens`
  ModelArch model;
  EngineConfig engine;  ///< its tensor_parallel_size is `traffic.tp`
};

struct CalibrationBuildRequest {
  std::optional<SweepInput> allreduce;
  /// An all-to-all sweep (alltoall_perf, tpnet-calibrate alltoall); its
  /// `ranks` and `range` are `alltoall.ranks` and the all-reduce's fit range.
  std::optional<SweepInput> alltoall;
  std::optional<GemmInput> compute;
  std::optional<CounterInput> traffic;
  // Provenance the caller states; empty = taken from the measurements.
  std::string date;
  std::vector<std::string> hosts;
  std::map<std::string, std::string> env;
  std::string note;
  std::string tool = "tpnet calibration";  ///< what writes the file
  /// The date when neither the caller nor any measurement says one: not
  /// known, since today's date would be a guess at when they ran.
  std::string fallback_date = "unknown";
};

struct CalibrationBuildReport {
  Calibration calibration;
  std::vector<std::string> warnings;
};

/// Fits the sweep, sums the GEMMs, measures the counters, and reconciles the
/// provenance the files record (a tpnet-calibrate sweep's backend, date,
/// hosts, NCCL version, algorithm and protocol) with what the caller states.
/// Throws InputError naming `allreduce` when no measurement is given.
[[nodiscard]] CalibrationBuildReport build_calibration(const CalibrationBuildRequest& request);

/// What the calibration holds: its provenance, then a record for each
/// measurement given (the all-reduce fit, the compute, the traffic), with
/// the report's warnings: every key of `tpnet calibration`'s JSON summary
/// (docs/json.md) but the file it was written to, which is the caller's.
/// `written_to`, when set, is the file the caller wrote it to: the title
/// says so and the `out` field leads.
[[nodiscard]] Document calibration_build_document(const CalibrationBuildReport& report,
                                                  const std::string& written_to = {});

}  // namespace tpnet
