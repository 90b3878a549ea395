// Fitting an all-reduce sweep and judging its bus bandwidth
// (tpnet/measured/allreduce_fit.hpp, docs/formulas.md s.16): the fit
// recovers the alpha and beta a sweep was made from, and the classification
// names only faults the node's catalog measured.

#include <string>

#include "catch.hpp"
#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/measured/allreduce_fit.hpp"

using namespace tpnet;

namespace {

/// A sweep generated from the alpha-beta model, exact to double precision.
AllReduceSweep model_sweep(int ranks, double alpha, double beta_bps, double lo, double hi) {
  AllReduceSweep s;
  s.origin = "model";
  s.ranks = ranks;
  const double factor = 2.0 * (ranks - 1) / ranks;
  for (double size = lo; size <= hi; size *= 2.0) {
    AllReduceSample x;
    x.size = Bytes(size);
    const double t = alpha + factor * size * 8.0 / beta_bps;
    x.out_of_place.time = Seconds(t);
    x.out_of_place.algbw = BitRate(size * 8.0 / t);
    x.out_of_place.busbw = BitRate(size * 8.0 / t * factor);
    s.samples.push_back(x);
  }
  return s;
}

}  // namespace

TEST_CASE("the alpha-beta fit recovers the alpha and beta the data was made from", "[fit]") {
  for (const int ranks : {2, 4, 8, 16}) {
    const double alpha = 2.0 * (ranks - 1) * 2.7e-6;
    const AllReduceSweep s = model_sweep(ranks, alpha, 196e9, 8.0, 1073741824.0);
    const AllReduceFit fit = fit_allreduce(s, ranks);
    CHECK_THAT(fit.alpha.value(), WithinRel(alpha, 1e-6));
    CHECK_THAT(fit.beta.bits_per_second(), WithinRel(196e9, 1e-6));
    CHECK_THAT(fit.step_latency.value(), WithinRel(2.7e-6, 1e-6));
    CHECK(fit.steps == 2 * (ranks - 1));
    CHECK(fit.rms_relative_error < 1e-9);
    CHECK(fit.points_used == 28);
    CHECK(fit.min_size.count() == 8.0);
    CHECK(fit.max_size.count() == 1073741824.0);
    CHECK(fit.warnings.empty());
  }
}

TEST_CASE("the fit honours the size range and refuses fewer than two sizes", "[fit]") {
  const AllReduceSweep s = model_sweep(8, 37.8e-6, 109e9, 1024.0, 1048576.0);
  FitRange range;
  range.min_size = Bytes(65536.0);
  const AllReduceFit fit = fit_allreduce(s, 8, range);
  CHECK(fit.points_used == 5);
  CHECK(fit.min_size.count() == 65536.0);
  CHECK_THAT(fit.beta.bits_per_second(), WithinRel(109e9, 1e-6));
  CHECK(fit.curve.size() == s.samples.size());
  CHECK_FALSE(fit.curve.front().in_range);

  range.min_size = Bytes(1048576.0);
  CHECK_THROWS_WITH(fit_allreduce(s, 8, range), ContainsSubstring("1 distinct size(s)"));
  CHECK_THROWS_WITH(fit_allreduce(s, 1), ContainsSubstring("at least 2"));
  AllReduceSweep twice = model_sweep(8, 37.8e-6, 109e9, 1024.0, 1024.0);
  twice.samples.push_back(twice.samples.front());
  CHECK_THROWS_AS(fit_allreduce(twice, 8), InputError);
}

