// tpnet-calibrate alltoall end to end: bad input, the MPI harness under
// mpirun on loopback over 2 and 3 ranks (the sweep read back by tpnet's
// nccl-tests reader as an all-to-all, every element checked, then fitted),
// the timeout of a rank that never joins, and a one-GPU NCCL sweep where
// there is a GPU.

#include <filesystem>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "run_process.hpp"
#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/measured/alltoall_fit.hpp"

using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::fresh_dir;
using tpnet::test::joined;
using tpnet::test::mpirun;
using tpnet::test::run_calibrate;
using tpnet::test::run_program;
using tpnet::test::slurp;
namespace fs = std::filesystem;

TEST_CASE("alltoall bad input exits 2 with one line naming the flag", "[calibrate][alltoall]") {
  expect_bad_input(run_calibrate({"alltoall", "--backend", "mpi", "-b", "7"}),
                   "--min-bytes: '7' is 7 B, an odd byte count");
  expect_bad_input(run_calibrate({"alltoall", "--backend", "mpi", "-f", "1"}), "--factor");
  expect_bad_input(run_calibrate({"alltoall", "--backend", "gloo"}), "--backend: 'gloo'");
  expect_bad_input(run_calibrate({"alltoall", "--backend", "mpi", "--iters", "0"}), "--iters");
  if (!TPNET_HAVE_CUDA) {
    expect_bad_input(run_calibrate({"alltoall", "--backend", "nccl"}), "built without CUDA");
  }
}

TEST_CASE("alltoall --help names the all-to-all and hides the stall flags",
          "[calibrate][alltoall]") {
  const CliResult r = run_calibrate({"alltoall", "--help"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("alltoall_perf"));
  CHECK_THAT(r.out, ContainsSubstring("Timed all-to-alls per size"));
  CHECK_THAT(r.out, !ContainsSubstring("--stall-rank"));
}

TEST_CASE("mpirun alltoall --backend mpi over 2 and 3 ranks writes a sweep tpnet reads and fits",
          "[calibrate][alltoall][mpi]") {
  if (!TPNET_HAVE_MPI) {
    WARN("built without MPI: the MPI all-to-all is not tested");
    CHECK(run_calibrate({"alltoall", "--backend", "mpi"}).exit_code == 2);
    return;
  }
  for (const int ranks : {2, 3}) {
    INFO(ranks << " ranks");
    const fs::path out = fresh_dir("a2a" + std::to_string(ranks)) / "alltoall.txt";
    const CliResult r = run_program(
        joined(mpirun(ranks), {"alltoall", "--backend", "mpi", "-b", "8", "-e", "1M", "--warmup",
                               "1", "--iters", "3", "--out", out.string()}));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const tpnet::AllReduceSweep sweep = tpnet::load_nccl_tests(out.string());
    CHECK(sweep.collective == tpnet::Collective::alltoall);
    CHECK(sweep.ranks == ranks);
    // 2 ranks: 8 B to 1 MiB, 18 sizes. 3 ranks: multiples of 6 B, 6 B to 1048572 B.
    REQUIRE(sweep.samples.size() == 18);
    CHECK(sweep.samples.front().size.count() == (ranks == 2 ? 8.0 : 6.0));
    CHECK(sweep.samples.back().size.count() == (ranks == 2 ? 1048576.0 : 1048572.0));
    CHECK(sweep.samples.back().count == (ranks == 2 ? 262144 : 174762));
    for (const auto& sample : sweep.samples) {
      CHECK(sample.out_of_place.wrong == 0.0);  // every element from the rank that sent it
      CHECK_FALSE(sample.in_place.has_value());
      CHECK(sample.out_of_place.time.value() > 0.0);
    }
    CHECK(sweep.provenance.at("backend") == "mpi");
    CHECK(sweep.provenance.at("ranks") == std::to_string(ranks));
    CHECK(sweep.provenance.at("op") == "none");
    CHECK(sweep.complete);
    CHECK_THAT(r.err, ContainsSubstring("alltoall 1048"));  // progress, once per size

    // The fit reads it too. Loopback on a loaded machine may time every size
    // by scheduling alone and leave no rate to fit: then the refusal names
    // the file and why, the one refusal allowed here.
    try {
      const tpnet::AlltoAllFit fit = tpnet::fit_alltoall(sweep, sweep.ranks);
      CHECK(fit.rate.bits_per_second() > 0.0);
      CHECK(fit.alpha.value() >= 0.0);
      CHECK(fit.points_used == 18);
    } catch (const tpnet::InputError& e) {
      CHECK_THAT(e.what(), ContainsSubstring(out.string() + ": gives no positive bandwidth"));
    }
  }
}

TEST_CASE("an all-to-all rank that never joins times out: exit 4, rows before kept",
          "[calibrate][alltoall][mpi]") {
  if (!TPNET_HAVE_MPI) {
    WARN("built without MPI: the MPI timeout is not tested");
    CHECK(run_calibrate({"alltoall", "--backend", "mpi"}).exit_code == 2);
    return;
  }
  const fs::path out = fresh_dir("a2a-stall") / "alltoall.txt";
  const CliResult r = run_program(joined(
      mpirun(2),
      {"alltoall", "--backend", "mpi", "-b", "8", "-e", "64K", "--warmup", "1", "--iters", "2",
       "--timeout", "2s", "--stall-rank", "1", "--stall-after", "1K", "--out", out.string()}));
  INFO(r.err);
  CHECK(r.exit_code == 4);
  CHECK_THAT(r.err, ContainsSubstring("rank 1 ("));
  CHECK_THAT(r.err, ContainsSubstring("MPI_Ialltoall of 1024 B timed out after 2 s"));
  const std::string text = slurp(out);
  CHECK_THAT(text, ContainsSubstring("\n         512 "));
  CHECK_THAT(text, !ContainsSubstring("\n        1024 "));
  tpnet::NcclTestsReadOptions partial;
  partial.allow_truncated = true;
  const tpnet::AllReduceSweep sweep = tpnet::load_nccl_tests(out.string(), partial);
  CHECK(sweep.samples.size() == 7);  // 8 B .. 512 B
  CHECK_FALSE(sweep.complete);
}

TEST_CASE("alltoall --backend nccl sweeps one GPU and checks every element",
          "[calibrate][alltoall][gpu]") {
  if (!TPNET_HAVE_CUDA) {
    WARN("SKIPPED: no CUDA device: built without CUDA");
    CHECK(run_calibrate({"alltoall", "--backend", "nccl"}).exit_code == 2);
    return;
  }
  const fs::path out = fresh_dir("a2a-nccl1") / "alltoall.txt";
  const CliResult r = run_calibrate({"alltoall", "--backend", "nccl", "-b", "8", "-e", "64M",
                                     "--warmup", "2", "--iters", "5", "--out", out.string()});
  if (r.exit_code == 4 && r.err.find("no CUDA device") != std::string::npos) {
    WARN("SKIPPED: no CUDA device: " << r.err);
    CHECK_THAT(r.err, ContainsSubstring("cudaGetDeviceCount"));
    return;
  }
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const tpnet::AllReduceSweep sweep = tpnet::load_nccl_tests(out.string());
  CHECK(sweep.collective == tpnet::Collective::alltoall);
  CHECK(sweep.ranks == 1);
  REQUIRE(sweep.samples.size() == 24);
  for (const auto& sample : sweep.samples) CHECK(sample.out_of_place.wrong == 0.0);
  CHECK(sweep.provenance.at("backend") == "nccl");
  CHECK_FALSE(sweep.nccl_version.empty());
}
