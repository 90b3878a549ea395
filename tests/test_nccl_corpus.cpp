// Every real nccl-tests log in tests/data/nccl-tests (tests/data/nccl-tests/
// SOURCES): the collective, ranks and ranks per node it is read as; every
// row's bus bandwidth recomputed from its algbw with the collective's factor
// (nccl-tests' PERFORMANCE.md) equal to the log's own busbw column; and what
// `tpnet doctor` finds in it.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/usecase/doctor.hpp"

using tpnet::Collective;
using tpnet::FabricState;

namespace {

const std::filesystem::path kLogs =
    std::filesystem::path(TPNET_SOURCE_DIR) / "tests/data/nccl-tests";

struct Expected {
  Collective collective;
  int ranks;
  int ranks_per_node;  ///< 0: the log does not say where its ranks ran
  FabricState state;   ///< against the default 200G link
  const char* nccl_version;
};

const std::map<std::string, Expected> kExpected = {
    {"aws-p4de-2node-all_reduce-srun-label-prefix.txt",
     {Collective::all_reduce, 16, 0, FabricState::above_link, ""}},
    {"aws-p5-2node-all_reduce-mpirun-tag-output.txt",
     {Collective::all_reduce, 8, 0, FabricState::above_link, ""}},
    {"b200-gke-1node-2gpu-all_gather-elided-rows.txt",
     {Collective::all_gather, 2, 2, FabricState::not_judged, "2.26.6"}},
    {"b200-gke-2node-1gpu-all_gather-size0-rows.txt",
     {Collective::all_gather, 2, 1, FabricState::above_link, "2.26.6"}},
    {"b200-gke-a4-2node-8gpu-all_gather-nccl2.26.6.txt",
     {Collective::all_gather, 16, 8, FabricState::not_judged, "2.26.6"}},
    {"gb10-2spark-all_gather-16G-nccl2.28.3-truncated.txt",
     {Collective::all_gather, 2, 1, FabricState::below_expectation, "2.28.3"}},
    {"gb10-2spark-all_gather-16G-nccl2.28.9.txt",
     {Collective::all_gather, 2, 1, FabricState::healthy, "2.28.9"}},
    {"gb10-2spark-all_gather-mergenics-512M-16G-nccl2.28.9.txt",
     {Collective::all_gather, 2, 1, FabricState::healthy, "2.28.9"}},
    {"gb10-2spark-all_gather-direct-degraded-2.8GBps.txt",
     {Collective::all_gather, 2, 1, FabricState::socket_fallback, "2.28.9"}},
    // The healthy switch run tpnet's 200G profile is measured from: 168 Gb/s
    // is 84% of the link, 100% of what a healthy pair reaches at 1-4 GiB.
    {"gb10-2spark-all_gather-qsfp-switch-nccl2.28.9.txt",
     {Collective::all_gather, 2, 1, FabricState::healthy, "2.28.9"}},
    // Sizes to 64 KiB only: too small for bandwidth; 30-68 us, healthy Spark latency.
    {"gb10-2spark-all_reduce-nccl2.31.2-truncated.txt",
     {Collective::all_reduce, 2, 1, FabricState::latency_healthy, "2.31.2"}},
    // 4 per node without the CXI hook: the inter-node steps ran at 38 Gb/s.
    {"gh200-alps-2node-4gpu-all_reduce-no-cxi-hook.txt",
     {Collective::all_reduce, 8, 4, FabricState::below_expectation, ""}},
    {"h100-a3mega-2node-8gpu-all_reduce.txt",
     {Collective::all_reduce, 16, 8, FabricState::not_judged, ""}},
    {"h100-roce-2node-1gpu-all_reduce-nccl-info-linear-step.txt",
     {Collective::all_reduce, 2, 1, FabricState::below_expectation, "2.26.2"}},
    // At 2 ranks sendrecv's columns are all_reduce's: read as all_reduce
    // unless asked (below); the bus bandwidth is the same either way.
    {"h100-roce-2node-1gpu-sendrecv-nccl-info.txt",
     {Collective::all_reduce, 2, 1, FabricState::below_expectation, "2.26.2"}},
    // 4 per node, under the link: the inter-node steps are judged.
    {"h100-roce-2node-4gpu-g4-sendrecv-nccl-info.txt",
     {Collective::sendrecv, 8, 4, FabricState::below_expectation, "2.26.2"}},
    {"h200-gke-2node-1gpu-all_gather-nccl2.25.1.txt",
     {Collective::all_gather, 2, 1, FabricState::above_link, "2.25.1"}},
    {"h200-gke-2node-1gpu-all_reduce.txt",
     {Collective::all_reduce, 2, 1, FabricState::above_link, ""}},
    // Not a Spark: judged by its share of the link alone (20 Gb/s of 200G).
    {"v100-p3dn-efa-2node-1gpu-all_reduce-nccl2.6.4.txt",
     {Collective::all_reduce, 2, 1, FabricState::below_expectation, "2.6.4"}},
};

tpnet::AllReduceSweep read(const std::string& name,
                           std::optional<Collective> collective = std::nullopt) {
  tpnet::NcclTestsReadOptions options;
  options.allow_truncated = true;
  options.collective = collective;
  return tpnet::load_nccl_tests((kLogs / name).string(), options);
}

}  // namespace

