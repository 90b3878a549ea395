#pragma once
/// The grouped (fused-MoE) GEMM `tpnet-calibrate gemm` times for each MoE
/// layer's routed experts, on the host: the dimensions it runs, where each
/// expert's operands lie in the grouped buffers, its FLOPs, and the CPU
/// reference in double its result is compared with. Pure C++ (no CUDA), so
/// the tests run on any machine; the GPU code places operands and checks
/// results only through these functions (docs/formulas.md s.18.2,
/// calibration/README.md "gemm").
///
/// cuBLASLt 13.1 has no grouped matmul of experts with different rows, so a
/// grouped GEMM runs as one strided-batched cublasLtMatmul per bin of experts
/// with equal rows (CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT and
/// STRIDED_BATCH_OFFSET), the bins back to back in one timed region: uniform
/// routing is one or two bins, the skewed case three.

#include <cstddef>
#include <vector>

#include "gemm_peak.hpp"

namespace tpnet::calibrate {

/// cuBLASLt's heuristic assumes every operand pointer aligned to 256 bytes
/// (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES defaults), as cudaMalloc gives.
inline constexpr std::size_t kGroupedAlignment = 256;

/// Bytes of a rows x k operand: NVFP4 two values a byte, FP8 one, BF16 two.
[[nodiscard]] std::size_t operand_bytes(GemmPrecision precision, long long rows, long long k);

/// Experts of a grouped GEMM with the same rows: each multiplies its `rows`
/// x k activations by its own k x out weights.
struct GroupedBin {
  long long rows = 0;
  long long experts = 0;
};

/// A grouped GEMM: out and k shared by every expert, the experts in bins.
struct GroupedDims {
  long long out = 0;  ///< the shape's n
  long long k = 0;
  std::vector<GroupedBin> bins;

  [[nodiscard]] long long experts() const;
  [[nodiscard]] long long rows() const;  ///< every expert's rows together: the shape's m
};

/// The dimensions run: out and each bin's rows rounded up to 16, k to 64 for
/// NVFP4 (whole scale tiles) and 16 otherwise, as `padded` rounds one GEMM.
[[nodiscard]] GroupedDims padded_grouped(GroupedDims dims, GemmPrecision precision);

/// The grouped correctness case of `gemm --check-only`: out 256, k 512, six
/// experts in bins of 3 x 64, 2 x 32 and 1 x 16 rows: batches of more than
/// one expert, several bins, and NVFP4 scale tensors padded from under 128
/// rows to a whole tile, with every dimension a multiple of 16 (64 for k)
/// so nothing is padded and every output is compared.
[[nodiscard]] GroupedDims grouped_check_dims();

/// 2 x rows() x out x k: the work of one grouped run.
[[nodiscard]] double grouped_flops(const GroupedDims& dims);

/// Where one bin's first expert starts in each grouped buffer (bytes), and
/// the stride from one of its experts to the next: the batch offset
/// cuBLASLt reads (in elements: stride x 2 for NVFP4 data, / 2 for BF16).
struct BinPlacement {
  std::size_t weights = 0;
  std::size_t weight_scales = 0;  ///< NVFP4 only; 0 bytes otherwise
  std::size_t activations = 0;
  std::size_t activation_scales = 0;
  std::size_t output = 0;
  std::size_t weight_stride = 0;  ///< operand_bytes(out, k)
  std::size_t weight_scale_stride = 0;
  std::size_t activation_stride = 0;  ///< operand_bytes(rows, k)
  std::size_t activation_scale_stride = 0;
  std::size_t output_stride = 0;  ///< out x rows BF16 values
};

/// Every bin's placement and the size of each grouped buffer.
struct GroupedLayout {
  std::vector<BinPlacement> bins;
  std::size_t weight_bytes = 0;
  std::size_t weight_scale_bytes = 0;
  std::size_t activation_bytes = 0;
  std::size_t activation_scale_bytes = 0;
  std::size_t output_bytes = 0;
};

/// Bins one after another, each starting on a kGroupedAlignment boundary;
/// inside a bin the experts follow each other with no gap (a strided batch).
/// NVFP4's block scales: one scale tensor per expert in cuBLASLt's tiled
/// layout (block_scale_bytes: rows padded to 128, scale columns to 4), the
/// experts' tensors back to back, as cuBLASLt reads a batch's scales.
/// Expects padded dimensions.
[[nodiscard]] GroupedLayout grouped_layout(GemmPrecision precision, const GroupedDims& dims);

/// The CPU reference in double of a grouped GEMM: for each expert e,
/// D_e = W_e X_e^T, where W_e is out x k and X_e rows_e x k, both row-major
/// values (the numbers the GPU multiplies, scales applied), the experts one
/// after another in `weights` and `activations`. The result holds each
/// expert's D_e, out x rows_e column-major (cuBLASLt's D), in expert order.
/// Throws std::invalid_argument when the sizes do not match.
[[nodiscard]] std::vector<double> grouped_reference(long long out, long long k,
                                                    const std::vector<long long>& rows_per_expert,
                                                    const std::vector<double>& weights,
                                                    const std::vector<double>& activations);

/// How far a result is from its reference.
struct Comparison {
  long long outputs = 0;
  long long wrong = 0;         ///< outputs outside the tolerance (NaN and inf count)
  double max_rel_error = 0.0;  ///< max |got - ref| / (|ref| + rms(ref)) over the finite ones
  double reference_rms = 0.0;  ///< rms of the reference
};

/// An output passes when |got - ref| <= tolerance x (|ref| + rms(ref)).
/// Throws std::invalid_argument when the sizes differ.
[[nodiscard]] Comparison compare_to_reference(const std::vector<double>& got,
                                              const std::vector<double>& reference,
                                              double tolerance);

}  // namespace tpnet::calibrate
