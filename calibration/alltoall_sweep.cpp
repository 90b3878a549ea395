#include "alltoall_sweep.hpp"

#include "allreduce_sweep.hpp"

namespace tpnet::calibrate {

std::vector<long long> alltoall_sizes(const std::vector<long long>& sizes, int ranks) {
  std::vector<long long> out;
  const long long step = kBf16Bytes * ranks;
  if (step <= 0) return out;
  for (const long long size : sizes) {
    const long long rounded = size / step * step;
    if (rounded > 0 && (out.empty() || rounded > out.back())) out.push_back(rounded);
  }
  return out;
}

namespace {

constexpr long long kAlltoAllPatternModulus = 251;  // prime, and below bf16's exact 256

}  // namespace

int alltoall_pattern_value(int source, int destination, long long index) {
  const long long m = kAlltoAllPatternModulus;
  return static_cast<int>(
      (index % m * 5 + static_cast<long long>(source) % m * 37 + destination % m * 11 + 1) % m);
}

std::vector<std::uint16_t> alltoall_send_buffer(int rank, int ranks, long long block_elements) {
  std::vector<std::uint16_t> send(static_cast<std::size_t>(block_elements) *
                                  static_cast<std::size_t>(ranks));
  std::size_t at = 0;
  for (int destination = 0; destination < ranks; ++destination) {
    for (long long i = 0; i < block_elements; ++i) {
      send[at++] = float_to_bf16(static_cast<float>(alltoall_pattern_value(rank, destination, i)));
    }
  }
  return send;
}

long long alltoall_wrong_elements(const std::uint16_t* received, int rank, int ranks,
                                  long long block_elements) {
  long long wrong = 0;
  for (int source = 0; source < ranks; ++source) {
    const std::uint16_t* block = received + static_cast<std::ptrdiff_t>(source) * block_elements;
    for (long long i = 0; i < block_elements; ++i) {
      const auto expected =
          float_to_bf16(static_cast<float>(alltoall_pattern_value(source, rank, i)));
      if (block[i] != expected) ++wrong;
    }
  }
  return wrong;
}

}  // namespace tpnet::calibrate
