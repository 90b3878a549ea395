// tpnet doctor end to end: JSON keys with units, the verdict and exit code,
// every format, and the bad-input contract.

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

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
  // Judged against what a healthy Spark pair reaches through a switch at
  // these sizes (the 200G profile's measured curve), not the link's 200 Gb/s.
  CHECK(j["expected_from"].as<std::string>() == "dgx-spark-200g-switch, measured");
  CHECK(j["expected_busbw_bps"].as<double>() < 180e9);
  CHECK_THAT(j["link_share_pct"].as<double>(), WithinRel(98.0, 3e-3));
  const YAML::Node nominal = json_of(
      run_tpnet({"doctor", "--nccl-tests", kSynthetic, "--fabric", "nominal", "--format", "json"}));
  CHECK(nominal["expected_busbw_bps"].as<double>() == 200e9);
  CHECK(nominal["expected_from"].as<std::string>() == "the link rate");
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

namespace {

const std::string kRealLogs = std::string(TPNET_SOURCE_DIR) + "/tests/data/nccl-tests/";

}  // namespace

TEST_CASE("tpnet doctor judges a small-size Spark run (PR #103) by its latency, not bandwidth",
          "[cli][doctor]") {
  // 8-64 KiB only: the run tpnet's own 200G fabric profile takes its fixed
  // cost from. Its 0.96 GB/s says nothing about the link.
  const CliResult r = run_tpnet({"doctor", "--nccl-tests",
                                 kRealLogs + "gb10-2spark-all_reduce-nccl2.31.2-truncated.txt",
                                 "--partial", "--format", "json"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  const YAML::Node j = json_of(r);
  CHECK(j["state"].as<std::string>() == "latency-healthy");
  CHECK_FALSE(j["bandwidth_judged"].as<bool>());
  CHECK_THAT(j["finding"].as<std::string>(), ContainsSubstring("bandwidth not judged"));
  CHECK_THAT(j["finding"].as<std::string>(), !ContainsSubstring("software-forwarded"));
  CHECK_THAT(j["finding"].as<std::string>(), ContainsSubstring("30-70 us"));
  // The slowest size at or under 64 KiB: 65536 B out-of-place.
  CHECK_THAT(j["small_latency_s"].as<double>(), WithinRel(67.93e-6, 1e-9));
  CHECK_THAT(j["healthy_latency_max_s"].as<double>(), WithinRel(70e-6, 1e-9));
}

TEST_CASE("tpnet doctor names the hardware of a V100 + AWS EFA log, never ConnectX-7",
          "[cli][doctor]") {
  const std::string log = kRealLogs + "v100-p3dn-efa-2node-1gpu-all_reduce-nccl2.6.4.txt";
  for (const std::string link : {"100G", "200G"}) {
    const CliResult r =
        run_tpnet({"doctor", "--nccl-tests", log, "--link", link, "--format", "json"});
    INFO(link << ": " << r.err);
    CHECK(r.exit_code == 1);
    const YAML::Node j = YAML::Load(r.out);
    CHECK(j["state"].as<std::string>() == "below-expectation");
    CHECK(j["gpu"].as<std::string>() == "Tesla V100-SXM2-32GB");
    CHECK(j["network"].as<std::string>() == "AWS Libfabric");
    const std::string said = j["finding"].as<std::string>() + " " + j["advice"].as<std::string>();
    CHECK_THAT(said, ContainsSubstring("Tesla V100-SXM2-32GB"));
    CHECK_THAT(said, ContainsSubstring("AWS Libfabric"));
    CHECK_THAT(said, !ContainsSubstring("ConnectX-7"));
    CHECK_THAT(said, !ContainsSubstring("may report 200G"));
    for (const auto& check : j["checks"]) {
      CHECK_THAT(check.as<std::string>(), !ContainsSubstring("rocep1s0f0"));
      CHECK_THAT(check.as<std::string>(), !ContainsSubstring("Arm cores"));
    }
  }
}

TEST_CASE(
    "tpnet doctor judges the inter-node part of a 4-GPU-per-node GH200 run without its "
    "network plugin",
    "[cli][doctor]") {
  const CliResult r = run_tpnet({"doctor", "--nccl-tests",
                                 kRealLogs + "gh200-alps-2node-4gpu-all_reduce-no-cxi-hook.txt",
                                 "--format", "json"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  const YAML::Node j = YAML::Load(r.out);
  CHECK(j["ranks_per_node"].as<int>() == 4);
  CHECK(j["state"].as<std::string>() == "below-expectation");
  CHECK_THAT(j["finding"].as<std::string>(), ContainsSubstring("inter-node"));
  CHECK_THAT(j["advice"].as<std::string>(), ContainsSubstring("'Socket' is a fallback to TCP"));
  // Mean of the 32, 64 and 128 MiB rows: 3.38, 5.53, 5.43 GB/s.
  CHECK_THAT(j["busbw_bps"].as<double>(), WithinRel((3.38 + 5.53 + 5.43) / 3 * 8e9, 1e-9));
}

TEST_CASE(
    "tpnet doctor refuses an empty size range, --ranks 0 and busbw that contradicts the "
    "times",
    "[cli][doctor]") {
  expect_bad_input(
      run_tpnet({"doctor", "--nccl-tests", kSynthetic, "--min-size", "1GB", "--max-size", "1MB"}),
      "--min-size");
  const CliResult above = run_tpnet({"doctor", "--nccl-tests", kSynthetic, "--min-size", "100GB"});
  expect_bad_input(above, "--min-size");
  CHECK_THAT(above.err, ContainsSubstring("none of the sizes"));
  expect_bad_input(run_tpnet({"doctor", "--nccl-tests", kSynthetic, "--ranks", "0"}), "--ranks");

  // A real healthy run with its 16 GiB row's busbw column rewritten to 100 GB/s
  // (800 Gb/s); its time still says 23.7 GB/s.
  const std::string real = kRealLogs + "gb10-2spark-all_gather-mergenics-512M-16G-nccl2.28.9.txt";
  std::ifstream in(real);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string row = text.substr(text.find("\n 17179869184") + 1);
  const std::string line = row.substr(0, row.find('\n'));
  std::vector<std::string> cells;
  std::istringstream words(line);
  for (std::string w; words >> w;) cells.push_back(w);
  std::string edited = line;
  edited.replace(edited.find(" " + cells[7] + " "), cells[7].size() + 2, " 100.00 ");
  text.replace(text.find(line), line.size(), edited);
  const auto file = write_temp("tpnet_doctor_busbw_edited.txt", text);
  const CliResult r = run_tpnet({"doctor", "--nccl-tests", file.string()});
  expect_bad_input(r, "out-of-place busbw 100.00 GB/s is not size / time");
}
