// tpnet-calibrate allreduce end to end: bad input, the whole harness under
// mpirun on loopback (launch, sweep, output read back by tpnet), the timeout
// of a rank that never joins, and a one-GPU NCCL sweep where there is a GPU.

#include <filesystem>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "run_process.hpp"
#include "tpnet/io/nccl_tests.hpp"

using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::fresh_dir;
using tpnet::test::joined;
using tpnet::test::mpirun;
using tpnet::test::run_calibrate;
using tpnet::test::run_program;
using tpnet::test::slurp;
namespace fs = std::filesystem;

TEST_CASE("allreduce bad input exits 2 with one line naming the flag", "[calibrate][allreduce]") {
  expect_bad_input(run_calibrate({"allreduce", "--backend", "mpi", "-b", "7"}),
                   "--min-bytes: '7' is 7 B, an odd byte count");
  expect_bad_input(run_calibrate({"allreduce", "--backend", "mpi", "-b", "0"}), "--min-bytes");
  expect_bad_input(run_calibrate({"allreduce", "--backend", "mpi", "-b", "1K", "-e", "8"}),
                   "--max-bytes: 8 B is below --min-bytes 1024 B");
  expect_bad_input(run_calibrate({"allreduce", "--backend", "mpi", "-f", "1"}), "--factor");
  expect_bad_input(run_calibrate({"allreduce", "--backend", "mpi", "--iters", "0"}), "--iters");
  expect_bad_input(run_calibrate({"allreduce", "--backend", "gloo"}), "--backend: 'gloo'");
  expect_bad_input(run_calibrate({"allreduce", "--backend", "mpi", "--timeout", "soon"}),
                   "--timeout");
  expect_bad_input(run_calibrate({"allreduce", "--backend", "mpi", "--stall-rank", "1"}),
                   "--stall-after");
  if (TPNET_HAVE_MPI) {
    expect_bad_input(run_calibrate({"allreduce", "--backend", "mpi", "--algo", "Ring"}),
                     "--algo: applies to --backend nccl only");
  } else {
    expect_bad_input(run_calibrate({"allreduce", "--backend", "mpi"}), "built without MPI");
  }
  if (!TPNET_HAVE_CUDA) {
    expect_bad_input(run_calibrate({"allreduce", "--backend", "nccl"}), "built without CUDA");
  }
}

TEST_CASE("allreduce --help lists the sweep flags but not the test-only stall flags",
          "[calibrate][allreduce]") {
  const CliResult r = run_calibrate({"allreduce", "--help"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("--max-bytes"));
  CHECK_THAT(r.out, ContainsSubstring("--no-check"));
  CHECK_THAT(r.out, !ContainsSubstring("--stall-rank"));
}

TEST_CASE("mpirun -np 4 allreduce --backend mpi writes a sweep tpnet reads with 4 ranks",
          "[calibrate][allreduce][mpi]") {
  if (!TPNET_HAVE_MPI) {
    WARN("built without MPI: the MPI harness is not tested");
    CHECK(run_calibrate({"allreduce", "--backend", "mpi"}).exit_code == 2);
    return;
  }
  const fs::path out = fresh_dir("mpi4") / "allreduce.txt";
  const CliResult r =
      run_program(joined(mpirun(4), {"allreduce", "--backend", "mpi", "-b", "8", "-e", "1M",
                                     "--warmup", "1", "--iters", "3", "--out", out.string()}));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, ContainsSubstring("allreduce 1048576 B"));  // progress, once per size

  const tpnet::AllReduceSweep sweep = tpnet::load_nccl_tests(out.string());
  CHECK(sweep.ranks == 4);
  REQUIRE(sweep.samples.size() == 18);
  CHECK(sweep.samples.front().size.count() == 8.0);
  CHECK(sweep.samples.back().size.count() == 1048576.0);
  for (const auto& sample : sweep.samples) {
    CHECK(sample.out_of_place.wrong == 0.0);
    REQUIRE(sample.in_place);
    CHECK(sample.in_place->wrong == 0.0);
    CHECK(sample.out_of_place.time.value() > 0.0);
  }
  CHECK(sweep.provenance.at("backend") == "mpi");
  CHECK(sweep.provenance.at("ranks") == "4");
  CHECK(sweep.provenance.at("nccl") == "none");
  CHECK(sweep.complete);

  // The fabric check reads it too. Loopback is no 200G link: healthy or not,
  // and on a loaded machine four oversubscribed ranks can time every size
  // by scheduling alone, leaving no bandwidth to fit; doctor then refuses
  // naming the file and why, which is the one refusal allowed here.
  const CliResult doctor = run_program({tpnet::test::tpnet_program(), "doctor", "--nccl-tests",
                                        out.string(), "--ranks", "4", "--format", "json"});
  INFO(doctor.err);
  if (doctor.exit_code == 2) {
    CHECK_THAT(doctor.err, ContainsSubstring(out.string() + ": gives no positive bandwidth"));
  } else {
    CHECK((doctor.exit_code == 0 || doctor.exit_code == 1));
    CHECK_THAT(doctor.out, ContainsSubstring("\"ranks\": 4"));
  }
}