TEST_CASE("the nccl-tests corpus holds at least 8 real logs, each with an expectation",
          "[nccl][corpus]") {
  int logs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kLogs)) {
    if (entry.path().extension() != ".txt") continue;
    const std::string name = entry.path().filename().string();
    // Generated, not measured (SOURCES, "SYNTHETIC"): tested where it is used.
    if (name.rfind("synthetic-", 0) == 0) continue;
    ++logs;
    INFO(name);
    // The GX10 all-to-all rows were published without their header (SOURCES):
    // tests/test_alltoall_validation.cpp reads them with it supplied.
    CHECK((kExpected.count(name) == 1 ||
           name == "b200-gke-a4-4node-4gpu-all_gather-truncated.txt" ||
           name == "gb10-2gx10-alltoall-2if-rows-only.txt"));
  }
  CHECK(logs >= 8);
}

TEST_CASE("every real log reads as its collective, and its busbw column is algbw x the factor",
          "[nccl][corpus]") {
  for (const auto& [name, expected] : kExpected) {
    INFO(name);
    const tpnet::AllReduceSweep sweep = read(name);
    CHECK(sweep.collective == expected.collective);
    CHECK(sweep.ranks == expected.ranks);
    CHECK(sweep.ranks_per_node() == expected.ranks_per_node);
    CHECK(sweep.nccl_version == expected.nccl_version);
    const double factor = tpnet::ring_sent_factor(sweep.collective, sweep.ranks);
    for (const auto& s : sweep.samples) {
      // nccl-tests prints both rounded to two decimals (GB/s): each may be
      // off by half a unit, algbw's scaled by the factor.
      const double algbw = s.out_of_place.algbw.bits_per_second() / 8e9;
      const double busbw = s.out_of_place.busbw.bits_per_second() / 8e9;
      INFO("size " << s.size.count() << ": algbw " << algbw << " busbw " << busbw);
      CHECK(std::fabs(algbw * factor - busbw) <= 0.0051 * factor + 0.0051 + 0.005 * busbw);
    }
  }
}

