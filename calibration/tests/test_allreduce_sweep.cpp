// The pure parts of tpnet-calibrate allreduce: sizes, bf16 rounding, the
// values each rank reduces, and the nccl-tests layout read back by tpnet.

#include "allreduce_sweep.hpp"

#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/io/nccl_tests.hpp"

using namespace tpnet::calibrate;

TEST_CASE("sweep sizes double from -b to -e like nccl-tests", "[calibrate][allreduce]") {
  const std::vector<long long> sizes = sweep_sizes(8, 1048576, 2.0);
  REQUIRE(sizes.size() == 18);
  CHECK(sizes.front() == 8);
  CHECK(sizes[1] == 16);
  CHECK(sizes.back() == 1048576);
  // 1M decimal is not a power of two: the sweep stops at the last size below it.
  CHECK(sweep_sizes(8, 1000000, 2.0).back() == 524288);
  CHECK(sweep_sizes(64, 64, 2.0) == std::vector<long long>{64});
}

TEST_CASE("sweep sizes stay whole bf16 elements and always grow", "[calibrate][allreduce]") {
  // 1.5 x 6 = 9 B would be half an element: rounded down to 8.
  CHECK(sweep_sizes(6, 20, 1.5) == std::vector<long long>{6, 8, 12, 18});
  // A factor too small to move 8 B still steps one element.
  CHECK(sweep_sizes(8, 14, 1.01) == std::vector<long long>{8, 10, 12, 14});
  for (const long long size : sweep_sizes(2, 100000, 1.3)) CHECK(size % 2 == 0);
}

TEST_CASE("bf16 rounds to nearest even like __float2bfloat16", "[calibrate][allreduce]") {
  CHECK(float_to_bf16(1.0F) == 0x3F80);
  CHECK(bf16_to_float(0x3F80) == 1.0F);
  CHECK(bf16_to_float(float_to_bf16(256.0F)) == 256.0F);
  // 257 lies halfway between 256 and 258: ties go to the even mantissa, 256.
  CHECK(bf16_to_float(float_to_bf16(257.0F)) == 256.0F);
  // 259 lies halfway between 258 and 260: 260 has the even mantissa.
  CHECK(bf16_to_float(float_to_bf16(259.0F)) == 260.0F);
  CHECK(bf16_to_float(float_to_bf16(1.00390625F)) == 1.0F);       // 1 + 2^-8: tie, down to even
  CHECK(bf16_to_float(float_to_bf16(1.01171875F)) == 1.015625F);  // 1 + 3*2^-8: tie, up to even
  CHECK(bf16_add(float_to_bf16(3.0F), float_to_bf16(4.0F)) == float_to_bf16(7.0F));
}

TEST_CASE("each rank's values sum exactly in bf16 in any order", "[calibrate][allreduce]") {
  for (const int ranks : {1, 2, 4, 8, 64, 300}) {
    INFO(ranks << " ranks");
    const int period = pattern_period(ranks);
    CHECK(period >= 2);
    for (long long index = 0; index < 3LL * period; ++index) {
      // Forward and backward bf16 accumulation both give the exact integer sum.
      std::uint16_t forward = 0;
      std::uint16_t backward = 0;
      for (int rank = 0; rank < ranks; ++rank) {
        forward =
            bf16_add(forward, float_to_bf16(static_cast<float>(pattern_value(rank, ranks, index))));
        backward = bf16_add(
            backward,
            float_to_bf16(static_cast<float>(pattern_value(ranks - 1 - rank, ranks, index))));
      }
      const int expected = expected_sum(ranks, index);
      CHECK(expected <= 256);
      CHECK(bf16_to_float(forward) == static_cast<float>(expected));
      CHECK(forward == backward);
      CHECK(pattern_value(0, ranks, index) == pattern_value(0, ranks, index + period));
    }
  }
  // Not a constant: a reduction that returned a stale buffer would be caught.
  CHECK(expected_sum(4, 0) != expected_sum(4, 1));
}

