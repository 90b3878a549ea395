// The host-side encoders of tpnet-calibrate gemm: what the GPU multiplies is
// only as right as these bytes, and the CPU reference decodes through them.

#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "catch.hpp"
#include "gemm_formats.hpp"

using namespace tpnet::calibrate;

TEST_CASE("E2M1 codes decode to 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives", "[gemm]") {
  const std::vector<float> magnitudes = {0.0F, 0.5F, 1.0F, 1.5F, 2.0F, 3.0F, 4.0F, 6.0F};
  for (std::uint8_t code = 0; code < 8; ++code) {
    CHECK(decode_e2m1(code) == magnitudes[code]);
    CHECK(decode_e2m1(static_cast<std::uint8_t>(code | 0x8U)) == -magnitudes[code]);
    if (code > 0) CHECK(encode_e2m1(magnitudes[code]) == code);
  }
}

TEST_CASE("E2M1 encoding rounds to nearest, ties to the even code, and saturates at 6", "[gemm]") {
  CHECK(encode_e2m1(0.25F) == 0);  // between 0 (code 0) and 0.5 (code 1)
  CHECK(encode_e2m1(0.75F) == 2);  // between 0.5 (1) and 1 (2)
  CHECK(encode_e2m1(2.5F) == 4);   // between 2 (4) and 3 (5)
  CHECK(encode_e2m1(5.0F) == 6);   // between 4 (6) and 6 (7)
  CHECK(encode_e2m1(2.9F) == 5);
  CHECK(encode_e2m1(7.0F) == 7);
  CHECK(encode_e2m1(1e9F) == 7);
  CHECK(encode_e2m1(-1.5F) == 0xB);
  CHECK(encode_e2m1(-0.1F) == 0);  // rounds to zero, no negative zero
}

TEST_CASE("E2M1 packs two codes per byte, the first in the low nibble", "[gemm]") {
  const std::vector<std::uint8_t> codes = {0x1, 0x2, 0xF, 0x7, 0x3};
  const std::vector<std::uint8_t> packed = pack_e2m1(codes);
  CHECK(packed == std::vector<std::uint8_t>{0x21, 0x7F, 0x03});
  for (std::size_t i = 0; i < codes.size(); ++i) CHECK(unpack_e2m1(packed, i) == codes[i]);
}

TEST_CASE("E4M3 decodes normals, subnormals, the 448 maximum and NaN", "[gemm]") {
  CHECK(decode_e4m3(0x38) == 1.0F);
  CHECK(decode_e4m3(0xB8) == -1.0F);
  CHECK(decode_e4m3(0x39) == 1.125F);
  CHECK(decode_e4m3(0x7E) == 448.0F);
  CHECK(decode_e4m3(0x08) == std::ldexp(1.0F, -6));  // smallest normal
  CHECK(decode_e4m3(0x01) == std::ldexp(1.0F, -9));  // smallest subnormal
  CHECK(std::isnan(decode_e4m3(0x7F)));
  CHECK(std::isnan(decode_e4m3(0xFF)));
}

TEST_CASE("E4M3 encoding round-trips every finite code and rounds ties to even", "[gemm]") {
  for (unsigned code = 0; code < 256; ++code) {
    const auto c = static_cast<std::uint8_t>(code);
    if ((c & 0x7FU) == 0x7FU || c == 0x80) continue;  // NaN, negative zero
    INFO("code " << code);
    CHECK(encode_e4m3(decode_e4m3(c)) == c);
  }
  CHECK(encode_e4m3(1.0625F) == 0x38);  // between 1 (0x38) and 1.125 (0x39)
  CHECK(encode_e4m3(1.1875F) == 0x3A);  // between 1.125 (0x39) and 1.25 (0x3A)
  CHECK(encode_e4m3(1000.0F) == 0x7E);  // saturates at 448
  CHECK(encode_e4m3(-1000.0F) == 0xFE);
}

TEST_CASE("UE4M3 block scales are unsigned E4M3", "[gemm]") {
  CHECK(encode_ue4m3(1.0F) == 0x38);
  CHECK(encode_ue4m3(0.25F) == 0x28);
  CHECK(encode_ue4m3(3.75F) == 0x47);
  CHECK(encode_ue4m3(7.5F) == 0x4F);
  CHECK(encode_ue4m3(-2.0F) == 0);
  CHECK(decode_ue4m3(0x28) == 0.25F);
  CHECK(decode_ue4m3(0xB8) == 1.0F);  // the sign bit is not part of the format
}

TEST_CASE("BF16 rounds to nearest even and keeps NaN", "[gemm]") {
  CHECK(encode_bf16(1.0F) == 0x3F80);
  CHECK(encode_bf16(-2.0F) == 0xC000);
  CHECK(encode_bf16(1.0F + std::ldexp(1.0F, -8)) == 0x3F80);      // halfway: to even
  CHECK(encode_bf16(1.0F + 3 * std::ldexp(1.0F, -8)) == 0x3F82);  // halfway: to even
  CHECK(encode_bf16(1.0F + std::ldexp(1.0F, -7) + std::ldexp(1.0F, -10)) == 0x3F81);
  CHECK(std::isnan(decode_bf16(encode_bf16(std::nanf("")))));
  CHECK(decode_bf16(0xC000) == -2.0F);
  CHECK(decode_bf16(encode_bf16(0.1F)) == 0.10009765625F);
}

TEST_CASE("block scales sit in 128 x 4 tiles, 32 rows of 16 bytes each, K tiles fastest",
          "[gemm]") {
  const std::size_t columns = 8;  // 128 values of K at 16 per scale: two column tiles
  CHECK(block_scale_offset(0, 0, columns) == 0);
  CHECK(block_scale_offset(0, 1, columns) == 1);
  CHECK(block_scale_offset(0, 3, columns) == 3);
  CHECK(block_scale_offset(1, 0, columns) == 16);
  CHECK(block_scale_offset(31, 0, columns) == std::size_t{31} * 16);
  CHECK(block_scale_offset(32, 0, columns) == 4);
  CHECK(block_scale_offset(97, 2, columns) == std::size_t{1 * 16 + 3 * 4 + 2});
  CHECK(block_scale_offset(0, 4, columns) == 512);                     // the next tile along K
  CHECK(block_scale_offset(128, 0, columns) == std::size_t{2} * 512);  // the next row of tiles
  CHECK(block_scale_offset(129, 5, columns) == std::size_t{3 * 512 + 16 + 1});
  CHECK_THROWS(block_scale_offset(0, columns, columns));
}

TEST_CASE("block scale tensors pad rows to 128 and scale columns to 4, each byte used once",
          "[gemm]") {
  CHECK(block_scale_bytes(1, 1) == std::size_t{128} * 4);
  CHECK(block_scale_bytes(192, 32) == std::size_t{256} * 32);
  CHECK(block_scale_bytes(256, 10) == std::size_t{256} * 12);
  const std::size_t rows = 256;
  const std::size_t columns = 12;
  std::set<std::size_t> seen;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < columns; ++c) {
      const std::size_t offset = block_scale_offset(r, c, columns);
      CHECK(offset < block_scale_bytes(rows, columns));
      seen.insert(offset);
    }
  }
  CHECK(seen.size() == rows * columns);
}
