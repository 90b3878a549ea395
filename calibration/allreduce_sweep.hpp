#pragma once
/// The pure parts of `tpnet-calibrate allreduce`: the sizes of a sweep, bf16
/// arithmetic, the values each rank reduces (chosen so the sum is exact), and
/// the nccl-tests text layout the sweep is written in (`all_reduce_perf`'s,
/// and `alltoall_perf`'s for `tpnet-calibrate alltoall`; calibration/README.md,
/// read back by tpnet::load_nccl_tests).

#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tpnet/traffic/collective.hpp"

namespace tpnet::calibrate {

/// Bytes of one bf16 element: sizes must be multiples of it.
inline constexpr long long kBf16Bytes = 2;

/// Sizes from `min_bytes` up to `max_bytes`, each `factor` times the last
/// (nccl-tests' -b/-e/-f), rounded down to whole bf16 elements and strictly
/// increasing. Expects 2 <= min <= max, both even, and factor > 1.
std::vector<long long> sweep_sizes(long long min_bytes, long long max_bytes, double factor);

/// bf16 (the top 16 bits of an IEEE float) to float: exact.
inline float bf16_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16U);
}
/// float to bf16, rounding to nearest, ties to even (as CUDA's __float2bfloat16).
inline std::uint16_t float_to_bf16(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  if (std::isnan(value)) return static_cast<std::uint16_t>((bits >> 16U) | 0x40U);  // stays NaN
  const std::uint32_t rounding = 0x7FFFU + ((bits >> 16U) & 1U);                    // ties to even
  return static_cast<std::uint16_t>((bits + rounding) >> 16U);
}
/// a + b in bf16: the float sum rounded to nearest even, as NCCL's bf16 sum
/// does per step (inline: the MPI backend's reduction calls it per element).
inline std::uint16_t bf16_add(std::uint16_t a, std::uint16_t b) {
  return float_to_bf16(bf16_to_float(a) + bf16_to_float(b));
}

/// The small integer rank `rank` of `ranks` contributes at element `index`.
/// Every partial sum stays an integer <= 256, so bf16 holds it exactly in any
/// reduction order: values are 0..min(8, 256/ranks), and ranks past the 256th
/// contribute 0.
int pattern_value(int rank, int ranks, long long index);
/// The exact sum over all ranks of pattern_value at `index`.
int expected_sum(int ranks, long long index);
/// pattern_value and expected_sum repeat with this period in `index`.
int pattern_period(int ranks);

/// One measured size: the mean time of one all-reduce, taken as the maximum
/// over ranks, out-of-place then in-place; wrong element counts summed over
/// ranks (nullopt: not checked).
struct SweepRow {
  long long bytes = 0;
  double out_of_place_s = 0.0;
  std::optional<long long> out_of_place_wrong;
  double in_place_s = 0.0;
  std::optional<long long> in_place_wrong;
};

/// algbw = S / t in GB/s (10^9 B/s), nccl-tests' definition.
double algbw_gbps(long long bytes, double seconds);
/// busbw = algbw x nccl-tests' bus factor of `collective` (ring_sent_factor):
/// 2(N-1)/N for all_reduce, the rate each rank's link carries in a ring;
/// (N-1)/N for alltoall, the share of S a rank sends to the others.
double busbw_gbps(long long bytes, double seconds, int ranks,
                  Collective collective = Collective::all_reduce);

/// The tpnet-calibrate subcommand that sweeps `collective`: "allreduce",
/// "alltoall".
std::string sweep_command_name(Collective collective);
/// Whether the sweep times an in-place run beside the out-of-place one:
/// all_reduce yes; alltoall no (nccl-tests cannot check its in-place
/// alltoall, whose sends read the buffer the receives overwrite).
bool times_in_place(Collective collective);

/// Who made the sweep; written as one `# tpnet-calibrate allreduce k=v ...`
/// line (values without spaces).
struct SweepProvenance {
  Collective collective = Collective::all_reduce;  ///< names the line and the op
  std::string backend;                             ///< "mpi" or "nccl"
  std::string date;                                ///< ISO 8601 UTC, e.g. 2026-11-29T15:04:05Z
  std::vector<std::string> hosts;                  ///< each host once, in rank order
  int ranks = 0;
  std::string nccl = "none";   ///< "2.28.3", or "none" for the MPI backend
  int nccl_code = 0;           ///< ncclGetVersion's code; 0 = none
  std::string algo = "auto";   ///< NCCL_ALGO in effect, or "auto"
  std::string proto = "auto";  ///< NCCL_PROTO in effect, or "auto"
};

/// One rank's `#  Rank ...` line as nccl-tests prints it; the importer counts
/// ranks from these.
std::string rank_line(int rank, long pid, const std::string& host, int device,
                      const std::string& bus_id, const std::string& device_name);

/// Everything before the first row: provenance, settings, the rank lines,
/// the column header and its units line (the in-place columns only where
/// times_in_place). Each line ends in '\n'.
std::string sweep_header(const SweepProvenance& provenance, const std::vector<std::string>& ranks,
                         long long min_bytes, long long max_bytes, double factor, int warmup,
                         int iters, bool check);
/// One row in nccl-tests' layout: size, count, type (bfloat16), redop, root
/// (-1), then time (us), algbw, busbw (GB/s), #wrong out-of-place, and
/// in-place where times_in_place. `#wrong` is N/A when unchecked. all_reduce:
/// count = S / 2 B, redop sum; alltoall: count = one peer's block, S / 2 B /
/// N, redop none (as alltoall_perf prints them).
std::string sweep_row(const SweepRow& row, int ranks,
                      Collective collective = Collective::all_reduce);
/// The footer: `# Out of bounds values : W OK|FAILED`, `# Avg bus bandwidth :
/// X` (mean busbw of every timing in the rows) and a closing line.
std::string sweep_footer(const std::vector<SweepRow>& rows, int ranks,
                         Collective collective = Collective::all_reduce);

/// Current UTC time as 2026-11-29T15:04:05Z.
std::string utc_timestamp();

}  // namespace tpnet::calibrate
