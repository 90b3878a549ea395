#pragma once
/// GEMM precisions, which one `--precision auto` picks on a device, and the
/// device's dense tensor-core peak to compare a measured TFLOP/s with. Pure
/// C++ so the choices are tested without a GPU. Sources of every peak:
/// calibration/README.md ("gemm").

#include <optional>
#include <string>
#include <string_view>

namespace tpnet::calibrate {

enum class GemmPrecision {
  nvfp4,  ///< E2M1 data, one UE4M3 scale per 16 values (cuBLASLt VEC16_UE4M3), Blackwell
  fp8,    ///< E4M3 data with one FP32 scale per tensor, compute capability 8.9 and later
  bf16,   ///< BF16 data, FP32 accumulation, any tensor-core GPU
};

[[nodiscard]] std::string_view to_string(GemmPrecision precision);
/// "nvfp4", "fp8" or "bf16"; empty for anything else ("auto" is the caller's).
[[nodiscard]] std::optional<GemmPrecision> parse_precision(std::string_view text);

/// A CUDA compute capability, e.g. 12.1 for GB10, 9.0 for H100/H200.
struct ComputeCapability {
  int major = 0;
  int minor = 0;

  [[nodiscard]] bool at_least(int maj, int min) const {
    return major > maj || (major == maj && minor >= min);
  }
  [[nodiscard]] std::string text() const;  ///< "12.1"
};

/// What `--precision auto` runs and why.
struct PrecisionChoice {
  GemmPrecision precision = GemmPrecision::bf16;
  std::string reason;
};

/// NVFP4 on compute capability 10.0 and later when cuBLASLt offers an NVFP4
/// algorithm (`nvfp4_available`), else FP8 on 8.9 and later when cuBLASLt
/// offers one, else BF16. The reason names the device's capability and what
/// was skipped.
[[nodiscard]] PrecisionChoice choose_precision(ComputeCapability cc, bool nvfp4_available,
                                               bool fp8_available);

/// A device's dense (no structured sparsity) tensor-core peak for one
/// precision; 0 TFLOP/s = unknown.
struct DevicePeak {
  double tflops = 0.0;
  bool approximate = false;  ///< derived (e.g. sparse / 2) or a marketing figure
  std::string source;        ///< where the figure comes from, or why it is unknown
};

/// Looks the device up by name (CUDA's device name) and compute capability.
/// Known: GB10 (NVFP4 only, approximate), B200 (approximate), H100 SXM,
/// H100 PCIe, H200/GH200, A100 (BF16).
[[nodiscard]] DevicePeak dense_peak(std::string_view device_name, ComputeCapability cc,
                                    GemmPrecision precision);

}  // namespace tpnet::calibrate