TEST_CASE("algbw and busbw follow nccl-tests' definitions", "[calibrate][allreduce]") {
  CHECK_THAT(algbw_gbps(1000000, 1e-3), WithinRel(1.0, 1e-12));
  // busbw = algbw x 2(N-1)/N: 8 ranks carry 1.75x the algorithm bandwidth.
  CHECK_THAT(busbw_gbps(1000000, 1e-3, 8), WithinRel(1.75, 1e-12));
  CHECK(busbw_gbps(1000000, 1e-3, 1) == 0.0);
}

namespace {

std::string sample_sweep(const std::vector<SweepRow>& rows, int ranks) {
  SweepProvenance provenance;
  provenance.backend = "mpi";
  provenance.date = "2026-11-29T15:04:05Z";
  provenance.hosts = {"h1", "h2"};
  provenance.ranks = ranks;
  std::vector<std::string> lines;
  lines.reserve(static_cast<std::size_t>(ranks));
  for (int rank = 0; rank < ranks; ++rank) {
    lines.push_back(
        rank_line(rank, 1000 + rank, rank < ranks / 2 ? "h1" : "h2", 0, "cpu", "MPI CPU backend"));
  }
  std::string text = sweep_header(provenance, lines, 8, 1024, 2.0, 5, 20, true);
  for (const auto& row : rows) text += sweep_row(row, ranks);
  return text + sweep_footer(rows, ranks);
}

}  // namespace

TEST_CASE("the sweep layout is read back by tpnet's nccl-tests importer",
          "[calibrate][allreduce]") {
  const std::vector<SweepRow> rows{
      {8, 20e-6, 0, 21e-6, 0}, {1024, 25e-6, 0, 26e-6, 0}, {1048576, 150e-6, 0, 151e-6, 0}};
  const std::string text = sample_sweep(rows, 4);
  const tpnet::AllReduceSweep sweep = tpnet::parse_nccl_tests(text, "sweep.txt");
  CHECK(sweep.ranks == 4);
  REQUIRE(sweep.samples.size() == 3);
  CHECK(sweep.samples[2].size.count() == 1048576.0);
  CHECK(sweep.samples[2].count == 524288);
  CHECK(sweep.samples[2].type == "bfloat16");
  CHECK_THAT(sweep.samples[2].out_of_place.time.value(), WithinRel(150e-6, 1e-3));
  REQUIRE(sweep.samples[2].in_place);
  CHECK(sweep.samples[2].in_place->wrong == 0.0);
  CHECK(sweep.hosts == std::vector<std::string>{"h1", "h2"});
  CHECK(sweep.provenance.at("backend") == "mpi");
  CHECK(sweep.provenance.at("ranks") == "4");
  CHECK(sweep.provenance.at("hosts") == "h1,h2");
  CHECK(sweep.provenance.at("dtype") == "bf16");
  CHECK(sweep.provenance.at("nccl") == "none");
  CHECK(sweep.complete);
}

TEST_CASE("the sweep prints nccl-tests' time precision and N/A when unchecked",
          "[calibrate][allreduce]") {
  SweepRow row{1048576, 12345e-6, std::nullopt, 99.5e-6, std::nullopt};
  const std::string line = sweep_row(row, 2);
  CHECK_THAT(line, ContainsSubstring("  12345  "));  // >= 10 ms: whole microseconds
  CHECK_THAT(line, ContainsSubstring("  99.50  "));  // < 100 us: two decimals
  CHECK_THAT(line, ContainsSubstring("N/A"));
  const tpnet::AllReduceSweep sweep = tpnet::parse_nccl_tests(sample_sweep({row}, 2), "s.txt");
  CHECK_FALSE(sweep.samples[0].out_of_place.wrong.has_value());
}

TEST_CASE("wrong elements fail the footer and the importer refuses them",
          "[calibrate][allreduce]") {
  const std::vector<SweepRow> rows{{8, 20e-6, 3, 21e-6, 0}};
  CHECK_THAT(sweep_footer(rows, 2), ContainsSubstring("Out of bounds values : 3 FAILED"));
  CHECK_THROWS_AS(tpnet::parse_nccl_tests(sample_sweep(rows, 2), "bad.txt"), tpnet::InputError);
}
