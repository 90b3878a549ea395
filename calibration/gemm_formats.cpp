#include "gemm_formats.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>

namespace tpnet::calibrate {
namespace {

constexpr float kE2m1Magnitudes[8] = {0.0F, 0.5F, 1.0F, 1.5F, 2.0F, 3.0F, 4.0F, 6.0F};
constexpr std::uint8_t kE4m3MaxFinite = 0x7E;  // 448; 0x7F is NaN

/// The code in [0, last] whose decoded value is nearest to `magnitude`, ties
/// to the even code. Codes of one sign decode in increasing order, so of two
/// equally near candidates one is even. A linear search: 127 codes at most,
/// on the host, for test-sized data.
template <typename Decode>
std::uint8_t nearest_code(float magnitude, std::uint8_t last, Decode decode) {
  std::uint8_t best = 0;
  float best_distance = std::fabs(magnitude - decode(0));
  for (unsigned code = 1; code <= last; ++code) {
    const auto c = static_cast<std::uint8_t>(code);
    const float distance = std::fabs(magnitude - decode(c));
    if (distance < best_distance || (distance == best_distance && (c & 1U) == 0U)) {
      best = c;
      best_distance = distance;
    }
  }
  return best;
}

std::size_t round_up_size(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

float decode_e2m1(std::uint8_t code) {
  const float magnitude = kE2m1Magnitudes[code & 0x7U];
  return (code & 0x8U) != 0U ? -magnitude : magnitude;
}

std::uint8_t encode_e2m1(float value) {
  if (std::isnan(value)) return 0;  // E2M1 has no NaN
  const float magnitude = std::fmin(std::fabs(value), 6.0F);
  const std::uint8_t code =
      nearest_code(magnitude, 7, [](std::uint8_t c) { return kE2m1Magnitudes[c]; });
  return value < 0.0F && code != 0 ? static_cast<std::uint8_t>(code | 0x8U) : code;
}

std::vector<std::uint8_t> pack_e2m1(const std::vector<std::uint8_t>& codes) {
  std::vector<std::uint8_t> packed((codes.size() + 1) / 2, 0);
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const auto nibble = static_cast<std::uint8_t>(codes[i] & 0xFU);
    packed[i / 2] |= (i % 2 == 0) ? nibble : static_cast<std::uint8_t>(nibble << 4U);
  }
  return packed;
}

std::uint8_t unpack_e2m1(const std::vector<std::uint8_t>& packed, std::size_t index) {
  const std::uint8_t byte = packed.at(index / 2);
  return static_cast<std::uint8_t>(index % 2 == 0 ? (byte & 0xFU) : (byte >> 4U));
}

float decode_e4m3(std::uint8_t code) {
  const unsigned exponent = (code >> 3U) & 0xFU;
  const unsigned mantissa = code & 0x7U;
  if (exponent == 0xFU && mantissa == 0x7U) return std::nanf("");
  const float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(mantissa) / 8.0F, -6)
                                        : std::ldexp(1.0F + static_cast<float>(mantissa) / 8.0F,
                                                     static_cast<int>(exponent) - 7);
  return (code & 0x80U) != 0U ? -magnitude : magnitude;
}

std::uint8_t encode_e4m3(float value) {
  if (std::isnan(value)) return 0x7F;
  const float magnitude = std::fmin(std::fabs(value), 448.0F);
  const std::uint8_t code = nearest_code(magnitude, kE4m3MaxFinite, decode_e4m3);
  return value < 0.0F && code != 0 ? static_cast<std::uint8_t>(code | 0x80U) : code;
}

float decode_ue4m3(std::uint8_t code) {
  return decode_e4m3(static_cast<std::uint8_t>(code & 0x7FU));
}

std::uint8_t encode_ue4m3(float value) {
  if (std::isnan(value)) return 0x7F;
  return value <= 0.0F ? 0 : encode_e4m3(value);
}

std::uint16_t encode_bf16(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  if (std::isnan(value)) return static_cast<std::uint16_t>((bits >> 16U) | 0x0040U);
  // Round to nearest even: add 0x7FFF plus the lowest kept bit, then truncate.
  const std::uint32_t rounded = bits + 0x7FFFU + ((bits >> 16U) & 1U);
  return static_cast<std::uint16_t>(rounded >> 16U);
}

float decode_bf16(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16U);
}

std::size_t block_scale_offset(std::size_t row, std::size_t scale_column,
                               std::size_t scale_columns) {
  if (scale_column >= scale_columns) throw std::out_of_range("block_scale_offset: column");
  const std::size_t column_tiles = (scale_columns + 3) / 4;
  const std::size_t tile = (row / 128) * column_tiles + scale_column / 4;
  return tile * 512 + (row % 32) * 16 + (row % 128) / 32 * 4 + scale_column % 4;
}

std::size_t block_scale_bytes(std::size_t rows, std::size_t scale_columns) {
  return round_up_size(rows, 128) * round_up_size(scale_columns, 4);
}

}  // namespace tpnet::calibrate
