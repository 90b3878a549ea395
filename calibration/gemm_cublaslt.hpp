#pragma once
/// Runs GEMMs through cuBLASLt on one CUDA device: NVFP4 (block-scaled E2M1),
/// FP8 E4M3 and BF16, all with BF16 output and FP32 accumulation, in the TN
/// layout FP8 and FP4 require. Times them with CUDA events after a warm-up
/// and checks a small case against a CPU reference. Every CUDA and cuBLASLt
/// call is checked; a failure throws MeasurementError naming the call, its
/// status and the device. Only compiled when CUDA is found.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "gemm_grouped.hpp"
#include "gemm_peak.hpp"

namespace tpnet::calibrate {

struct DeviceInfo {
  int index = 0;
  std::string name;  ///< CUDA's device name, e.g. "NVIDIA GB10"
  ComputeCapability cc;
  std::size_t l2_bytes = 0;
  std::size_t memory_bytes = 0;
};

/// Selects device `index`. Throws MeasurementError starting "no CUDA device"
/// when the machine has none (or no driver), and InputError naming --device
/// when `index` is not one of them.
[[nodiscard]] DeviceInfo open_device(int index);

/// One GEMM as cuBLASLt sees it: D (out x tokens) = W^T-stored (k x out) times
/// X (k x tokens), column-major. `out` is the layer's output features (the
/// shape's n), `tokens` its rows (the shape's m).
struct LtDims {
  long long out = 0;
  long long tokens = 0;
  long long k = 0;
};

/// The dimensions actually run: `out` and `tokens` rounded up to 16, `k` to 64
/// for NVFP4 (whole scale tiles) and 16 otherwise, for cuBLASLt's alignment.
[[nodiscard]] LtDims padded(LtDims dims, GemmPrecision precision);

/// Outcome of a small correctness case.
struct CheckResult {
  GemmPrecision precision = GemmPrecision::bf16;
  LtDims dims;  ///< one GEMM; for the grouped case out, every expert's rows together, k
  std::vector<GroupedBin> bins;  ///< the grouped case's experts; empty for one GEMM
  bool batched = true;           ///< grouped: every bin ran as one strided-batched matmul
  long long outputs = 0;
  long long wrong = 0;         ///< outputs outside the tolerance
  double max_rel_error = 0.0;  ///< max |gpu - ref| / (|ref| + rms(ref))
  double tolerance = 0.0;      ///< allowed |gpu - ref| / (|ref| + rms(ref))
  double reference_rms = 0.0;  ///< rms of the reference (never 0 on random data)
  [[nodiscard]] bool passed() const { return wrong == 0 && reference_rms > 0.0; }
};

/// One grouped GEMM's time.
struct GroupedTiming {
  double median_s = 0.0;
  /// Every bin ran as one strided-batched cublasLtMatmul; false when
  /// cuBLASLt offered no batched algorithm for a bin and its experts ran as
  /// separate matmuls back to back instead (said in the output).
  bool batched = true;
};

/// A cuBLASLt handle, a 32 MiB workspace, a stream and events on one device.
class LtRunner {
 public:
  explicit LtRunner(const DeviceInfo& device);
  ~LtRunner();
  LtRunner(const LtRunner&) = delete;
  LtRunner& operator=(const LtRunner&) = delete;
  LtRunner(LtRunner&&) = delete;
  LtRunner& operator=(LtRunner&&) = delete;

  /// Whether cuBLASLt's heuristic offers an algorithm for `precision` at a
  /// 256 x 256 x 256 problem (asks; runs nothing).
  [[nodiscard]] bool supports(GemmPrecision precision);

  /// Median seconds of one GEMM of `dims` (padded as `padded` says) over
  /// `repeats` runs after `warmup` runs, each timed with CUDA events, on
  /// random non-zero data. Operands rotate over enough copies to cover twice
  /// the L2 cache, so weights come from memory as in a real forward pass.
  [[nodiscard]] double median_seconds(GemmPrecision precision, LtDims dims, int warmup,
                                      int repeats);

  /// Median seconds of one grouped GEMM of `dims` (padded as padded_grouped
  /// says): each bin of equal-row experts one strided-batched matmul, the
  /// bins back to back between the same two CUDA events; operands as
  /// median_seconds, every expert its own weights in memory.
  [[nodiscard]] GroupedTiming grouped_median_seconds(GemmPrecision precision,
                                                     const GroupedDims& dims, int warmup,
                                                     int repeats);

  /// Runs a 256 x 192 x 512 GEMM (out x tokens x k: two scale-tile rows,
  /// one padded, eight scale-tile columns) on random exactly-representable
  /// data with a fixed seed and compares every output with a CPU reference
  /// computed in double from the same codes and scales.
  [[nodiscard]] CheckResult check(GemmPrecision precision);

  /// The grouped path's case, grouped_check_dims(), run as
  /// grouped_median_seconds runs it on random exactly-representable data,
  /// every expert's output compared with grouped_reference.
  [[nodiscard]] CheckResult check_grouped(GemmPrecision precision);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tpnet::calibrate
