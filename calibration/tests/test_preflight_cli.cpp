// tpnet-calibrate preflight: the whole cluster checked at once over MPI.
// Two ranks on this machine each read their own saved tree (--root with
// {rank}); rank 1's RoCE v2 GID moved from index 3 to 5 while both keep
// NCCL_IB_GID_INDEX=3 (SYNTHETIC, from tests/data/preflight/dgx-spark-port0;
// tests/data/preflight/SOURCES), so the cluster check must name it.

#include <yaml-cpp/yaml.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "run_process.hpp"

using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::fresh_dir;
using tpnet::test::run_calibrate;
using tpnet::test::run_program;
namespace fs = std::filesystem;

namespace {

fs::path healthy_tree() {
  return fs::path(tpnet::test::source_dir()) / "tests/data/preflight/dgx-spark-port0";
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text << "\n";
}

/// trees/0 healthy; trees/1 the same Spark after a netplan apply put two
/// IPv6 addresses ahead of its IPv4 one: the RoCE v2 IPv4 GID is now at 5.
fs::path two_trees() {
  fs::path dir = fresh_dir("calibrate_preflight") / "trees";
  fs::create_directories(dir);
  fs::copy(healthy_tree(), dir / "0", fs::copy_options::recursive);
  fs::copy(healthy_tree(), dir / "1", fs::copy_options::recursive);
  write(dir / "1/hostname", "spark-2");
  for (const char* device : {"rocep1s0f0", "roceP2p1s0f0"}) {
    const fs::path port = dir / "1/sys/class/infiniband" / device / "ports/1";
    fs::copy_file(port / "gids/3", port / "gids/5");
    fs::copy_file(port / "gid_attrs/ndevs/3", port / "gid_attrs/ndevs/5");
    write(port / "gid_attrs/types/5", "RoCE v2");
    write(port / "gids/3", "fd00:0000:0000:0000:0000:0000:0000:0a01");
  }
  return dir;
}

bool mpirun_available() {
  const std::string mpiexec = TPNET_MPIEXEC;
  return !mpiexec.empty() && fs::exists(mpiexec);
}

}  // namespace

TEST_CASE("mpirun -np 2 preflight finds the RoCE v2 GID index that differs between two ranks",
          "[calibrate][preflight][mpi]") {
  if (!mpirun_available()) {
    WARN(
        "SKIPPED: mpirun is not available (tpnet-calibrate built without MPI): the cluster "
        "preflight over MPI is not tested");
    return;
  }
  const fs::path trees = two_trees();
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  const CliResult r =
      run_program({TPNET_MPIEXEC, "-np", "2", "--oversubscribe", "--mca",
                   "btl_vader_single_copy_mechanism", "none", tpnet::test::calibrate_program(),
                   "preflight", "--root", (trees / "{rank}").string(), "--format", "json"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  const YAML::Node json = YAML::Load(r.out);  // rank 0 alone prints
  CHECK(json["ranks"].as<int>() == 2);
  CHECK_FALSE(json["passed"].as<bool>());
  CHECK(json["nodes"][0]["host"].as<std::string>() == "spark-1");
  CHECK(json["nodes"][0]["passed"].as<bool>());
  CHECK(json["nodes"][1]["host"].as<std::string>() == "spark-2");
  CHECK_FALSE(json["nodes"][1]["passed"].as<bool>());
  bool found = false;
  for (const auto& c : json["checks"]) {
    const auto name = c["check"].as<std::string>();
    CAPTURE(name, c["finding"].as<std::string>());
    if (name == "cluster_gid_index") {
      found = true;
      CHECK(c["status"].as<std::string>() == "fails");
      CHECK_THAT(c["finding"].as<std::string>(),
                 ContainsSubstring("rank 0 (spark-1) 3; rank 1 (spark-2) 5"));
      CHECK_THAT(c["source"].as<std::string>(), ContainsSubstring("FujitsuPolycom/sparkring"));
    } else {
      CHECK(c["status"].as<std::string>() == "holds");
    }
  }
  CHECK(found);

  // The same two healthy trees pass, and every rank exits 0.
  const fs::path same = fresh_dir("calibrate_preflight_same") / "trees";
  fs::create_directories(same);
  fs::copy(healthy_tree(), same / "0", fs::copy_options::recursive);
  fs::copy(healthy_tree(), same / "1", fs::copy_options::recursive);
  const CliResult ok =
      run_program({TPNET_MPIEXEC, "-np", "2", "--oversubscribe", "--mca",
                   "btl_vader_single_copy_mechanism", "none", tpnet::test::calibrate_program(),
                   "preflight", "--root", (same / "{rank}").string()});
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.out, ContainsSubstring("cluster_gid_index"));
}

TEST_CASE("mpirun preflight ends cleanly when a rank fails or hangs, never deadlocks",
          "[calibrate][preflight][mpi]") {
  if (!mpirun_available()) {
    WARN("SKIPPED: mpirun is not available (tpnet-calibrate built without MPI)");
    return;
  }
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  const fs::path trees = fresh_dir("calibrate_preflight_failing") / "trees";
  fs::create_directories(trees);
  fs::copy(healthy_tree(), trees / "0", fs::copy_options::recursive);
  fs::copy(healthy_tree(), trees / "1", fs::copy_options::recursive);
  auto mpirun = [&](std::vector<std::string> extra) {
    // `timeout` bounds the job: a deadlock fails the test instead of the suite.
    std::vector<std::string> argv{"timeout",
                                  "-k",
                                  "5",
                                  "120",
                                  TPNET_MPIEXEC,
                                  "-np",
                                  "2",
                                  "--oversubscribe",
                                  "--mca",
                                  "btl_vader_single_copy_mechanism",
                                  "none",
                                  tpnet::test::calibrate_program(),
                                  "preflight",
                                  "--root",
                                  (trees / "{rank}").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_program(argv);
  };
  // A rank whose read fails with no bad input (as out of memory would): its
  // failure reaches rank 0, which says which rank, and every rank ends.
  const CliResult broken = mpirun({"--fail-rank", "1"});
  CHECK(broken.exit_code == 3);
  CHECK_THAT(broken.err, ContainsSubstring("rank 1: failed reading its fabric facts: failure "
                                           "injected"));
  // A rank that never reaches the gather: rank 0's deadline stops the job.
  const CliResult hung = mpirun({"--stall-rank", "1", "--timeout", "2s"});
  CHECK(hung.exit_code == 4);
  CHECK_THAT(hung.err, ContainsSubstring("MPI gather of every node's fabric facts timed out after "
                                         "2 s"));
  // A FIFO in one rank's tree is bad input on that rank, named, exit 2.
  fs::remove(trees / "1/hostname");
  REQUIRE(::mkfifo((trees / "1/hostname").c_str(), 0600) == 0);
  const CliResult fifo = mpirun({});
  CHECK(fifo.exit_code == 2);
  CHECK_THAT(fifo.err, ContainsSubstring("rank 1:") && ContainsSubstring("is not a regular file"));
}

TEST_CASE("preflight without mpirun checks one node and says the cluster checks need two",
          "[calibrate][preflight]") {
  const CliResult r =
      run_calibrate({"preflight", "--root", healthy_tree().string(), "--format", "json"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, ContainsSubstring("need two or more"));
  const YAML::Node json = YAML::Load(r.out);
  CHECK(json["ranks"].as<int>() == 1);
  CHECK(json["node_checks"].size() == 11);
  expect_bad_input(run_calibrate({"preflight", "--root", "/no/such/{rank}"}), "--root");
  expect_bad_input(run_calibrate({"preflight", "--format", "xml"}), "--format");
}
