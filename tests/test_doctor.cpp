// `tpnet doctor` as a use case (tpnet/usecase/doctor.hpp, docs/formulas.md
// s.16): the ranks a sweep is fitted with, which states fail the CI gate,
// and the small-size latency a DGX Spark run is judged by, on the PR #103
// log of tests/data/nccl-tests (SOURCES). Every log of that corpus is run
// through doctor in test_nccl_corpus.cpp.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/usecase/doctor.hpp"

using tpnet::FabricState;

namespace {

const std::filesystem::path kLogs =
    std::filesystem::path(TPNET_SOURCE_DIR) / "tests/data/nccl-tests";

tpnet::AllReduceSweep read(const std::string& name) {
  tpnet::NcclTestsReadOptions options;
  options.allow_truncated = true;
  return tpnet::load_nccl_tests((kLogs / name).string(), options);
}

}  // namespace

TEST_CASE(
    "doctor's reachable share on the PR #103 run: 9.2% of 200G at 64 KiB, not judged by "
    "bandwidth",
    "[nccl][corpus][doctor][golden]") {
  tpnet::DoctorRequest request;
  request.sweep = read("gb10-2spark-all_reduce-nccl2.31.2-truncated.txt");
  request.link = tpnet::parse_link("200G", tpnet::InputLocation::for_key("link"));
  request.node = tpnet::builtin_node(tpnet::kDefaultNodeName);
  const tpnet::DoctorReport r = tpnet::run_doctor(request);
  // The relative-error least squares of the four rows (8-64 KiB), solved by
  // hand from their normal equations: alpha 25.85 us, beta 14.89 Gb/s.
  CHECK_THAT(r.fit.alpha.value(), WithinRel(25.848e-6, 1e-3));
  CHECK_THAT(r.fit.beta.bits_per_second(), WithinRel(14.892e9, 1e-3));
  // 65536 B x 2(2-1)/2 at 200 Gb/s = 2.62 us of bytes beside 25.85 us fixed.
  const double bytes_s = 65536.0 * 8 / 200e9;
  CHECK_THAT(r.reachable_share, WithinRel(bytes_s / (r.fit.alpha.value() + bytes_s), 1e-12));
  CHECK_THAT(r.reachable_share, WithinRel(0.09208, 1e-3));
  CHECK_FALSE(r.bandwidth_judged);
  CHECK(r.diagnosis.state == FabricState::latency_healthy);
  CHECK_THAT(r.small_latency.value(), WithinRel(67.93e-6, 1e-12));
  // From the node catalog (models/nodes/dgx-spark.yaml), not a literal here.
  const auto spark = tpnet::builtin_node("dgx-spark");
  REQUIRE(spark.small_allreduce_latency);
  CHECK(spark.small_allreduce_latency->ranks == 2);
  CHECK(spark.small_allreduce_latency->max_size.count() == 65536.0);
  CHECK_THAT(spark.small_allreduce_latency->healthy_min.value(), WithinRel(30e-6, 1e-12));
  CHECK(r.healthy_latency_max.value() == spark.small_allreduce_latency->healthy_max.value());
  // Every time the run measured lies inside the range the catalog states.
  for (const auto& s : request.sweep.samples) {
    CHECK(s.out_of_place.time >= spark.small_allreduce_latency->healthy_min);
    CHECK(s.out_of_place.time <= spark.small_allreduce_latency->healthy_max);
    REQUIRE(s.in_place);
    CHECK(s.in_place->time >= spark.small_allreduce_latency->healthy_min);
    CHECK(s.in_place->time <= spark.small_allreduce_latency->healthy_max);
  }
}

TEST_CASE("doctor calls a small-size Spark run slower than the measured range latency-slow",
          "[nccl][doctor]") {
  // SYNTHETIC: the PR #103 rows with every time doubled (bandwidths halved),
  // as a path twice as slow would print them.
  auto sweep = read("gb10-2spark-all_reduce-nccl2.31.2-truncated.txt");
  for (auto& s : sweep.samples) {
    s.out_of_place.time = s.out_of_place.time * 2.0;
    s.out_of_place.algbw = s.out_of_place.algbw / 2.0;
    s.out_of_place.busbw = s.out_of_place.busbw / 2.0;
  }
  tpnet::DoctorRequest request;
  request.sweep = sweep;
  request.link = tpnet::parse_link("200G", tpnet::InputLocation::for_key("link"));
  request.node = tpnet::builtin_node(tpnet::kDefaultNodeName);
  const tpnet::DoctorReport r = tpnet::run_doctor(request);
  CHECK(r.diagnosis.state == FabricState::latency_slow);
  CHECK(r.gate_failed());
  CHECK_THAT(r.diagnosis.finding, ContainsSubstring("135.86 us, above the 30-70 us"));
  // Four ranks: the catalog measured two, so nothing to judge the latency by.
  request.ranks = 4;
  const tpnet::DoctorReport four = tpnet::run_doctor(request);
  CHECK(four.diagnosis.state == FabricState::not_judged);
  CHECK_FALSE(four.gate_failed());
}

