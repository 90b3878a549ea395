#pragma once
/// Host-side encoders for the GEMM operands tpnet-calibrate gemm uploads:
/// FP4 E2M1 (packed two per byte), the UE4M3 block scales of NVFP4 in
/// cuBLASLt's tiled 128x4 layout, FP8 E4M3 and BF16. Pure C++ (no CUDA), so
/// the unit tests run on any machine; the GPU code and the CPU reference both
/// decode through these functions, so the reference sees exactly the values
/// the GPU multiplies.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tpnet::calibrate {

// ---- FP4 E2M1: sign, 2 exponent bits (bias 1), 1 mantissa bit ---------------
// The 8 magnitudes: 0, 0.5, 1, 1.5, 2, 3, 4, 6. No infinities or NaN.

/// The value of a 4-bit E2M1 code (the low nibble of `code`).
[[nodiscard]] float decode_e2m1(std::uint8_t code);
/// The E2M1 code nearest to `value` (ties to the even code), saturating at +-6.
[[nodiscard]] std::uint8_t encode_e2m1(float value);
/// Packs codes two per byte: element 2i in the low nibble, 2i+1 in the high
/// nibble (the order of CUDA's __nv_fp4x2_e2m1 and cuBLASLt's CUDA_R_4F_E2M1).
[[nodiscard]] std::vector<std::uint8_t> pack_e2m1(const std::vector<std::uint8_t>& codes);
/// The code of element `index` in a packed buffer.
[[nodiscard]] std::uint8_t unpack_e2m1(const std::vector<std::uint8_t>& packed, std::size_t index);

// ---- FP8 E4M3 (bias 7, max 448, 0x7F/0xFF NaN) and its unsigned UE4M3 ---------

[[nodiscard]] float decode_e4m3(std::uint8_t code);
/// Nearest E4M3 code, ties to even, saturating at +-448; NaN maps to 0x7F.
[[nodiscard]] std::uint8_t encode_e4m3(float value);
/// UE4M3, the NVFP4 block-scale type: E4M3 with the sign bit 0. Negative
/// input encodes as 0.
[[nodiscard]] float decode_ue4m3(std::uint8_t code);
[[nodiscard]] std::uint8_t encode_ue4m3(float value);

// ---- BF16 -------------------------------------------------------------------

/// The BF16 bits of `value`, rounded to nearest even (NaN stays a quiet NaN).
[[nodiscard]] std::uint16_t encode_bf16(float value);
[[nodiscard]] float decode_bf16(std::uint16_t bits);

// ---- cuBLASLt's block-scale layout ---------------------------------------
// VEC16_UE4M3 (and VEC32_UE8M0) scales are stored in tiles of 128 rows x 4
// scale columns, 512 bytes each, tiles ordered with the scale columns
// fastest: inside a tile the byte of (row r, column c) sits at
// (r % 32) x 16 + (r % 128) / 32 x 4 + c % 4. Rows are the outer dimension of
// the matrix (M for A, N for B), scale columns run along K (K / 16 for NVFP4).
// Source: cuBLAS documentation, "1D Block Scaling Factors Layout".

/// Byte offset of the scale for (row, scale_column) in a tensor with
/// `scale_columns` scale columns.
[[nodiscard]] std::size_t block_scale_offset(std::size_t row, std::size_t scale_column,
                                             std::size_t scale_columns);
/// Bytes of a scale tensor: rows padded to 128, scale columns to 4.
[[nodiscard]] std::size_t block_scale_bytes(std::size_t rows, std::size_t scale_columns);

}  // namespace tpnet::calibrate
