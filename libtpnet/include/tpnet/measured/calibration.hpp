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
#include "tpnet/measured/allreduce_fit.hpp"
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

/// One measured size of the sweep (out-of-place).
struct CalibrationPoint {
  Bytes size;
  Seconds time;
  BitRate algbw;
  BitRate busbw;
};

/// A ring all-reduce sweep on `ranks` ranks over a link of `link_rate`:
/// the alpha-beta fit and the measured curve itself.
struct AllReduceCalibration {
  std::string source;  ///< the sweep file it came from
  int ranks = 0;
  std::string link;  ///< what it was measured on, as given: "200G"
  BitRate link_rate;
  std::string dtype;     ///< element type of the sweep: "float", "bf16"
  bool complete = true;  ///< false for a partial (killed) sweep
  // The fit (docs/formulas.md s.16).
  Seconds alpha;         ///< fixed time of one all-reduce
  BitRate beta;          ///< rate of the bytes each rank sends
  Seconds step_latency;  ///< alpha / 2(N-1)
  double rms_relative_error = 0.0;
  double max_relative_error = 0.0;
  Bytes min_size;  ///< the size range fitted
  Bytes max_size;
  int points = 0;  ///< sizes fitted
  /// Every measured size, sizes strictly increasing.
  std::vector<CalibrationPoint> curve;
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

struct Calibration {
  static constexpr int kSchemaVersion = 1;
  CalibrationProvenance provenance;
  std::optional<AllReduceCalibration> allreduce;
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

/// The compute section from timed GEMMs: per prompt token = sum(count x
/// median) / chunk_tokens.
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

/// Measured time of one all-reduce of `block` bytes on the ranks and link of
/// the sweep: the curve interpolated linearly in log(size)-log(time) between
/// measured sizes, the fitted alpha + sent(S) x 8 / beta outside them (the
/// smallest measured time where that line is not positive).
[[nodiscard]] Seconds measured_allreduce_time(const AllReduceCalibration& c, Bytes block);

/// Point estimate of one ring all-reduce of `block` on `ranks` ranks over a
/// link of `rate` (docs/formulas.md s.19):
///   t = alpha' + max(0, t_meas(S') - alpha) x rate_meas / rate
/// with alpha = max(0, fitted alpha), alpha' = alpha x 2(N'-1) / 2(N-1) and
/// S' = S x f(N') / f(N), f(N) = 2(N-1)/N: other rank counts keep the bytes
/// each rank sends and the latency per step. Throws InputError for ranks < 2,
/// a negative block or a non-positive rate.
[[nodiscard]] Seconds calibrated_allreduce_time(const AllReduceCalibration& c, Bytes block,
                                                int ranks, BitRate rate);

/// The fitted beta moved to a link of `rate`: beta x rate / rate_meas, the
/// rate bytes outside all-reduces (all-to-all, stage sends) are priced at.
[[nodiscard]] BitRate calibrated_rate(const AllReduceCalibration& c, BitRate rate);

}  // namespace tpnet
