#pragma once
/// Timed prefill GEMMs of one node, as `tpnet-calibrate gemm` measures them
/// (docs/calibration.md). Reader: tpnet/io/gemm_csv.hpp.

#include <optional>
#include <string>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/model/prefill_gemms.hpp"

namespace tpnet {

struct GemmTiming {
  std::string name;  ///< "attn.qkv", "moe.gate_up", ...
  long long m = 0;   ///< rows (tokens); of a grouped GEMM, every group's rows together
  long long n = 0;
  long long k = 0;
  long long count = 0;  ///< runs per forward pass of chunk_tokens tokens on one node
  Seconds median;       ///< median time of one run
  double tflops = 0.0;  ///< 2mnk / median / 1e12, as the file says
  /// GEMMs one run launches together: 1, or the experts of a grouped
  /// (fused-MoE) GEMM. Files without the column are 1.
  long long groups = 1;
  /// none: a plain GEMM; uniform or skewed: a grouped GEMM's routing. Skewed
  /// rows are a what-if beside the uniform row of the same GEMM: they are not
  /// part of forward_time.
  ExpertRouting routing = ExpertRouting::none;
  InputLocation source;
};

/// How a file timed the routed experts.
enum class ExpertTiming {
  none,      ///< no routed expert's GEMM in the file (a dense model)
  separate,  ///< one GEMM per expert, count experts x MoE layers (files before grouped rows)
  grouped,   ///< one grouped GEMM per MoE layer (routing uniform)
};

[[nodiscard]] std::string_view to_string(ExpertTiming timing);

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

  /// sum of count x median over the rows that are not skewed: the GEMM time
  /// of one chunk's forward pass on a node.
  [[nodiscard]] Seconds forward_time() const;
  /// forward_time / chunk_tokens.
  [[nodiscard]] Seconds per_prompt_token() const;
  /// The forward with each skewed row in place of the uniform row of its
  /// GEMM; nothing when the file has no skewed rows.
  [[nodiscard]] std::optional<Seconds> skewed_forward_time() const;
  /// How the routed experts were timed (by the rows' names and routing).
  [[nodiscard]] ExpertTiming experts() const;
};

}  // namespace tpnet