TEST_CASE("allreduce writes the sweep to stdout from rank 0 only", "[calibrate][allreduce][mpi]") {
  if (!TPNET_HAVE_MPI) {
    WARN("built without MPI: the MPI harness is not tested");
    CHECK(run_calibrate({"allreduce", "--backend", "mpi"}).exit_code == 2);
    return;
  }
  const CliResult r =
      run_program(joined(mpirun(2), {"allreduce", "--backend", "mpi", "-b", "64", "-e", "4K", "-f",
                                     "4", "--warmup", "0", "--iters", "2", "--no-check"}));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const tpnet::AllReduceSweep sweep = tpnet::parse_nccl_tests(r.out, "stdout");
  CHECK(sweep.ranks == 2);
  REQUIRE(sweep.samples.size() == 4);                            // 64, 256, 1K, 4K
  CHECK_FALSE(sweep.samples[0].out_of_place.wrong.has_value());  // --no-check: N/A
}

TEST_CASE("a rank that never joins times out: exit 4 naming the rank, rows before kept",
          "[calibrate][allreduce][mpi]") {
  if (!TPNET_HAVE_MPI) {
    WARN("built without MPI: the MPI timeout is not tested");
    CHECK(run_calibrate({"allreduce", "--backend", "mpi"}).exit_code == 2);
    return;
  }
  const fs::path out = fresh_dir("stall") / "allreduce.txt";
  const CliResult r = run_program(joined(
      mpirun(4),
      {"allreduce", "--backend", "mpi", "-b", "8", "-e", "64K", "--warmup", "1", "--iters", "2",
       "--timeout", "2s", "--stall-rank", "2", "--stall-after", "1K", "--out", out.string()}));
  INFO(r.err);
  CHECK(r.exit_code == 4);
  CHECK_THAT(r.err, ContainsSubstring("rank 2 ("));  // the stalled rank says it stops
  CHECK_THAT(r.err, ContainsSubstring("MPI_Iallreduce of 1024 B timed out after 2 s"));
  CHECK_THAT(r.err, ContainsSubstring("measurement failed: rank "));
  // 8 .. 512 B were measured before the stall; the file has no footer.
  const std::string text = slurp(out);
  CHECK_THAT(text, ContainsSubstring("\n         512 "));
  CHECK_THAT(text, !ContainsSubstring("\n        1024 "));
  CHECK_THROWS_AS(tpnet::load_nccl_tests(out.string()), tpnet::InputError);
  tpnet::NcclTestsReadOptions partial;
  partial.allow_truncated = true;
  const tpnet::AllReduceSweep sweep = tpnet::load_nccl_tests(out.string(), partial);
  CHECK(sweep.samples.size() == 7);
  CHECK_FALSE(sweep.complete);
}

TEST_CASE("allreduce --backend nccl sweeps one GPU and checks every element",
          "[calibrate][allreduce][gpu]") {
  if (!TPNET_HAVE_CUDA) {
    WARN("SKIPPED: no CUDA device: built without CUDA");
    CHECK(run_calibrate({"allreduce", "--backend", "nccl"}).exit_code == 2);
    return;
  }
  const fs::path out = fresh_dir("nccl1") / "allreduce.txt";
  const CliResult r =
      run_calibrate({"allreduce", "--backend", "nccl", "-b", "8", "-e", "64M", "--warmup", "2",
                     "--iters", "5", "--algo", "Ring", "--out", out.string()});
  if (r.exit_code == 4 && r.err.find("no CUDA device") != std::string::npos) {
    WARN("SKIPPED: no CUDA device: " << r.err);
    CHECK_THAT(r.err, ContainsSubstring("cudaGetDeviceCount"));
    return;
  }
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const tpnet::AllReduceSweep sweep = tpnet::load_nccl_tests(out.string());
  CHECK(sweep.ranks == 1);
  REQUIRE(sweep.samples.size() == 24);
  for (const auto& sample : sweep.samples) CHECK(sample.out_of_place.wrong == 0.0);
  CHECK(sweep.provenance.at("backend") == "nccl");
  CHECK(sweep.provenance.at("algo") == "Ring");
  CHECK_FALSE(sweep.nccl_version.empty());
}
