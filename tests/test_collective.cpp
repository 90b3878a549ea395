#include "catch.hpp"
#include "golden.hpp"
#include "tpnet/fabric/allreduce_time.hpp"
#include "tpnet/traffic/collective.hpp"

using namespace tpnet;
using tpnet::test::prints_as;

TEST_CASE("ring all-reduce sends 1.0, 1.5, 1.75 and 1.875 x the block at TP2-TP16",
          "[collective][golden]") {
  CHECK(allreduce_sent_factor(2, CollectiveAlgorithm::ring) == 1.0);
  CHECK(allreduce_sent_factor(4, CollectiveAlgorithm::ring) == 1.5);
  CHECK(allreduce_sent_factor(8, CollectiveAlgorithm::ring) == 1.75);
  CHECK(allreduce_sent_factor(16, CollectiveAlgorithm::ring) == 1.875);
}

TEST_CASE("ring all-reduce never sends more than twice the block", "[collective]") {
  double previous = 0.0;
  for (int n = 1; n <= 4096; ++n) {
    const double f = allreduce_sent_factor(n, CollectiveAlgorithm::ring);
    CHECK(f < 2.0);
    CHECK(f >= previous);
    previous = f;
  }
}

TEST_CASE("a single rank sends nothing and takes no steps", "[collective]") {
  const AllReduceTraffic traffic = allreduce_traffic(Bytes(1e6), 1, CollectiveAlgorithm::ring);
  CHECK(traffic.sent_per_node.count() == 0.0);
  CHECK(traffic.steps == 0);
  CHECK(allreduce_latency(traffic, StepLatency{}).value() == 0.0);
}

TEST_CASE("ring all-reduce takes 2(N-1) steps of S/N", "[collective]") {
  const AllReduceTraffic traffic = allreduce_traffic(Bytes(800), 8, CollectiveAlgorithm::ring);
  CHECK(traffic.steps == 14);
  CHECK(traffic.segment.count() == 100.0);
  CHECK(traffic.sent_per_node.count() == 1400.0);  // 14 steps x one segment each
}

TEST_CASE("tree all-reduce: busiest node sends 2 x the block, steps 2 x ceil(log2 N)",
          "[collective]") {
  CHECK(allreduce_sent_factor(2, CollectiveAlgorithm::tree) == 1.0);
  CHECK(allreduce_sent_factor(8, CollectiveAlgorithm::tree) == 2.0);
  CHECK(allreduce_steps(2, CollectiveAlgorithm::tree) == 2);
  CHECK(allreduce_steps(8, CollectiveAlgorithm::tree) == 6);
  CHECK(allreduce_steps(9, CollectiveAlgorithm::tree) == 8);
  CHECK(allreduce_steps(16, CollectiveAlgorithm::tree) == 8);
  const AllReduceTraffic traffic = allreduce_traffic(Bytes(1000), 8, CollectiveAlgorithm::tree);
  CHECK(traffic.segment.count() == 500.0);
}

TEST_CASE("an all-reduce needs at least one rank", "[collective][bad-input]") {
  CHECK_THROWS_AS(allreduce_traffic(Bytes(1), 0, CollectiveAlgorithm::ring), InputError);
  CHECK_THROWS_AS(allreduce_traffic(Bytes(1), -3, CollectiveAlgorithm::ring), InputError);
  CHECK_THROWS_AS(allreduce_traffic(Bytes(-1), 2, CollectiveAlgorithm::ring), InputError);
}
