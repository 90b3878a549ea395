// Fitting an all-to-all sweep (tpnet/measured/alltoall_fit.hpp,
// docs/formulas.md s.31.1): time = one round's fixed cost + the bytes a rank
// sends to the N - 1 others, S x (N-1)/N, at one rate. Worked by hand on two
// sizes, recovered from a generated sweep, fitted on the SYNTHETIC
// alltoall_perf log (tests/data/nccl-tests/SOURCES), and refused where the
// sweep cannot be fitted.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/measured/alltoall_fit.hpp"

using namespace tpnet;

namespace {

AllReduceSample timed(double size, double seconds) {
  AllReduceSample s;
  s.size = Bytes(size);
  s.count = static_cast<long long>(size / 2.0);
  s.type = "bfloat16";
  s.out_of_place.time = Seconds(seconds);
  s.out_of_place.algbw = BitRate(size * 8.0 / seconds);
  return s;
}

AllReduceSweep alltoall_sweep(const std::vector<AllReduceSample>& samples, int ranks) {
  AllReduceSweep sweep;
  sweep.origin = "a2a.txt";
  sweep.collective = Collective::alltoall;
  sweep.collective_from = "the log's header";
  sweep.ranks = ranks;
  sweep.samples = samples;
  return sweep;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string kSynthetic = (std::filesystem::path(TPNET_SOURCE_DIR) / "tests/data/nccl-tests" /
                                "synthetic-4rank-alltoall-bf16.txt")
                                   .string();

}  // namespace

TEST_CASE("two sizes on 2 ranks give alpha and the rate by hand", "[fit][alltoall][golden]") {
  // 2 ranks send half of S: 0.5 MB in 40 us, 1 MB in 60 us. The extra 0.5 MB
  // took 20 us: 0.5e6 x 8 b / 20 us = 200 Gb/s; alpha = 40 us - 20 us = 20 us.
  const AlltoAllFit fit =
      fit_alltoall(alltoall_sweep({timed(1e6, 40e-6), timed(2e6, 60e-6)}, 2), 2);
  CHECK(fit.sent_factor == 0.5);
  CHECK_THAT(fit.alpha.value(), WithinRel(20e-6, 1e-9));
  CHECK_THAT(fit.rate.bits_per_second(), WithinRel(200e9, 1e-9));
  CHECK(fit.points_used == 2);
  CHECK(fit.rms_relative_error < 1e-9);
  CHECK_FALSE(fit.constrained);
  CHECK_FALSE(fit.poor);
}

TEST_CASE("the fit recovers the round's cost and the rate a sweep was made from",
          "[fit][alltoall]") {
  for (const int ranks : {2, 3, 8}) {
    INFO(ranks << " ranks");
    const double alpha = 30e-6;
    const double rate = 100e9;  // bits of sent bytes per second
    const double sent = (ranks - 1.0) / ranks;
    std::vector<AllReduceSample> samples;
    for (double size = 1024.0 * ranks; size <= 1e9; size *= 4.0) {
      samples.push_back(timed(size, alpha + sent * size * 8.0 / rate));
    }
    const AlltoAllFit fit = fit_alltoall(alltoall_sweep(samples, ranks), ranks);
    CHECK_THAT(fit.alpha.value(), WithinRel(alpha, 1e-6));
    CHECK_THAT(fit.rate.bits_per_second(), WithinRel(rate, 1e-6));
    CHECK(fit.max_relative_error < 1e-6);
    REQUIRE(fit.curve.size() == samples.size());
    CHECK(fit.curve.back().in_range);
  }
}

TEST_CASE("the SYNTHETIC alltoall_perf log reads as an all-to-all of 4 ranks and fits",
          "[fit][alltoall][nccl]") {
  // Generated as 25 us + S x 3/4 / 20 GB/s, times rounded as nccl-tests prints them.
  const AllReduceSweep sweep = load_nccl_tests(kSynthetic);
  CHECK(sweep.collective == Collective::alltoall);
  CHECK(sweep.ranks == 4);
  REQUIRE(sweep.samples.size() == 11);
  CHECK(sweep.samples.front().count == 128);  // one peer's block: 1024 B / 2 B / 4
  const AlltoAllFit fit = fit_alltoall(sweep, sweep.ranks);
  CHECK_THAT(fit.alpha.value(), WithinRel(25e-6, 0.01));
  CHECK_THAT(fit.rate.bits_per_second(), WithinRel(160e9, 0.005));
  CHECK(fit.points_used == 11);
  CHECK(fit.rms_relative_error < 0.005);
  CHECK(fit.warnings.empty());
  // The largest size's busbw is the rate of the bytes sent: the fit's plateau.
  CHECK_THAT(fit.curve.back().busbw.bits_per_second(), WithinRel(160e9, 0.005));
}

TEST_CASE("an all-to-all fit that cannot be made is refused naming the file", "[fit][alltoall]") {
  const AllReduceSweep sweep = load_nccl_tests(kSynthetic);
  FitRange one_size;
  one_size.min_size = Bytes(1048576.0);
  one_size.max_size = Bytes(1048576.0);
  CHECK_THROWS_WITH(fit_alltoall(sweep, 4, one_size),
                    ContainsSubstring(kSynthetic) && ContainsSubstring("1 distinct size(s)"));
  CHECK_THROWS_WITH(fit_alltoall(sweep, 1),
                    ContainsSubstring("ranks is 1") && ContainsSubstring("an all-to-all sweep"));
  AllReduceSweep all_reduce = sweep;
  all_reduce.collective = Collective::all_reduce;
  all_reduce.collective_from = "the log's header";
  CHECK_THROWS_WITH(fit_alltoall(all_reduce, 4),
                    ContainsSubstring("measured all_reduce") && ContainsSubstring(kSynthetic));
  // Timed by scheduling alone: flat times give no rate.
  CHECK_THROWS_WITH(
      fit_alltoall(alltoall_sweep({timed(1e3, 50e-6), timed(2e3, 50e-6), timed(4e3, 49e-6)}, 2), 2),
      ContainsSubstring("gives no positive bandwidth"));
}

TEST_CASE("alltoall_perf's columns alone read as all_gather and still fit as an all-to-all",
          "[fit][alltoall][nccl]") {
  // Without its `# Collective test starting: alltoall_perf` line the log's
  // columns are all_gather's: fit_alltoall takes it, as the same bytes.
  std::string text = file_text(kSynthetic);
  text.erase(text.find("# Collective test starting: alltoall_perf\n"),
             std::string("# Collective test starting: alltoall_perf\n").size());
  const AllReduceSweep sweep = parse_nccl_tests(text, "columns.txt");
  CHECK(sweep.collective == Collective::all_gather);
  CHECK(sweep.collective_from == "the columns");
  const AlltoAllFit fit = fit_alltoall(sweep, 4);
  CHECK_THAT(fit.rate.bits_per_second(), WithinRel(160e9, 0.005));
}
