#include "gemm_peak.hpp"

#include <fmt/format.h>

namespace tpnet::calibrate {
namespace {

/// One row of the peak table: dense TFLOP/s per precision, 0 = none or unknown.
struct PeakRow {
  std::string_view name;     ///< a substring of CUDA's device name
  std::string_view exclude;  ///< a substring that rules the row out ("PCIe")
  ComputeCapability cc;      ///< the row applies only at this capability
  double bf16 = 0.0;
  double fp8 = 0.0;
  double nvfp4 = 0.0;
  bool approximate = false;
  std::string_view source;
};

// Datasheets state most figures "with sparsity"; dense is half of that.
constexpr PeakRow kPeaks[] = {
    {"GB10",
     "",
     {12, 1},
     0.0,
     0.0,
     500.0,
     true,
     "NVIDIA DGX Spark: about 1 PFLOP FP4 with sparsity; dense taken as half (marketing figure); "
     "FP8 and BF16 peaks are not published"},
    {"B200",
     "",
     {10, 0},
     2250.0,
     4500.0,
     9000.0,
     true,
     "NVIDIA DGX B200 datasheet per GPU, sparse figures halved"},
    {"H200",
     "",
     {9, 0},
     989.0,
     1979.0,
     0.0,
     false,
     "NVIDIA H200 SXM datasheet: BF16 1979, FP8 3958 TFLOP/s with sparsity, halved"},
    {"H100",
     "PCIe",
     {9, 0},
     989.0,
     1979.0,
     0.0,
     false,
     "NVIDIA H100 SXM datasheet: BF16 1979, FP8 3958 TFLOP/s with sparsity, halved"},
    {"H100 PCIe",
     "",
     {9, 0},
     756.0,
     1513.0,
     0.0,
     false,
     "NVIDIA H100 PCIe datasheet: BF16 1513, FP8 3026 TFLOP/s with sparsity, halved"},
    {"A100", "", {8, 0}, 312.0, 0.0, 0.0, false, "NVIDIA A100 datasheet: BF16 312 TFLOP/s dense"},
};

double figure(const PeakRow& row, GemmPrecision precision) {
  switch (precision) {
    case GemmPrecision::nvfp4:
      return row.nvfp4;
    case GemmPrecision::fp8:
      return row.fp8;
    case GemmPrecision::bf16:
      return row.bf16;
  }
  return 0.0;
}

bool matches(const PeakRow& row, std::string_view name, ComputeCapability cc) {
  if (row.cc.major != cc.major || row.cc.minor != cc.minor) return false;
  if (name.find(row.name) == std::string_view::npos) return false;
  return row.exclude.empty() || name.find(row.exclude) == std::string_view::npos;
}

}  // namespace

std::string_view to_string(GemmPrecision precision) {
  switch (precision) {
    case GemmPrecision::nvfp4:
      return "nvfp4";
    case GemmPrecision::fp8:
      return "fp8";
    case GemmPrecision::bf16:
      return "bf16";
  }
  return "bf16";
}

std::optional<GemmPrecision> parse_precision(std::string_view text) {
  for (const GemmPrecision p : {GemmPrecision::nvfp4, GemmPrecision::fp8, GemmPrecision::bf16}) {
    if (text == to_string(p)) return p;
  }
  return std::nullopt;
}

std::string ComputeCapability::text() const { return fmt::format("{}.{}", major, minor); }

PrecisionChoice choose_precision(ComputeCapability cc, bool nvfp4_available, bool fp8_available) {
  const std::string at = "compute capability " + cc.text();
  std::string skipped;
  if (cc.at_least(10, 0)) {
    if (nvfp4_available) {
      return {GemmPrecision::nvfp4, at + " has NVFP4 tensor cores and cuBLASLt offers an NVFP4 "
                                         "algorithm"};
    }
    skipped = "cuBLASLt offers no NVFP4 algorithm on " + at;
  } else {
    skipped = "NVFP4 needs compute capability 10.0 or later (Blackwell); this is " + cc.text();
  }
  if (cc.at_least(8, 9)) {
    if (fp8_available) return {GemmPrecision::fp8, skipped + "; running FP8 E4M3"};
    skipped += "; cuBLASLt offers no FP8 algorithm";
  } else {
    skipped += "; FP8 needs 8.9 or later";
  }
  return {GemmPrecision::bf16, skipped + "; running BF16"};
}

DevicePeak dense_peak(std::string_view device_name, ComputeCapability cc, GemmPrecision precision) {
  for (const PeakRow& row : kPeaks) {
    if (!matches(row, device_name, cc)) continue;
    const double tflops = figure(row, precision);
    if (tflops <= 0.0) {
      return {0.0, false,
              fmt::format("unknown: no dense {} figure for {} ({})", to_string(precision), row.name,
                          row.source)};
    }
    return {tflops, row.approximate, std::string(row.source)};
  }
  return {0.0, false,
          fmt::format("unknown: {} (compute capability {}) is not in tpnet-calibrate's peak table",
                      device_name, cc.text())};
}

}  // namespace tpnet::calibrate