TEST_CASE("bus bandwidth classification at the measured GB10 figures", "[doctor]") {
  const BitRate link = BitRate::gigabits_per_second(200);
  FabricHardware spark;
  spark.faults = builtin_node("dgx-spark").bus_bandwidth_faults;
  REQUIRE(spark.faults);
  const auto at = [&](double gbps) {
    return diagnose_bus_bandwidth(BitRate::gigabits_per_second(gbps), link, spark);
  };
  CHECK(at(196).state == FabricState::healthy);
  CHECK(at(109).state == FabricState::one_pcie_half);
  CHECK_THAT(at(109).advice, ContainsSubstring("NCCL_IB_HCA lists only one RDMA device"));
  CHECK(at(111.86).state == FabricState::one_pcie_half);
  CHECK(at(12.74).state == FabricState::degraded_nic);
  CHECK(at(4.9).state == FabricState::software_forwarded);
  CHECK(at(4.47).state == FabricState::software_forwarded);
  CHECK(at(81.9).state == FabricState::below_expectation);
  // On a 100G link (or the emulated 109 Gb/s one) one half is healthy.
  CHECK(diagnose_bus_bandwidth(BitRate::gigabits_per_second(109), BitRate::gigabits_per_second(109),
                               spark)
            .state == FabricState::healthy);
  // The bands are the catalog's: a node file that moves one moves the verdict.
  FabricHardware narrower = spark;
  narrower.faults->one_pcie_half_to = BitRate::gigabits_per_second(110);
  CHECK(diagnose_bus_bandwidth(BitRate::gigabits_per_second(111.86), link, narrower).state ==
        FabricState::below_expectation);
  CHECK(to_string(FabricState::one_pcie_half) == "one-pcie-half");
}

TEST_CASE("the bus bandwidth of the largest sizes is their mean", "[doctor]") {
  const AllReduceSweep s = model_sweep(8, 0.0, 196e9, 1024.0, 8192.0);
  CHECK_THAT(large_size_busbw(s).bits_per_second(), WithinRel(196e9, 1e-12));
}

TEST_CASE("the synthetic example sweep fits 2.7 us per step and 196 Gb/s", "[fit]") {
  const AllReduceSweep s = load_nccl_tests(
      std::string(TPNET_SOURCE_DIR) + "/examples/nccl-tests/all_reduce_perf_8ranks_synthetic.txt");
  CHECK(s.ranks == 8);
  const AllReduceFit fit = fit_allreduce(s, s.ranks);
  CHECK_THAT(fit.step_latency.value(), WithinRel(2.7e-6, 1e-3));
  CHECK_THAT(fit.beta.bits_per_second(), WithinRel(196e9, 1e-3));
}

TEST_CASE("bus bandwidth classification names only the hardware the log shows", "[doctor]") {
  const BitRate link = BitRate::gigabits_per_second(100);
  FabricHardware v100;  // no measured faults
  v100.gpu = "Tesla V100-SXM2-32GB";
  v100.network = "AWS Libfabric";
  // 20 Gb/s sat in the ConnectX-7 band, 4.5 Gb/s in the Spark bridge's: neither applies here.
  for (const double gbps : {20.35, 4.5}) {
    const FabricDiagnosis d =
        diagnose_bus_bandwidth(BitRate::gigabits_per_second(gbps), link, v100);
    INFO(gbps);
    CHECK(d.state == FabricState::below_expectation);
    CHECK_THAT(d.finding, ContainsSubstring("on Tesla V100-SXM2-32GB over NCCL's AWS Libfabric"));
    CHECK_THAT(d.finding + d.advice, !ContainsSubstring("ConnectX-7"));
    CHECK_THAT(d.finding + d.advice, !ContainsSubstring("bridge"));
  }
  // NCCL's own "Using network Socket": a fallback to TCP, on any hardware.
  FabricHardware socket;
  socket.network = "Socket";
  const FabricDiagnosis d = diagnose_bus_bandwidth(BitRate::gigabits_per_second(12.0),
                                                   BitRate::gigabits_per_second(200), socket);
  CHECK(d.state == FabricState::socket_fallback);
  CHECK(to_string(d.state) == "socket-fallback");
  CHECK_THAT(d.advice, ContainsSubstring("aws-ofi-nccl"));
  // Healthy is healthy whatever the transport.
  CHECK(diagnose_bus_bandwidth(BitRate::gigabits_per_second(196), BitRate::gigabits_per_second(200),
                               socket)
            .state == FabricState::healthy);
}