TEST_CASE("a sweep is fitted on its own ranks unless `ranks` is given", "[doctor]") {
  tpnet::AllReduceSweep sweep;
  sweep.origin = "ar.txt";
  sweep.ranks = 8;
  std::vector<std::string> warnings;
  CHECK(tpnet::resolve_sweep_ranks(sweep, std::nullopt, warnings) == 8);
  CHECK(warnings.empty());
  CHECK(tpnet::resolve_sweep_ranks(sweep, 8, warnings) == 8);
  CHECK(warnings.empty());  // the same count: nothing to say
  CHECK(tpnet::resolve_sweep_ranks(sweep, 4, warnings) == 4);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "`ranks` 4 overrides the 8 ranks ar.txt lists");
  CHECK_THROWS_WITH(tpnet::resolve_sweep_ranks(sweep, 1, warnings),
                    ContainsSubstring("ranks: is 1; an all-reduce needs at least 2 ranks"));
  sweep.ranks = 0;  // a log without '#  Rank' lines
  CHECK_THROWS_WITH(tpnet::resolve_sweep_ranks(sweep, std::nullopt, warnings),
                    ContainsSubstring("ar.txt: does not list its ranks"));
  CHECK(tpnet::resolve_sweep_ranks(sweep, 2, warnings) == 2);
}

TEST_CASE(
    "the gate fails on every state but healthy, above the link, not judged and "
    "healthy latency",
    "[doctor][gate]") {
  tpnet::DoctorReport r;
  for (const FabricState passes : {FabricState::healthy, FabricState::above_link,
                                   FabricState::not_judged, FabricState::latency_healthy}) {
    INFO(tpnet::to_string(passes));
    r.diagnosis.state = passes;
    CHECK_FALSE(r.gate_failed());
  }
  for (const FabricState fails :
       {FabricState::one_pcie_half, FabricState::degraded_nic, FabricState::software_forwarded,
        FabricState::below_expectation, FabricState::socket_fallback, FabricState::latency_slow}) {
    INFO(tpnet::to_string(fails));
    r.diagnosis.state = fails;
    CHECK(r.gate_failed());
    CHECK_FALSE(r.healthy());
  }
  r.diagnosis.state = FabricState::healthy;
  CHECK(r.healthy());
}

TEST_CASE("an empty fit range is refused naming fit.min_size", "[doctor][bad-input]") {
  tpnet::DoctorRequest request;
  request.sweep = read("gb10-2spark-all_reduce-nccl2.31.2-truncated.txt");
  request.link = tpnet::parse_link("200G", tpnet::InputLocation::for_key("link"));
  request.range.min_size = tpnet::Bytes(1e12);  // above every size of the log
  try {
    (void)tpnet::run_doctor(request);
    FAIL("fitted an empty range");
  } catch (const tpnet::InputError& e) {
    CHECK(e.where().key == "fit.min_size");
  }
}

TEST_CASE("doctor's document: the run, the state found, the bandwidth, the fit, the curve",
          "[doctor]") {
  tpnet::DoctorRequest request;
  request.sweep = read("gb10-2spark-all_reduce-nccl2.31.2-truncated.txt");
  request.link = tpnet::parse_link("200G", tpnet::InputLocation::for_key("link"));
  request.node = tpnet::builtin_node(tpnet::kDefaultNodeName);
  const tpnet::DoctorReport r = tpnet::run_doctor(request);
  const tpnet::Document doc = tpnet::doctor_document(request, r);
  CHECK(doc.title ==
        "tpnet doctor: " + request.sweep.origin + " (2 ranks, NCCL 2.31.2) against 200G");
  // The answer: the finding and the advice, each a sentence.
  REQUIRE(doc.answer.size() == 2);
  CHECK(doc.answer == tpnet::doctor_answer(r));
  CHECK(doc.answer[0].front() >= 'A');
  CHECK(doc.answer[0].front() <= 'Z');
  CHECK(doc.answer[0].back() == '.');
  std::vector<std::string> keys;
  for (const tpnet::Field& f : doc.fields) keys.push_back(f.key);
  CHECK(keys == std::vector<std::string>{"source",
                                         "ranks",
                                         "nccl_version",
                                         "collective",
                                         "collective_from",
                                         "ranks_per_node",
                                         "gpu",
                                         "network",
                                         "state",
                                         "finding",
                                         "advice",
                                         "busbw_bps",
                                         "peak_busbw_bps",
                                         "expected_busbw_bps",
                                         "expected_from",
                                         "busbw_share_pct",
                                         "link_share_pct",
                                         "reachable_share_pct",
                                         "bandwidth_judged",
                                         "small_latency_s",
                                         "healthy_latency_max_s",
                                         "fit",
                                         "curve",
                                         "checks"});
  CHECK(doc.fields[8].text == "latency-healthy");
  CHECK(doc.fields[9].text == r.diagnosis.finding);
  CHECK_FALSE(doc.fields[18].flag);  // 64 KiB at most: bandwidth not judged
  CHECK(doc.fields[22].records.size() == r.fit.curve.size());
  CHECK(doc.warnings == r.warnings);
}
