// The grouped (fused-MoE) GEMM path of tpnet-calibrate gemm without a GPU:
// the CPU reference the GPU's grouped result is compared with (worked by
// hand), the comparison rule, the dimensions it runs, where each expert's
// operands lie, and its FLOP count.

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "catch.hpp"
#include "gemm_formats.hpp"
#include "gemm_grouped.hpp"

using namespace tpnet::calibrate;

namespace {

/// A byte count written as a product of small numbers.
constexpr std::size_t bytes(int n) { return static_cast<std::size_t>(n); }

}  // namespace

TEST_CASE("grouped reference: each expert's W x^T, out x rows column-major, by hand", "[gemm]") {
  // out 2, k 3; expert 0 has one row, expert 1 two.
  const std::vector<double> weights = {
      1, 2, 3,  4, 5, 6,  // W0 (2 x 3, row-major)
      1, 0, -1, 2, 1, 0,  // W1
  };
  const std::vector<double> activations = {
      1, 1,  1,  // x of expert 0
      1, 2,  3,  // expert 1, row 0
      0, -1, 2,  // expert 1, row 1
  };
  const std::vector<double> d = grouped_reference(2, 3, {1, 2}, weights, activations);
  // D0 = W0 (1,1,1) = (6, 15); D1 columns: W1 (1,2,3) = (-2, 4), W1 (0,-1,2) = (-2, -1).
  CHECK(d == std::vector<double>{6, 15, -2, 4, -2, -1});
}

TEST_CASE("grouped reference: experts are independent GEMMs, none sees another's rows", "[gemm]") {
  // Two experts with different weights: the grouped result is each one's own
  // reference, one after the other; swapping the weights changes it.
  const long long out = 3;
  const long long k = 4;
  std::vector<double> w0(out * k);
  std::vector<double> w1(out * k);
  std::vector<double> x0(2 * k);
  std::vector<double> x1(1 * k);
  for (std::size_t i = 0; i < w0.size(); ++i) {
    w0[i] = 0.5 * static_cast<double>(i) - 2.0;
    w1[i] = 1.0 - 0.25 * static_cast<double>(i);
  }
  for (std::size_t i = 0; i < x0.size(); ++i) x0[i] = static_cast<double>(i % 3) - 1.0;
  for (std::size_t i = 0; i < x1.size(); ++i) x1[i] = 2.0 - static_cast<double>(i);
  std::vector<double> weights = w0;
  weights.insert(weights.end(), w1.begin(), w1.end());
  std::vector<double> activations = x0;
  activations.insert(activations.end(), x1.begin(), x1.end());
  const std::vector<double> both = grouped_reference(out, k, {2, 1}, weights, activations);
  std::vector<double> apart = grouped_reference(out, k, {2}, w0, x0);
  const std::vector<double> second = grouped_reference(out, k, {1}, w1, x1);
  apart.insert(apart.end(), second.begin(), second.end());
  CHECK(both == apart);
  std::vector<double> swapped = w1;
  swapped.insert(swapped.end(), w0.begin(), w0.end());
  CHECK(grouped_reference(out, k, {2, 1}, swapped, activations) != both);
  // A plain GEMM is a grouped GEMM of one expert: out x tokens, column-major.
  const std::vector<double> plain = grouped_reference(1, 2, {2}, {3, -1}, {1, 2, 4, 0});
  CHECK(plain == std::vector<double>{1, 12});
  CHECK_THROWS_AS(grouped_reference(out, k, {2, 2}, weights, activations), std::invalid_argument);
  CHECK_THROWS_AS(grouped_reference(out, k, {2}, weights, activations), std::invalid_argument);
}

TEST_CASE("a result passes within 1% of |ref| + rms(ref), and NaN and inf never pass", "[gemm]") {
  const std::vector<double> ref = {3.0, -4.0};  // rms = sqrt(12.5) = 3.5355
  const double rms = std::sqrt(12.5);
  Comparison c = compare_to_reference({3.03, -4.0}, ref, 0.01);
  CHECK(c.outputs == 2);
  CHECK(c.wrong == 0);
  CHECK_THAT(c.reference_rms, WithinRel(rms, 1e-15));
  CHECK_THAT(c.max_rel_error, WithinRel(0.03 / (3.0 + rms), 1e-9));
  c = compare_to_reference({3.1, -4.0}, ref, 0.01);  // 0.1 / 6.54 = 1.5%
  CHECK(c.wrong == 1);
  c = compare_to_reference(
      {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}, ref,
      0.01);
  CHECK(c.wrong == 2);
  CHECK(c.max_rel_error == 0.0);  // only finite errors count toward the largest
  // An all-zero reference cannot show a wrong result: every output counts as off.
  CHECK(compare_to_reference({0.0}, {0.0}, 0.01).wrong == 1);
  CHECK_THROWS_AS(compare_to_reference({1.0}, ref, 0.01), std::invalid_argument);
}

