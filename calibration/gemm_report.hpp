#pragma once
/// What `tpnet-calibrate gemm` measured, its totals, the gemm CSV of
/// shared/contracts (read by tpnet calibration) and the table it prints.
/// Pure C++, tested without a GPU.

#include <ostream>
#include <string>
#include <vector>

#include "gemm_peak.hpp"
#include "tpnet/model/prefill_gemms.hpp"

namespace tpnet::calibrate {

struct GemmTiming {
  GemmShape shape;        ///< a grouped GEMM's m is every expert's rows together
  double median_s = 0.0;  ///< one run of the shape (m x n x k as timed)

  /// 2 m n k / median_s / 1e12; 0 when nothing was timed.
  [[nodiscard]] double tflops() const;
};

struct GemmRun {
  std::string model;
  int tp = 0;
  TokenCount chunk_tokens = 0;
  GemmPrecision precision = GemmPrecision::bf16;
  std::string precision_reason;
  std::string device;  ///< CUDA device name, commas replaced
  ComputeCapability cc;
  DevicePeak peak;
  std::string date;  ///< UTC, ISO 8601
  int warmup = 0;
  int repeats = 0;
  /// false when a grouped GEMM ran its experts as separate matmuls because
  /// cuBLASLt offered no strided-batched algorithm (said on stdout and in the
  /// CSV's first line).
  bool grouped_batched = true;
  /// Uniform rows first, then the skewed routing's grouped rows (what-ifs,
  /// not part of the forward).
  std::vector<GemmTiming> timings;

  /// "grouped", "separate" or "none": how the routed experts were timed.
  [[nodiscard]] std::string experts() const;
};

struct GemmTotals {
  double seconds_per_chunk = 0.0;         ///< sum of count x median_s: one node's forward pass
  double seconds_per_token = 0.0;         ///< seconds_per_chunk / chunk_tokens
  double flops_per_chunk = 0.0;           ///< sum of 2 m n k x count as timed
  double tflops = 0.0;                    ///< flops_per_chunk / seconds_per_chunk / 1e12
  double share_of_peak = 0.0;             ///< tflops / peak; 0 when the peak is unknown
  bool skewed = false;                    ///< the run timed the skewed routing too
  double skewed_seconds_per_chunk = 0.0;  ///< the forward with the skewed rows for the uniform
  double skewed_seconds_per_token = 0.0;
};

/// Sums over the forward's rows (not the skewed ones); the skewed forward
/// replaces each uniform grouped row by the skewed row of the same GEMM.
[[nodiscard]] GemmTotals totals(const GemmRun& run);

/// The gemm CSV: a `# tpnet-calibrate gemm ...` line, the header
/// model,tp,chunk_tokens,precision,device,compute_capability,peak_tflops,gemm,m,n,k,count,median_s,tflops,groups,routing
/// and one row per shape: groups 1 and routing none for one GEMM per run,
/// the experts and uniform or skewed for a grouped GEMM.
void write_gemm_csv(std::ostream& out, const GemmRun& run);

/// The table printed to stdout: each GEMM with its shape, count, median,
/// TFLOP/s and share of the peak, then the totals.
void print_gemm_table(std::ostream& out, const GemmRun& run);

}  // namespace tpnet::calibrate
