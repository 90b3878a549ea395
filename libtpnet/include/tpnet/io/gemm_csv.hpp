#pragma once
/// Reading the prefill GEMM timings `tpnet-calibrate gemm` writes
/// (docs/calibration.md): a `# tpnet-calibrate gemm date=... device=...`
/// line, then `model,tp,chunk_tokens,precision,device,compute_capability,
/// peak_tflops,gemm,m,n,k,count,median_s,tflops[,groups,routing]`, one row
/// per distinct GEMM shape of one node's prefill forward. `groups` and
/// `routing` (newer files) mark a grouped (fused-MoE) GEMM of the routed
/// experts; files without them time every GEMM as one GEMM per run.

#include <string>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/measured/gemm_timing.hpp"

namespace tpnet {

/// Throws InputError naming the file, line and column for a missing column, a
/// cell that is not a number, a dimension, count or chunk below 1, a median
/// time not positive, a precision other than nvfp4/fp8/bf16, a row whose
/// model, tp, chunk_tokens, precision or device differs from the first row's,
/// a GEMM timed twice; with the grouped columns: one without the other, a
/// routing other than none/uniform/skewed, groups other than 1 on a plain row
/// or above m on a grouped one, a grouped row that is not a routed expert's
/// GEMM, routed experts timed both grouped and separate, a skewed row without
/// the uniform row of its GEMM or with another shape or count.
GemmRun parse_gemm_csv(std::string_view text, const std::string& origin);
GemmRun load_gemm_csv(const std::string& path);

}  // namespace tpnet
