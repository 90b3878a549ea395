#pragma once
/// A cluster's calibration: what `tpnet calibration` distils from measured
/// runs (an all-reduce sweep, prefill GEMM timings, RDMA counters) and
/// `--calibration FILE` reads back, and the measured all-reduce time of any
/// block at any link rate (docs/calibration.md, docs/formulas.md s.19).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/measured_allreduce.hpp"
#include "tpnet/measured/allreduce_fit.hpp"
#include "tpnet/measured/alltoall_fit.hpp"
#include "tpnet/measured/counters.hpp"
#include "tpnet/measured/gemm_timing.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// Where and when the measurements were taken.
struct CalibrationProvenance {
  std::string date;                        ///< ISO 8601, UTC: "2026-11-29T15:04:05Z"
  std::string tool;                        ///< what wrote the file: "tpnet 0.1.0"
  std::vector<std::string> hosts;          ///< one per node, in rank order when known
  std::string nccl_version;                ///< "2.21.5"; "" unknown, "none" for the MPI backend
  std::string backend;                     ///< "nccl-tests", "nccl", "mpi"; "" unknown
  std::map<std::string, std::string> env;  ///< settings of the run: NCCL_ALGO=Ring, ...
  std::string note;                        ///< free text: "SYNTHETIC", "after the firmware update"
};

/// Compute per prompt token from timed prefill GEMMs (the gemm CSV).
struct ComputeCalibration {
  std::string source;
  std::string model;
  int tp = 0;
  TokenCount chunk_tokens = 0;
  std::string precision;  ///< what ran: nvfp4, fp8, bf16
  std::string device;
  std::string compute_capability;  ///< "12.1"
  int gemms = 0;                   ///< distinct GEMM shapes timed
  Seconds forward_time;            ///< sum of count x median over the shapes: one chunk's GEMMs
  Seconds per_prompt_token;        ///< forward_time / chunk_tokens, on each node
  /// How the routed experts were timed: "grouped", "separate", "none"; ""
  /// when a calibration.yaml written before grouped timing does not say.
  std::string experts;
  /// per_prompt_token with the skewed routing's grouped rows in place of the
  /// uniform ones, when the GEMM file timed them.
  std::optional<Seconds> skewed_per_prompt_token;
};

/// Measured bytes per prompt token from RDMA counters, against the formula.
struct TrafficCalibration {
  std::string source;
  std::string model;
  int tp = 0;
  TokenCount prompt_tokens = 0;
  std::string phase;  ///< "all" (every interval) or "prefill" (split by request timings)
  int devices = 0;    ///< RDMA devices in the counters file
  Bytes xmit_bytes;   ///< transmitted in that phase, all devices
  Bytes measured_per_token;
  Bytes formula_per_token;
  double ratio = 0.0;  ///< measured / formula
};

/// A measured all-to-all sweep's fit (docs/formulas.md s.31.1): what EP's
/// dispatch and combine cost on the measured cluster.
struct AllToAllCalibration {
  std::string source;
  int ranks = 0;
  std::string link;  ///< the link it ran on
  Seconds alpha;     ///< one round's fixed time
  BitRate rate;      ///< rate of the bytes a rank sends to the others
  double rms_relative_error = 0.0;
  double max_relative_error = 0.0;
  Bytes min_size;
  Bytes max_size;
  int points = 0;
};

struct Calibration {
  static constexpr int kSchemaVersion = 1;
  CalibrationProvenance provenance;
  std::optional<AllReduceCalibration> allreduce;
  std::optional<AllToAllCalibration> alltoall;
  std::optional<ComputeCalibration> compute;
  std::optional<TrafficCalibration> traffic;
  std::string origin;  ///< the file it was read from; "" when built in memory
};

/// The all-reduce section from a fit: its numbers and the curve, sorted by
/// size with repeated sizes averaged.
[[nodiscard]] AllReduceCalibration make_allreduce_calibration(const AllReduceFit& fit,
                                                              const std::string& source,
                                                              const std::string& link,
                                                              BitRate link_rate);

/// The all-to-all section from a fit.
[[nodiscard]] AllToAllCalibration make_alltoall_calibration(const AlltoAllFit& fit,
                                                            const std::string& source,
                                                            const std::string& link);

/// The compute section from timed GEMMs: per prompt token = sum(count x
/// median) / chunk_tokens over the rows that are not skewed; the skewed
/// routing's figure beside it when the file has one.
[[nodiscard]] ComputeCalibration make_compute_calibration(const GemmRun& run);

/// Measured bytes per prompt token from one node's RDMA counters: every
/// device's transmitted bytes over the run (or, with `requests`, only the
/// bytes of the prefill share of each interval, as `tpnet traffic` splits
/// them) divided by `prompt_tokens`, against bytes_per_prompt_token.
/// Throws InputError (`traffic.prompt_tokens`) for fewer than 1 token.
[[nodiscard]] TrafficCalibration measure_traffic(const CounterSeries& series,
                                                 const std::vector<RequestTiming>* requests,
                                                 TokenCount prompt_tokens, const ModelArch& model,
                                                 const EngineConfig& engine,
                                                 const std::string& source);

}  // namespace tpnet
