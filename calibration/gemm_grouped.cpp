#include "gemm_grouped.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gemm_formats.hpp"

namespace tpnet::calibrate {
namespace {

std::size_t size(long long value) { return static_cast<std::size_t>(value); }

long long round_up(long long value, long long multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

std::size_t aligned(std::size_t bytes) {
  return (bytes + kGroupedAlignment - 1) / kGroupedAlignment * kGroupedAlignment;
}

}  // namespace

std::size_t operand_bytes(GemmPrecision precision, long long rows, long long k) {
  const std::size_t elements = size(rows) * size(k);
  switch (precision) {
    case GemmPrecision::nvfp4:
      return (elements + 1) / 2;
    case GemmPrecision::fp8:
      return elements;
    case GemmPrecision::bf16:
      return elements * 2;
  }
  return elements * 2;
}

long long GroupedDims::experts() const {
  long long total = 0;
  for (const GroupedBin& b : bins) total += b.experts;
  return total;
}

long long GroupedDims::rows() const {
  long long total = 0;
  for (const GroupedBin& b : bins) total += b.rows * b.experts;
  return total;
}

GroupedDims padded_grouped(GroupedDims dims, GemmPrecision precision) {
  const long long k_multiple = precision == GemmPrecision::nvfp4 ? 64 : 16;
  dims.out = round_up(std::max(1LL, dims.out), 16);
  dims.k = round_up(std::max(1LL, dims.k), k_multiple);
  for (GroupedBin& b : dims.bins) b.rows = round_up(std::max(1LL, b.rows), 16);
  return dims;
}

GroupedDims grouped_check_dims() { return {256, 512, {{64, 3}, {32, 2}, {16, 1}}}; }

double grouped_flops(const GroupedDims& dims) {
  return 2.0 * static_cast<double>(dims.rows()) * static_cast<double>(dims.out) *
         static_cast<double>(dims.k);
}

GroupedLayout grouped_layout(GemmPrecision precision, const GroupedDims& dims) {
  const bool nvfp4 = precision == GemmPrecision::nvfp4;
  const std::size_t scale_columns = size(dims.k) / 16;
  GroupedLayout layout;
  layout.bins.reserve(dims.bins.size());
  for (const GroupedBin& b : dims.bins) {
    BinPlacement p;
    p.weight_stride = operand_bytes(precision, dims.out, dims.k);
    p.weight_scale_stride = nvfp4 ? block_scale_bytes(size(dims.out), scale_columns) : 0;
    p.activation_stride = operand_bytes(precision, b.rows, dims.k);
    p.activation_scale_stride = nvfp4 ? block_scale_bytes(size(b.rows), scale_columns) : 0;
    p.output_stride = size(dims.out) * size(b.rows) * 2;
    p.weights = aligned(layout.weight_bytes);
    p.weight_scales = aligned(layout.weight_scale_bytes);
    p.activations = aligned(layout.activation_bytes);
    p.activation_scales = aligned(layout.activation_scale_bytes);
    p.output = aligned(layout.output_bytes);
    const std::size_t experts = size(b.experts);
    layout.weight_bytes = p.weights + experts * p.weight_stride;
    layout.weight_scale_bytes = p.weight_scales + experts * p.weight_scale_stride;
    layout.activation_bytes = p.activations + experts * p.activation_stride;
    layout.activation_scale_bytes = p.activation_scales + experts * p.activation_scale_stride;
    layout.output_bytes = p.output + experts * p.output_stride;
    layout.bins.push_back(p);
  }
  return layout;
}

std::vector<double> grouped_reference(long long out, long long k,
                                      const std::vector<long long>& rows_per_expert,
                                      const std::vector<double>& weights,
                                      const std::vector<double>& activations) {
  long long rows = 0;
  for (const long long r : rows_per_expert) {
    if (r < 0) throw std::invalid_argument("grouped_reference: negative rows");
    rows += r;
  }
  const std::size_t experts = rows_per_expert.size();
  if (out < 0 || k < 0 || weights.size() != experts * size(out) * size(k) ||
      activations.size() != size(rows) * size(k)) {
    throw std::invalid_argument("grouped_reference: operand sizes do not match the dimensions");
  }
  std::vector<double> result(size(rows) * size(out));
  std::size_t x_row = 0;  // the expert's first activation row
  std::size_t d_at = 0;   // the expert's first output
  for (std::size_t e = 0; e < experts; ++e) {
    const double* w = weights.data() + e * size(out) * size(k);
    for (std::size_t j = 0; j < size(rows_per_expert[e]); ++j) {
      const double* x = activations.data() + (x_row + j) * size(k);
      for (std::size_t i = 0; i < size(out); ++i) {
        double acc = 0.0;
        for (std::size_t kk = 0; kk < size(k); ++kk) acc += w[i * size(k) + kk] * x[kk];
        result[d_at + i + j * size(out)] = acc;  // out x rows_e, column-major
      }
    }
    x_row += size(rows_per_expert[e]);
    d_at += size(rows_per_expert[e]) * size(out);
  }
  return result;
}

Comparison compare_to_reference(const std::vector<double>& got,
                                const std::vector<double>& reference, double tolerance) {
  if (got.size() != reference.size()) {
    throw std::invalid_argument("compare_to_reference: result and reference differ in size");
  }
  Comparison c;
  c.outputs = static_cast<long long>(reference.size());
  double sum_squares = 0.0;
  for (const double r : reference) sum_squares += r * r;
  if (!reference.empty()) {
    c.reference_rms = std::sqrt(sum_squares / static_cast<double>(reference.size()));
  }
  for (std::size_t e = 0; e < reference.size(); ++e) {
    const double error =
        std::fabs(got[e] - reference[e]) / (std::fabs(reference[e]) + c.reference_rms);
    if (!(error <= tolerance)) ++c.wrong;  // NaN counts as wrong
    if (std::isfinite(error)) c.max_rel_error = std::max(c.max_rel_error, error);
  }
  return c;
}

}  // namespace tpnet::calibrate
