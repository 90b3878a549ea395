#pragma once
/// Timed prefill GEMMs of one node, as `tpnet-calibrate gemm` measures them
/// (docs/calibration.md). Reader: tpnet/io/gemm_csv.hpp.

#include <string>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"

namespace tpnet {

struct GemmTiming {
  std::string name;  ///< "attn.qkv", "moe.gate_up", ...
  long long m = 0;   ///< rows (tokens)
  long long n = 0;
  long long k = 0;
  long long count = 0;  ///< runs per forward pass of chunk_tokens tokens on one node
  Seconds median;       ///< median time of one run
  double tflops = 0.0;  ///< 2mnk / median / 1e12, as the file says
  InputLocation source;
};

/// One node's GEMMs for one model, TP size, chunk and precision.
struct GemmRun {
  std::string model;
  int tp = 0;
  TokenCount chunk_tokens = 0;
  std::string precision;  ///< nvfp4, fp8 or bf16: what actually ran
  std::string device;
  std::string compute_capability;
  double peak_tflops = 0.0;  ///< the device's dense peak for the precision; 0 = unknown
  std::string date;          ///< `date=` of the first line; "" when absent
  std::vector<GemmTiming> gemms;
  std::string origin;

  /// sum of count x median: the GEMM time of one chunk's forward pass on a node.
  [[nodiscard]] Seconds forward_time() const;
  /// forward_time / chunk_tokens.
  [[nodiscard]] Seconds per_prompt_token() const;
};

}  // namespace tpnet
