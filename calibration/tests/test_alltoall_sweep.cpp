// The pure parts of tpnet-calibrate alltoall: the sizes N ranks can send, the
// values each rank sends each peer and the check of what arrived, nccl-tests'
// alltoall bus factor, and the alltoall_perf layout read back by tpnet.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "allreduce_sweep.hpp"
#include "alltoall_sweep.hpp"
#include "catch.hpp"
#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/measured/alltoall_fit.hpp"

using namespace tpnet::calibrate;
using tpnet::Collective;

TEST_CASE("all-to-all sizes are whole bf16 elements in every peer's block",
          "[calibrate][alltoall]") {
  // 3 ranks: multiples of 6 B. 8 -> 6, 16 -> 12, 32 -> 30, 64 -> 60.
  CHECK(alltoall_sizes({8, 16, 32, 64}, 3) == std::vector<long long>{6, 12, 30, 60});
  // 4 ranks: 8 B is one element each; 2 and 4 B are too small to send to all.
  CHECK(alltoall_sizes({2, 4, 8, 16}, 4) == std::vector<long long>{8, 16});
  // A size that rounds onto the one before is dropped, not repeated.
  CHECK(alltoall_sizes({20, 22, 24}, 5) == std::vector<long long>{20});
  CHECK(alltoall_sizes({8, 1048576}, 1) == std::vector<long long>{8, 1048576});
  CHECK(alltoall_sizes({2}, 3).empty());
}

TEST_CASE("every (source, destination) block is told apart element by element",
          "[calibrate][alltoall]") {
  for (long long index = 0; index < 600; index += 7) {
    std::set<int> values_from_sources;
    std::set<int> values_to_destinations;
    for (int rank = 0; rank < 8; ++rank) {
      const int value = alltoall_pattern_value(rank, 3, index);
      CHECK(value >= 0);
      CHECK(value <= 250);  // bf16 holds every integer to 256 exactly
      CHECK(bf16_to_float(float_to_bf16(static_cast<float>(value))) == static_cast<float>(value));
      values_from_sources.insert(value);
      values_to_destinations.insert(alltoall_pattern_value(3, rank, index));
    }
    // A block from (or for) another rank differs at this element.
    CHECK(values_from_sources.size() == 8);
    CHECK(values_to_destinations.size() == 8);
    // A block shifted by one element differs too.
    CHECK(alltoall_pattern_value(1, 2, index) != alltoall_pattern_value(1, 2, index + 1));
  }
  CHECK(float_to_bf16(-1.0F) == kAlltoAllUnset);
}

TEST_CASE("what a rank receives is checked against what each source sent it",
          "[calibrate][alltoall]") {
  const int ranks = 3;
  const long long block = 5;
  // Deliver as MPI_Alltoall does: block d of rank s lands in block s of rank d.
  std::vector<std::vector<std::uint16_t>> sent;
  sent.reserve(static_cast<std::size_t>(ranks));
  for (int rank = 0; rank < ranks; ++rank) sent.push_back(alltoall_send_buffer(rank, ranks, block));
  for (int rank = 0; rank < ranks; ++rank) {
    std::vector<std::uint16_t> received(static_cast<std::size_t>(ranks * block), kAlltoAllUnset);
    for (int source = 0; source < ranks; ++source) {
      for (long long i = 0; i < block; ++i) {
        received[static_cast<std::size_t>(source * block + i)] =
            sent[static_cast<std::size_t>(source)][static_cast<std::size_t>(rank * block + i)];
      }
    }
    CHECK(alltoall_wrong_elements(received.data(), rank, ranks, block) == 0);
    // Two blocks swapped: both are wrong, every element.
    std::vector<std::uint16_t> swapped = received;
    std::swap_ranges(swapped.begin(), swapped.begin() + block, swapped.begin() + block);
    CHECK(alltoall_wrong_elements(swapped.data(), rank, ranks, block) == 2 * block);
    // Never delivered: the -1s are wrong.
    std::vector<std::uint16_t> missing = received;
    std::fill(missing.begin() + 2 * block, missing.end(), kAlltoAllUnset);
    CHECK(alltoall_wrong_elements(missing.data(), rank, ranks, block) == block);
  }
  // Its own send buffer is not what it receives (the check is not trivial).
  CHECK(alltoall_wrong_elements(sent[1].data(), 1, ranks, block) > 0);
}