TEST_CASE("grouped dims run padded as one GEMM is: rows and out to 16, k to 16 or 64", "[gemm]") {
  const GroupedDims glm{512, 6144, {{512, 32}, {74, 32}, {73, 192}}};
  CHECK(glm.experts() == 256);
  CHECK(glm.rows() == 32768);  // 4,096 tokens x top-8
  const GroupedDims fp8 = padded_grouped(glm, GemmPrecision::fp8);
  CHECK(fp8.out == 512);
  CHECK(fp8.k == 6144);
  REQUIRE(fp8.bins.size() == 3);
  CHECK(fp8.bins[0].rows == 512);
  CHECK(fp8.bins[1].rows == 80);
  CHECK(fp8.bins[2].rows == 80);
  CHECK(fp8.bins[2].experts == 192);
  const GroupedDims fp4 = padded_grouped({500, 100, {{3, 2}}}, GemmPrecision::nvfp4);
  CHECK(fp4.out == 512);
  CHECK(fp4.k == 128);
  CHECK(fp4.bins[0].rows == 16);
  // The work is the model's: 2 x 32,768 x 512 x 6,144 (the rows as routed, not as padded).
  CHECK(grouped_flops(glm) == 2.0 * 32768 * 512 * 6144);
}

TEST_CASE("grouped layout: bins back to back on 256-byte boundaries, experts at fixed strides",
          "[gemm]") {
  const GroupedDims dims = grouped_check_dims();
  SECTION("FP8: one byte an element") {
    const GroupedLayout l = grouped_layout(GemmPrecision::fp8, dims);
    REQUIRE(l.bins.size() == 3);
    CHECK(l.bins[0].weights == 0);
    CHECK(l.bins[0].weight_stride == bytes(256 * 512));
    CHECK(l.bins[1].weights == bytes(3 * 256 * 512));
    CHECK(l.bins[2].weights == bytes(5 * 256 * 512));
    CHECK(l.weight_bytes == bytes(6 * 256 * 512));
    CHECK(l.bins[0].activation_stride == bytes(64 * 512));
    CHECK(l.bins[1].activations == bytes(3 * 64 * 512));
    CHECK(l.bins[1].activation_stride == bytes(32 * 512));
    CHECK(l.bins[2].activations == bytes(3 * 64 * 512 + 2 * 32 * 512));
    CHECK(l.activation_bytes == bytes(272 * 512));
    CHECK(l.bins[2].output == bytes((3 * 64 + 2 * 32) * 256 * 2));
    CHECK(l.output_bytes == bytes(272 * 256 * 2));
    CHECK(l.weight_scale_bytes == 0);
    CHECK(l.activation_scale_bytes == 0);
  }
  SECTION("NVFP4: two elements a byte, one scale tensor of whole 128 x 4 tiles per expert") {
    const GroupedLayout l = grouped_layout(GemmPrecision::nvfp4, dims);
    CHECK(l.bins[0].weight_stride == bytes(256 * 512 / 2));
    CHECK(l.bins[0].weight_scale_stride == block_scale_bytes(256, 32));
    CHECK(l.bins[0].weight_scale_stride == bytes(256 * 32));
    // 64, 32 and 16 rows all pad to one 128-row tile: 128 x 32 scale bytes each.
    for (const BinPlacement& p : l.bins) CHECK(p.activation_scale_stride == bytes(128 * 32));
    CHECK(l.bins[1].activation_scales == bytes(3 * 128 * 32));
    CHECK(l.activation_scale_bytes == bytes(6 * 128 * 32));
  }
  SECTION("BF16: two bytes an element") {
    const GroupedLayout l = grouped_layout(GemmPrecision::bf16, dims);
    CHECK(l.bins[0].weight_stride == bytes(256 * 512 * 2));
    CHECK(l.bins[1].activation_stride == bytes(32 * 512 * 2));
  }
  SECTION("a bin that ends off a boundary: the next starts on one") {
    // 2 experts of 3 x 16 FP8 activations end at 96 bytes; the next bin starts at 256.
    const GroupedLayout l = grouped_layout(GemmPrecision::fp8, {8, 16, {{3, 2}, {1, 1}}});
    CHECK(l.bins[1].activations == 256);
    CHECK(l.bins[1].output == 256);  // 2 x 8 x 3 x 2 bytes = 96
    CHECK(l.bins[1].weights == 256);
    CHECK(l.activation_bytes == 256 + 16);
  }
  for (const GemmPrecision p : {GemmPrecision::nvfp4, GemmPrecision::fp8, GemmPrecision::bf16}) {
    for (const BinPlacement& b : grouped_layout(p, dims).bins) {
      CHECK(b.weights % kGroupedAlignment == 0);
      CHECK(b.weight_scales % kGroupedAlignment == 0);
      CHECK(b.activations % kGroupedAlignment == 0);
      CHECK(b.activation_scales % kGroupedAlignment == 0);
      CHECK(b.output % kGroupedAlignment == 0);
    }
  }
}

TEST_CASE("the grouped check case runs batches, several bins and padded scale tiles, unpadded",
          "[gemm]") {
  const GroupedDims dims = grouped_check_dims();
  CHECK(dims.bins.size() >= 2);
  bool batch = false;
  bool partial_tile = false;
  for (const GroupedBin& b : dims.bins) {
    batch = batch || b.experts > 1;
    partial_tile = partial_tile || b.rows % 128 != 0;
  }
  CHECK(batch);
  CHECK(partial_tile);
  for (const GemmPrecision p : {GemmPrecision::nvfp4, GemmPrecision::fp8, GemmPrecision::bf16}) {
    const GroupedDims run = padded_grouped(dims, p);
    CHECK(run.out == dims.out);
    CHECK(run.k == dims.k);
    CHECK(run.rows() == dims.rows());
  }
  CHECK(operand_bytes(GemmPrecision::nvfp4, 3, 5) == 8);  // 15 values, two a byte
  CHECK(operand_bytes(GemmPrecision::fp8, 3, 5) == 15);
  CHECK(operand_bytes(GemmPrecision::bf16, 3, 5) == 30);
}
