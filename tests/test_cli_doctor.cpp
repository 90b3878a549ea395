// tpnet doctor end to end: JSON keys with units, the verdict and exit code,
// every format, and the bad-input contract.

#include <yaml-cpp/yaml.h>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"

using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::json_of;
using tpnet::test::run_tpnet;
using tpnet::test::write_temp;

namespace {

const std::string kSynthetic =
    std::string(TPNET_SOURCE_DIR) + "/examples/nccl-tests/all_reduce_perf_8ranks_synthetic.txt";

const std::string kHalf =
    "#  Rank  0 Group  0 Pid 1 on spark-1 device  0 [000f:01:00] NVIDIA GB10\n"
    "#  Rank  1 Group  0 Pid 2 on spark-2 device  0 [000f:01:00] NVIDIA GB10\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
    "time   algbw   busbw #wrong\n"
    "     1048576        262144     float     sum      -1    82.09   12.77   12.77       0    "
    "82.09   12.77   12.77       0\n"
    "   134217728      33554432     float     sum      -1   9856.7   13.62   13.62       0   "
    "9856.7   13.62   13.62       0\n"
    "# Avg bus bandwidth    : 13.2\n";

}  // namespace

TEST_CASE("tpnet doctor on the synthetic sweep: healthy, fit keys with units", "[cli][doctor]") {
  const YAML::Node j =
      json_of(run_tpnet({"doctor", "--nccl-tests", kSynthetic, "--format", "json"}));
  CHECK(j["ranks"].as<int>() == 8);
  CHECK(j["nccl_version"].as<std::string>() == "2.21.5");
  CHECK(j["state"].as<std::string>() == "healthy");
  CHECK_THAT(j["busbw_bps"].as<double>(), WithinRel(196e9, 2e-3));
  CHECK(j["expected_busbw_bps"].as<double>() == 200e9);
  CHECK_THAT(j["fit"]["step_latency_s"].as<double>(), WithinRel(2.7e-6, 1e-3));
  CHECK_THAT(j["fit"]["alpha_s"].as<double>(), WithinRel(37.8e-6, 1e-3));
  CHECK_THAT(j["fit"]["beta_bps"].as<double>(), WithinRel(196e9, 1e-3));
  CHECK(j["fit"]["points"].as<int>() == 28);
  CHECK(j["curve"].size() == 28);
  CHECK(j["curve"][27]["size_bytes"].as<double>() == 1073741824.0);
  CHECK(j["checks"].size() == 6);
  CHECK_THAT(j["checks"][1].as<std::string>(), ContainsSubstring("NCCL_IB_ROCE_VERSION_NUM=2"));
}

TEST_CASE("tpnet doctor prints every format", "[cli][doctor]") {
  for (const std::string format : {"table", "markdown"}) {
    const auto r = run_tpnet({"doctor", "--nccl-tests", kSynthetic, "--format", format});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, ContainsSubstring("healthy"));
  }
  const auto csv = run_tpnet({"doctor", "--nccl-tests", kSynthetic, "--format", "csv"});
  CHECK(csv.exit_code == 0);
  CHECK_THAT(csv.out, ContainsSubstring("size_bytes,time_s,fitted_time_s"));
}

TEST_CASE("tpnet doctor flags one PCIe half and exits 1", "[cli][doctor]") {
  const auto file = write_temp("tpnet_doctor_half.txt", kHalf);
  const auto r = run_tpnet({"doctor", "--nccl-tests", file.string(), "--format", "json"});
  CHECK(r.exit_code == 1);
  const YAML::Node j = YAML::Load(r.out);
  CHECK(j["state"].as<std::string>() == "one-pcie-half");
  CHECK_THAT(j["advice"].as<std::string>(), ContainsSubstring("list both"));
  // --link 109G: one half is all that link has.
  const auto ok = run_tpnet(
      {"doctor", "--nccl-tests", file.string(), "--link", "emulated-100G", "--format", "json"});
  CHECK(json_of(ok)["state"].as<std::string>() == "healthy");
}

TEST_CASE("tpnet doctor bad input: missing file, ranks, corrupt rows", "[cli][doctor]") {
  expect_bad_input(run_tpnet({"doctor", "--nccl-tests", "/no/such/file.txt"}), "/no/such/file.txt");
  std::string no_ranks = kHalf;
  no_ranks.erase(0, no_ranks.find("#       size"));
  const auto file = write_temp("tpnet_doctor_noranks.txt", no_ranks);
  expect_bad_input(run_tpnet({"doctor", "--nccl-tests", file.string()}), "give --ranks N");
  CHECK(run_tpnet({"doctor", "--nccl-tests", file.string(), "--ranks", "2"}).exit_code == 1);
  expect_bad_input(run_tpnet({"doctor", "--nccl-tests", file.string(), "--ranks", "1"}), "--ranks");
  std::string wrong = kHalf;
  wrong.replace(wrong.find("12.77       0"), 13, "12.77       5");
  const auto bad = write_temp("tpnet_doctor_wrong.txt", wrong);
  expect_bad_input(run_tpnet({"doctor", "--nccl-tests", bad.string()}), ":4: out-of-place #wrong");
  // One size in range: no fit, the bus bandwidth still judged.
  const CliResult one =
      run_tpnet({"doctor", "--nccl-tests", kSynthetic, "--min-size", "1GiB", "--format", "json"});
  CHECK_THAT(one.err, ContainsSubstring("no alpha-beta fit (it needs 2)"));
  const YAML::Node j = json_of(one);
  CHECK_FALSE(j["fit"]["fitted"].as<bool>());
  CHECK(j["state"].as<std::string>() == "healthy");
}

TEST_CASE("tpnet doctor reads the -J JSON file and flags a software-forwarded path",
          "[cli][doctor]") {
  const auto file = write_temp(
      "tpnet_doctor.json",
      R"({"version":1,"nccl_version":22105,"config":{"devices":[{"rank":0},{"rank":1}]},)"
      R"("results":[)"
      R"({"size":1048576,"count":262144,"type":"float","out_of_place":)"
      R"({"time":1800.0,"alg_bw":0.58,"bus_bw":0.58,"nwrong":0},"in_place":null},)"
      R"({"size":134217728,"count":33554432,"type":"float","out_of_place":)"
      R"({"time":219000.0,"alg_bw":0.61,"bus_bw":0.61,"nwrong":0},"in_place":null}]})");
  const auto r = run_tpnet({"doctor", "--nccl-tests", file.string(), "--format", "json"});
  CHECK(r.exit_code == 1);
  const YAML::Node j = YAML::Load(r.out);
  CHECK(j["ranks"].as<int>() == 2);
  CHECK(j["state"].as<std::string>() == "software-forwarded");
  CHECK_THAT(j["busbw_bps"].as<double>(), WithinRel(0.595 * 8e9, 1e-9));
}