TEST_CASE("tpnet doctor on the real logs: NVLink-mixed runs are not judged, never 1317% healthy",
          "[nccl][corpus][doctor]") {
  for (const auto& [name, expected] : kExpected) {
    INFO(name);
    tpnet::DoctorRequest request;
    request.sweep = read(name);
    request.link = tpnet::parse_link("200G", tpnet::InputLocation::for_key("link"));
    request.node = tpnet::builtin_node(tpnet::kDefaultNodeName);
    request.fabric =
        tpnet::default_fabric(request.link, tpnet::CollectiveSettings{}, tpnet::kDefaultNodeName);
    const tpnet::DoctorReport r = tpnet::run_doctor(request);
    CHECK(r.diagnosis.state == expected.state);
    CHECK(r.gate_failed() ==
          (expected.state != FabricState::healthy && expected.state != FabricState::above_link &&
           expected.state != FabricState::not_judged &&
           expected.state != FabricState::latency_healthy));
    if (r.fitted) {
      CHECK(r.fit.alpha.value() >= 0.0);
      CHECK(r.fit.beta.bits_per_second() > 0.0);
    }
    if (expected.ranks_per_node > 1) {
      CHECK_THAT(r.diagnosis.finding, ContainsSubstring("per node"));
      CHECK_THAT(r.diagnosis.finding, !ContainsSubstring("healthy"));
    }
  }
}

TEST_CASE("real-log quirks: size-0 rows, launcher prefixes, a fit held at alpha 0",
          "[nccl][corpus]") {
  const auto zero = read("b200-gke-2node-1gpu-all_gather-size0-rows.txt");
  bool noted = false;
  for (const auto& note : zero.notes)
    noted |= note.find("2 row(s) of size 0 skipped") != std::string::npos;
  CHECK(noted);
  CHECK(zero.samples.front().size.count() > 0);

  // srun --label ("0: ") and mpirun --tag-output ("[1,0]<stdout>:").
  CHECK(read("aws-p4de-2node-all_reduce-srun-label-prefix.txt").samples.size() > 20);
  CHECK(read("aws-p5-2node-all_reduce-mpirun-tag-output.txt").samples.size() > 20);

  // Sizes from 1 GiB: the free fit's fixed latency is negative (-693 us).
  tpnet::DoctorRequest request;
  request.sweep = read("h100-roce-2node-1gpu-all_reduce-nccl-info-linear-step.txt");
  request.link = tpnet::parse_link("200G", tpnet::InputLocation::for_key("link"));
  request.node = tpnet::builtin_node(tpnet::kDefaultNodeName);
  const tpnet::DoctorReport r = tpnet::run_doctor(request);
  CHECK(r.fit.constrained);
  CHECK(r.fit.alpha.value() == 0.0);
  CHECK(r.fit.step_latency.value() == 0.0);
  // An H100 log is not a DGX Spark port: never "one PCIe half".
  CHECK(r.diagnosis.state != FabricState::one_pcie_half);

  // Fits with tens of percent RMS error are flagged.
  request.sweep = read("h100-a3mega-2node-8gpu-all_reduce.txt");
  CHECK(tpnet::run_doctor(request).fit.poor);

  // Asked for, the 2-rank sendrecv log reads as sendrecv, with 1 step.
  const auto sendrecv = read("h100-roce-2node-1gpu-sendrecv-nccl-info.txt", Collective::sendrecv);
  CHECK(sendrecv.collective == Collective::sendrecv);
  CHECK(sendrecv.collective_from == "asked");

  // The 4-node log had its table cut out by whoever posted it.
  CHECK_THROWS_WITH(read("b200-gke-a4-4node-4gpu-all_gather-truncated.txt"),
                    ContainsSubstring("has no '# size count type"));
}

TEST_CASE("a loopback sweep under 1 GB/s reads as the all_reduce it is, not as sendrecv",
          "[nccl][bad-input]") {
  // Its two-decimal bandwidths give busbw/algbw ratios of 1 on some rows:
  // read from there it was taken for sendrecv and then refused as a file
  // whose columns contradict each other.
  const tpnet::AllReduceSweep sweep =
      tpnet::load_nccl_tests(std::string(TPNET_SOURCE_DIR) +
                             "/tests/data/recorded/tpnet-calibrate-mpi-4rank-loopback-loaded.txt");
  CHECK(sweep.collective == tpnet::Collective::all_reduce);
  CHECK(sweep.ranks == 4);
  CHECK(sweep.samples.size() == 18);
}