TEST_CASE("alltoall busbw is algbw x (N-1)/N, nccl-tests' bus factor", "[calibrate][alltoall]") {
  CHECK_THAT(busbw_gbps(1000000, 1e-3, 4, Collective::alltoall), WithinRel(0.75, 1e-12));
  CHECK_THAT(busbw_gbps(1000000, 1e-3, 2, Collective::alltoall), WithinRel(0.5, 1e-12));
  CHECK(busbw_gbps(1000000, 1e-3, 1, Collective::alltoall) == 0.0);
  // The all-reduce keeps its 2(N-1)/N.
  CHECK_THAT(busbw_gbps(1000000, 1e-3, 4), WithinRel(1.5, 1e-12));
  CHECK(sweep_command_name(Collective::alltoall) == "alltoall");
  CHECK_FALSE(times_in_place(Collective::alltoall));
}

namespace {

std::string alltoall_text(const std::vector<SweepRow>& rows, int ranks) {
  SweepProvenance provenance;
  provenance.collective = Collective::alltoall;
  provenance.backend = "mpi";
  provenance.date = "2026-12-06T12:00:00Z";
  provenance.hosts = {"h1"};
  provenance.ranks = ranks;
  std::vector<std::string> lines;
  lines.reserve(static_cast<std::size_t>(ranks));
  for (int rank = 0; rank < ranks; ++rank) {
    lines.push_back(rank_line(rank, 2000 + rank, "h1", 0, "cpu", "MPI CPU backend"));
  }
  std::string text = sweep_header(provenance, lines, 8, 1048576, 2.0, 5, 20, true);
  for (const auto& row : rows) text += sweep_row(row, ranks, Collective::alltoall);
  return text + sweep_footer(rows, ranks, Collective::alltoall);
}

}  // namespace

TEST_CASE("the alltoall_perf layout is read back as an all-to-all and fitted",
          "[calibrate][alltoall]") {
  // 3 ranks: sizes are multiples of 6 B; count is one peer's block.
  const std::vector<SweepRow> rows{{6, 20e-6, 0, 0.0, std::nullopt},
                                   {98304, 40e-6, 0, 0.0, std::nullopt},
                                   {1572864, 340e-6, 0, 0.0, std::nullopt}};
  const std::string text = alltoall_text(rows, 3);
  CHECK_THAT(text, ContainsSubstring("# tpnet-calibrate alltoall backend=mpi"));
  CHECK_THAT(text, ContainsSubstring("op=none"));
  CHECK_THAT(text, !ContainsSubstring("in-place"));
  const std::string row = sweep_row(rows[2], 3, Collective::alltoall);
  CHECK_THAT(row, ContainsSubstring("      262144  bfloat16    none      -1"));  // 1572864 / 2 / 3
  CHECK_THAT(row, ContainsSubstring("  340.0    4.63    3.08      0"));  // busbw = 4.63 x 2/3

  const tpnet::AllReduceSweep sweep = tpnet::parse_nccl_tests(text, "a2a.txt");
  CHECK(sweep.collective == Collective::alltoall);
  CHECK(sweep.ranks == 3);
  REQUIRE(sweep.samples.size() == 3);
  CHECK(sweep.samples[2].count == 262144);
  CHECK_FALSE(sweep.samples[2].in_place.has_value());
  CHECK(sweep.provenance.at("backend") == "mpi");
  CHECK(sweep.provenance.at("op") == "none");
  CHECK(sweep.complete);
  const tpnet::AlltoAllFit fit = tpnet::fit_alltoall(sweep, sweep.ranks);
  CHECK(fit.rate.bits_per_second() > 0.0);
  CHECK_THAT(fit.sent_factor, WithinRel(2.0 / 3.0, 1e-12));
}

TEST_CASE("the all-reduce layout is unchanged by the all-to-all's",
          "[calibrate][allreduce][alltoall]") {
  const SweepRow row{1048576, 150e-6, 0, 151e-6, 0};
  CHECK(sweep_row(row, 4) ==
        "     1048576        524288  bfloat16     sum      -1    150.0    6.99   10.49      0    "
        "151.0    6.94   10.42      0\n");
}
