#pragma once
/// The pure parts of `tpnet-calibrate alltoall`: the sizes an all-to-all of N
/// ranks can send, and the values each rank sends to each peer, chosen so a
/// block delivered to the wrong rank, from the wrong rank or shifted is
/// caught element by element. The text layout is allreduce_sweep.hpp's with
/// Collective::alltoall (nccl-tests' `alltoall_perf`).

#include <cstdint>
#include <vector>

namespace tpnet::calibrate {

/// The sizes of `sizes` an all-to-all of `ranks` can send: each rounded down
/// to whole bf16 elements in every one of the N peer blocks (a multiple of
/// N x 2 B, as nccl-tests rounds its count), dropping those that round to 0
/// or to the size before.
std::vector<long long> alltoall_sizes(const std::vector<long long>& sizes, int ranks);

/// The integer (0 to 250) rank `source` sends to rank `destination` at
/// element `index` of its block: (5 index + 37 source + 11 destination + 1)
/// mod 251. 251 is prime, so two sources (or two destinations) below 251
/// differ at every element, and a block shifted by fewer than 251 elements
/// differs at every element too. bf16 holds these integers exactly.
int alltoall_pattern_value(int source, int destination, long long index);

/// What a receive buffer holds before the all-to-all: -1 in bf16, never a
/// pattern value, so an element never delivered counts as wrong.
inline constexpr std::uint16_t kAlltoAllUnset = 0xBF80;

/// Rank `rank`'s send buffer of `ranks` blocks of `block_elements` bf16
/// values: block d holds what `rank` sends to rank d.
std::vector<std::uint16_t> alltoall_send_buffer(int rank, int ranks, long long block_elements);

/// The elements of `received` (`ranks` blocks of `block_elements`, block s
/// from rank s) that differ from what each source sent to `rank`.
long long alltoall_wrong_elements(const std::uint16_t* received, int rank, int ranks,
                                  long long block_elements);

}  // namespace tpnet::calibrate