namespace {

/// A real log's text with `edit` applied: the cases below are the real
/// 16-rank log as a launcher or a copy leaves it (SYNTHETIC edits of it).
std::string real_text(const std::string& name) {
  std::ifstream in(kLogs / name);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string without_rank_lines(std::string text, const std::vector<int>& dropped) {
  for (const int rank : dropped) {
    const std::string tag = fmt::format("#  Rank {:2d} ", rank);
    const auto at = text.find(tag);
    REQUIRE(at != std::string::npos);
    text.erase(at, text.find('\n', at) - at + 1);
  }
  return text;
}

bool has_note(const tpnet::AllReduceSweep& sweep, const std::string& part) {
  return std::any_of(sweep.notes.begin(), sweep.notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("the rank count comes from the highest rank index, stated counts and the busbw ratio",
          "[nccl][corpus]") {
  const std::string name = "h100-a3mega-2node-8gpu-all_reduce.txt";
  const std::string full = real_text(name);
  // The launcher printed only ranks 0, 7, 8 and 15 of 16: read as 16, not
  // refused because 4 ranks' busbw factor "contradicts" the times.
  const auto elided = tpnet::parse_nccl_tests(
      without_rank_lines(full, {1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14}), name);
  CHECK(elided.ranks == 16);
  CHECK(has_note(elided, "lists 4 '#  Rank' lines with indices up to 15: read as 16 ranks"));
  // Only ranks 0 and 1 kept (the copy cut): the busbw / algbw ratio is
  // all_reduce's at 16 ranks and wins, with a warning.
  std::vector<int> after_one;
  for (int r = 2; r < 16; ++r) after_one.push_back(r);
  const auto cut = tpnet::parse_nccl_tests(without_rank_lines(full, after_one), name);
  CHECK(cut.ranks == 16);
  CHECK(has_note(cut,
                 "2 ranks counted from its '#  Rank' lines, but its busbw / algbw ratio is "
                 "all_reduce's at 16 ranks"));
  // A stated count wins over rank lines, and their disagreement is said.
  const auto stated =
      tpnet::parse_nccl_tests("SLURM_NTASKS=16\n" + without_rank_lines(full, after_one), name);
  CHECK(stated.ranks == 16);
  CHECK(has_note(stated, "SLURM_NTASKS says 16 ranks"));
  const auto nccl_info = tpnet::parse_nccl_tests(
      "host:1:1 [0] NCCL INFO comm 0x5 rank 0 nranks 16 cudaDev 0 busId 4000 - Init COMPLETE\n" +
          full,
      name);
  CHECK(nccl_info.ranks == 16);
  CHECK_FALSE(has_note(nccl_info, "says"));
  // A stated count the rows contradict is an edited log: refused.
  CHECK_THROWS_WITH(tpnet::parse_nccl_tests("SLURM_NTASKS=4\n" + full, name),
                    ContainsSubstring("the row's columns contradict each other"));
}

TEST_CASE("doctor names a socket fallback by its rate when the log names no transport",
          "[nccl][corpus][doctor]") {
  tpnet::DoctorRequest request;
  request.sweep = read("gb10-2spark-all_gather-direct-degraded-2.8GBps.txt");
  request.link = tpnet::parse_link("200G", tpnet::InputLocation::for_key("link"));
  request.node = tpnet::builtin_node(tpnet::kDefaultNodeName);
  request.fabric =
      tpnet::default_fabric(request.link, tpnet::CollectiveSettings{}, tpnet::kDefaultNodeName);
  const tpnet::DoctorReport by_rate = tpnet::run_doctor(request);
  CHECK(by_rate.diagnosis.state == FabricState::socket_fallback);
  CHECK_THAT(by_rate.diagnosis.finding, ContainsSubstring("fallback to sockets, by its rate") &&
                                            ContainsSubstring("does not name its transport") &&
                                            ContainsSubstring("throttled NIC"));
  // The same rate with NCCL saying it used RDMA is not a socket fallback.
  request.sweep.network = "IB";
  CHECK(tpnet::run_doctor(request).diagnosis.state == FabricState::degraded_nic);
}
