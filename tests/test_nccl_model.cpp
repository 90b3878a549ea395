// NCCL's all-reduce cost model, checked against numbers worked by hand from
// NCCL 2.28.3's src/graph/tuning.cc constants (docs/formulas.md s.20).
// Units as in tuning.cc: latency us, bandwidth GB/s, time = lat + bytes / (1000 bw) us.

#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/fabric/nccl_model.hpp"

using namespace tpnet;

namespace {

using CA = CollectiveAlgorithm;
using NP = NcclProtocol;

/// DGX Sparks: one GB10 (cc 12.1) a node, Arm CPU, 2 channels, 200 Gb/s = 25 GB/s.
NcclSetup sparks(int ranks, double gbps = 200.0) {
  NcclSetup s;
  s.ranks = ranks;
  s.link_rate = BitRate::gigabits_per_second(gbps);
  return s;
}

double us(Seconds t) { return t.value() * 1e6; }
double gbytes(BitRate r) { return r.bytes_per_second() / 1e9; }

const NcclCost& find(const NcclChoice& c, CA a, NP p) {
  for (const auto& cost : c.candidates) {
    if (cost.algorithm == a && cost.protocol == p) return cost;
  }
  FAIL("candidate missing");
  return c.chosen;
}

constexpr double kRel = 1e-9;

}  // namespace

// 8 nodes: index2 = 2 (the N4 column), Arm -> llMaxBw row 0: 20.4 GB/s.
// Blackwell N4 caps: ring LL128 73.4, tree LL128 20.0, tree 24.0 GB/s per channel.
// ppn = 1, so inter-node steps use the tree's NET latency: LL 5.0, LL128 8.5, Simple 14.
// Ring: nsteps = 14 = nInterSteps, so no intra-node step is left.
TEST_CASE("GLM-5.3 TP8 decode block 61,440 B over 200G: ring/LL 76.6 us, tree/LL cheapest",
          "[nccl][golden]") {
  const NcclChoice c = choose_nccl_allreduce(Bytes(61440), sparks(8));
  REQUIRE(c.candidates.size() == 6);

  // ring/LL: bus = min(20.4, 25 x 0.5) = 12.5; alg = 12.5 x 8/14 = 7.142857
  // lat = 6.6 + 14 x 5.0 = 76.6; time = 76.6 + 61440 / 7142.857 = 76.6 + 8.6016 = 85.2016
  const NcclCost& ring_ll = find(c, CA::ring, NP::ll);
  CHECK_THAT(us(ring_ll.latency), WithinRel(76.6, kRel));
  CHECK_THAT(gbytes(ring_ll.bus_bandwidth), WithinRel(12.5, kRel));
  CHECK_THAT(gbytes(ring_ll.algorithm_bandwidth), WithinRel(12.5 * 8 / 14, kRel));
  CHECK_THAT(us(ring_ll.time), WithinRel(85.2016, kRel));

  // ring/LL128: bus = min(25 x 0.92, 2 x 73.4) = 23; alg = 23 x 8/14
  // lat = 14.0 + 14 x 8.5 = 133; time = 133 + 61440 x 14 / 184000 = 133 + 4.674783
  const NcclCost& ring_ll128 = find(c, CA::ring, NP::ll128);
  CHECK_THAT(us(ring_ll128.latency), WithinRel(133.0, kRel));
  CHECK_THAT(gbytes(ring_ll128.bus_bandwidth), WithinRel(23.0, kRel));
  CHECK_THAT(us(ring_ll128.time), WithinRel(133.0 + 860160.0 / 184000.0, kRel));

  // ring/Simple: bus 25; lat = (8.4 + 14 x 14) x 1.4 = 204.4 x 1.4 = 286.16, the plateau
  // because 61440 / (2 channels x 8 ranks) = 3840 >= 64; time = 286.16 + 4.3008
  const NcclCost& ring_simple = find(c, CA::ring, NP::simple);
  CHECK(ring_simple.plateau_factor == 1.4);
  CHECK_THAT(us(ring_simple.latency), WithinRel(286.16, kRel));
  CHECK_THAT(us(ring_simple.time), WithinRel(290.4608, kRel));

  // tree/LL: bus = min(25 x 0.92, 2 x 24) = 23, then min(23 / 3.8, 20.4) = 6.052632;
  // alg = x 0.5 = 3.026316; 61440 >> 6 = 960, log2i = 9, LL factor 0.7 -> 2.118421
  // lat = 6.8 + 2 x (0 x 1.0 + log2i(8) = 3 x 5.0) = 36.8
  // time = 36.8 + 61440 x 3.8 x 2 / (23 x 0.7 x 1000) = 36.8 + 29.002733
  const NcclCost& tree_ll = find(c, CA::tree, NP::ll);
  CHECK(tree_ll.tree_correction == 0.7);
  CHECK_THAT(us(tree_ll.latency), WithinRel(36.8, kRel));
  CHECK_THAT(gbytes(tree_ll.bus_bandwidth), WithinRel(23.0 / 3.8, kRel));
  CHECK_THAT(gbytes(tree_ll.algorithm_bandwidth), WithinRel(23.0 / 3.8 * 0.5 * 0.7, kRel));
  CHECK_THAT(us(tree_ll.time), WithinRel(36.8 + 466944.0 / 16100.0, kRel));

  // tree/LL128: bus = min(23 x 120/128, 2 x 20) = 21.5625; alg 10.78125 x 0.7 = 7.546875
  // lat = 14 + 2 x 3 x 8.5 = 65; time = 65 + 61440 / 7546.875
  const NcclCost& tree_ll128 = find(c, CA::tree, NP::ll128);
  CHECK_THAT(us(tree_ll128.latency), WithinRel(65.0, kRel));
  CHECK_THAT(gbytes(tree_ll128.bus_bandwidth), WithinRel(21.5625, kRel));
  CHECK_THAT(us(tree_ll128.time), WithinRel(65.0 + 61440.0 / 7546.875, kRel));

  // tree/Simple: alg 23 x 0.5 x 0.6 = 6.9; lat = 8.4 + 2 x 3 x 14 = 92.4; no plateau for trees
  const NcclCost& tree_simple = find(c, CA::tree, NP::simple);
  CHECK(tree_simple.plateau_factor == 1.0);
  CHECK_THAT(us(tree_simple.latency), WithinRel(92.4, kRel));
  CHECK_THAT(us(tree_simple.time), WithinRel(92.4 + 61440.0 / 6900.0, kRel));

  // The tuner: tree/LL at 65.80 us beats ring/LL at 85.20 us.
  CHECK(c.chosen.algorithm == CA::tree);
  CHECK(c.chosen.protocol == NP::ll);
  CHECK_THAT(us(c.chosen.time), WithinRel(65.80273292, 1e-8));
  for (const auto& cost : c.candidates) CHECK(cost.enabled);
}

TEST_CASE("restricted to ring (the study's formula) the decode block goes ring/LL",
          "[nccl][golden]") {
  NcclSetup s = sparks(8);
  s.algorithms = {CA::ring};
  const NcclChoice c = choose_nccl_allreduce(Bytes(61440), s);
  CHECK(c.chosen.algorithm == CA::ring);
  CHECK(c.chosen.protocol == NP::ll);
  CHECK_THAT(us(c.chosen.latency), WithinRel(76.6, kRel));
  CHECK_FALSE(find(c, CA::tree, NP::ll).enabled);
  // A disabled candidate keeps its numbers for comparison.
  CHECK_THAT(us(find(c, CA::tree, NP::ll).latency), WithinRel(36.8, kRel));
  CHECK(nccl_allreduce_cost(Bytes(61440), s, CA::tree, NP::ll).enabled == false);
}

// NCCL's size is each rank's buffer: the 50.3 MB block (88.1 MB is what a node sends).
TEST_CASE("GLM-5.3 TP8 prefill block 50,331,648 B over 200G goes ring/Simple", "[nccl][golden]") {
  const NcclChoice c = choose_nccl_allreduce(Bytes(50331648), sparks(8));
  // ring/Simple: 286.16 + 50331648 x 14 / (25 x 8 x 1000) = 286.16 + 3523.21536
  CHECK(c.chosen.algorithm == CA::ring);
  CHECK(c.chosen.protocol == NP::simple);
  CHECK_THAT(us(c.chosen.time), WithinRel(3809.37536, kRel));
  // ring/LL128: 133 + 50331648 x 14 / 184000 = 3962.58; ring/LL: 76.6 + 7046.43 = 7123.03
  CHECK_THAT(us(find(c, CA::ring, NP::ll128).time),
             WithinRel(133.0 + 50331648.0 * 14 / 184000, kRel));
  CHECK_THAT(us(find(c, CA::ring, NP::ll).time), WithinRel(76.6 + 50331648.0 * 14 / 100000, kRel));
  // tree/Simple: 50331648 >> 6 = 786432, log2i 19, factor 0.7: alg 23 x 0.5 x 0.7 = 8.05
  const NcclCost& tree_simple = find(c, CA::tree, NP::simple);
  CHECK(tree_simple.tree_correction == 0.7);
  CHECK_THAT(us(tree_simple.time), WithinRel(92.4 + 50331648.0 / 8050.0, kRel));
  CHECK(find(c, CA::tree, NP::ll128).tree_correction == 0.9);
  CHECK(find(c, CA::tree, NP::ll).tree_correction == 1.0);
}

TEST_CASE("tree correction factors index log2(bytes / 64) and stop at 256 MiB", "[nccl]") {
  const NcclSetup s = sparks(8);
  auto factor = [&](double bytes, NP p) {
    return nccl_allreduce_cost(Bytes(bytes), s, CA::tree, p).tree_correction;
  };
  CHECK(factor(63, NP::simple) == 1.0);         // 63 >> 6 = 0: log2i(0) = -1, none
  CHECK(factor(64, NP::simple) == 0.9);         // log2i(1) = 0
  CHECK(factor(64 * 1024, NP::ll) == 0.6);      // 1024 -> 10
  CHECK(factor(64 * 8192, NP::ll) == 0.4);      // 8192 -> 13
  CHECK(factor(268435456, NP::simple) == 0.9);  // 2^28 >> 6 = 2^22 -> the last entry
  CHECK(factor(268435456, NP::ll128) == 1.0);
  CHECK(factor(536870912, NP::simple) == 1.0);  // 2^29 -> 23: past the table
  CHECK(nccl_allreduce_cost(Bytes(64), s, CA::ring, NP::simple).tree_correction == 1.0);
}

// 2 nodes: index2 = 1 (N2): llMaxBw 39.0; Blackwell N2 caps: tree 42.8, tree LL128 31.67.
// nsteps = nInterSteps = 2; tree depth log2i(2) = 1.
TEST_CASE("two DGX Sparks: ring/LL for small sizes, ring/LL128 at 1 MB", "[nccl][golden]") {
  const NcclSetup s = sparks(2);
  // ring/LL: bus min(39, 12.5) = 12.5, alg x 2/2; lat = 6.6 + 2 x 5.0 = 16.6
  // 4096 B: 16.6 + 4096 / 12500 = 16.92768 us
  // tree/LL: bus min(23, 2 x 42.8) = 23 -> 23/3.8; 4096 >> 6 = 64, log2i 6, factor 0.7
  //   lat = 6.8 + 2 x 1 x 5.0 = 16.8; time = 16.8 + 4096 x 3.8 x 2 / (23 x 0.7 x 1000)
  const NcclChoice small = choose_nccl_allreduce(Bytes(4096), s);
  CHECK(describe(small.chosen) == "ring/LL");
  CHECK_THAT(us(small.chosen.time), WithinRel(16.92768, kRel));
  CHECK_THAT(us(find(small, CA::tree, NP::ll).time), WithinRel(16.8 + 31129.6 / 16100.0, kRel));
  // 4096 / (2 x 2) = 1024 >= 64: plateau, (8.4 + 2 x 14) x 1.4 = 50.96
  CHECK_THAT(us(find(small, CA::ring, NP::simple).latency), WithinRel(50.96, kRel));

  // 1,000,000 B: ring/LL 16.6 + 80 = 96.6; ring/LL128 (14 + 2 x 8.5 = 31) + 1e6 / 23000
  // = 74.478; ring/Simple 50.96 + 40 = 90.96; trees (log2i(15625) = 13) far slower.
  const NcclChoice mid = choose_nccl_allreduce(Bytes(1e6), s);
  CHECK(describe(mid.chosen) == "ring/LL128");
  CHECK_THAT(us(mid.chosen.time), WithinRel(31.0 + 1e6 / 23000.0, kRel));
  CHECK_THAT(us(find(mid, CA::ring, NP::ll).time), WithinRel(96.6, kRel));
  CHECK_THAT(us(find(mid, CA::ring, NP::simple).time), WithinRel(90.96, kRel));
  // tree/LL128: bus min(23 x 120/128, 2 x 31.67) = 21.5625; factor 0.6 -> 6.46875 alg
  CHECK_THAT(us(find(mid, CA::tree, NP::ll128).time), WithinRel(31.0 + 1e6 / 6468.75, kRel));
}

TEST_CASE("GPUs sharing a node: PCI steps inside, network steps between", "[nccl][golden]") {
  // 4 GPUs on 1 node over PCI: no network, no net overhead. Ring LL: 6.6 + 6 x 1.0 = 12.6;
  // tree LL: 6.8 + 2 x (3 x 1.0 + 0) = 12.8. N1 column, Blackwell row: llMaxBw 282.
  NcclSetup one = sparks(4);
  one.nodes = 1;
  CHECK_THAT(us(nccl_allreduce_cost(Bytes(1024), one, CA::ring, NP::ll).latency),
             WithinRel(12.6, kRel));
  CHECK_THAT(us(nccl_allreduce_cost(Bytes(1024), one, CA::tree, NP::ll).latency),
             WithinRel(12.8, kRel));
  // Single node: no plateau, tree LL128 uses 7/9: bus min(23 x 7/9, 2 x 55.6)
  CHECK(nccl_allreduce_cost(Bytes(1e8), one, CA::ring, NP::simple).plateau_factor == 1.0);
  CHECK_THAT(gbytes(nccl_allreduce_cost(Bytes(1024), one, CA::tree, NP::ll128).bus_bandwidth),
             WithinRel(23.0 * 7 / 9, kRel));
  // With NVLink inside the node: ring LL 6.6 + 6 x 0.6 = 10.2.
  one.intra_node = IntraNodeLink::nvlink;
  CHECK_THAT(us(nccl_allreduce_cost(Bytes(1024), one, CA::ring, NP::ll).latency),
             WithinRel(10.2, kRel));

  // 8 GPUs on 2 nodes (ppn 4): inter-node latency is the algorithm's own NET entry.
  // Ring LL: nsteps 14, nInterSteps 2 x (2-1) = 2; intra = max(1.0, 1.0 net overhead)
  //   lat = 6.6 + 12 x 1.0 + 2 x 2.7 = 24.0
  // Ring Simple: intra = max(5.7, 3 x 1.0) = 5.7: 8.4 + 12 x 5.7 + 2 x 14 = 104.8
  // Tree LL: 6.8 + 2 x (3 x 1.0 + 1 x 5.0) = 22.8
  NcclSetup two = sparks(8);
  two.nodes = 2;
  CHECK_THAT(us(nccl_allreduce_cost(Bytes(1024), two, CA::ring, NP::ll).latency),
             WithinRel(24.0, kRel));
  CHECK_THAT(us(nccl_allreduce_cost(Bytes(512), two, CA::ring, NP::simple).latency),
             WithinRel(104.8, kRel));  // 512 / (2 x 8) = 32 < 64: below the plateau
  CHECK_THAT(us(nccl_allreduce_cost(Bytes(1024), two, CA::tree, NP::ll).latency),
             WithinRel(22.8, kRel));
  // AMD: 2 us overhead; ring LL intra max(1.0, 2.0) = 2.0: 6.6 + 24 + 5.4 = 36.0;
  // Simple: 3 x 2.0 = 6.0 > 5.7: 8.4 + 72 + 28 = 108.4
  two.cpu = CpuVendor::amd;
  CHECK_THAT(us(nccl_allreduce_cost(Bytes(512), two, CA::ring, NP::ll).latency),
             WithinRel(36.0, kRel));
  CHECK_THAT(us(nccl_allreduce_cost(Bytes(512), two, CA::ring, NP::simple).latency),
             WithinRel(108.4, kRel));
  // NCCL_NET_OVERHEAD=3000 (3 us) overrides the vendor: ring LL 6.6 + 12 x 3 + 5.4 = 48.0
  two.net_overhead = Seconds::microseconds(3.0);
  CHECK_THAT(us(nccl_allreduce_cost(Bytes(512), two, CA::ring, NP::ll).latency),
             WithinRel(48.0, kRel));
}

TEST_CASE("the ring Simple plateau needs several nodes and 64 B per channel per rank",
          "[nccl][golden]") {
  const NcclSetup s = sparks(8);
  // 2 channels x 8 ranks x 64 = 1024 B is the threshold.
  CHECK(nccl_allreduce_cost(Bytes(1023), s, CA::ring, NP::simple).plateau_factor == 1.0);
  CHECK_THAT(us(nccl_allreduce_cost(Bytes(1023), s, CA::ring, NP::simple).latency),
             WithinRel(204.4, kRel));
  CHECK(nccl_allreduce_cost(Bytes(1024), s, CA::ring, NP::simple).plateau_factor == 1.4);
  CHECK(nccl_allreduce_cost(Bytes(1024), s, CA::ring, NP::ll).plateau_factor == 1.0);
  // Before Ampere (cc < 8.0) the factor is 1.9: 204.4 x 1.9 = 388.36
  NcclSetup volta = s;
  volta.compute_capability = 7.0;
  CHECK_THAT(us(nccl_allreduce_cost(Bytes(61440), volta, CA::ring, NP::simple).latency),
             WithinRel(388.36, kRel));
}

TEST_CASE("a net plugin's latencyInter adds per inter-node step, twice for Simple",
          "[nccl][golden]") {
  NcclSetup s = sparks(8);
  s.latency_inter = Seconds::microseconds(1.0);
  // ring LL: 6.6 + 14 x (5.0 + 1.0) = 90.6; ring Simple below the plateau:
  // 8.4 + 14 x (14 + 1 + 1) = 232.4
  CHECK_THAT(us(nccl_allreduce_cost(Bytes(512), s, CA::ring, NP::ll).latency),
             WithinRel(90.6, kRel));
  CHECK_THAT(us(nccl_allreduce_cost(Bytes(512), s, CA::ring, NP::simple).latency),
             WithinRel(232.4, kRel));
}

TEST_CASE("caps bind on a fast link: LL at 20.4 GB/s, tree at 2 x 24 GB/s", "[nccl][golden]") {
  const NcclSetup s = sparks(8, 800.0);  // 100 GB/s
  CHECK_THAT(gbytes(nccl_allreduce_cost(Bytes(1e6), s, CA::ring, NP::ll).bus_bandwidth),
             WithinRel(20.4, kRel));  // min(20.4, 50)
  CHECK_THAT(gbytes(nccl_allreduce_cost(Bytes(1e6), s, CA::ring, NP::ll128).bus_bandwidth),
             WithinRel(92.0, kRel));  // min(92, 146.8)
  CHECK_THAT(gbytes(nccl_allreduce_cost(Bytes(1e6), s, CA::tree, NP::simple).bus_bandwidth),
             WithinRel(48.0, kRel));  // min(92, 48)
  CHECK_THAT(gbytes(nccl_allreduce_cost(Bytes(1e6), s, CA::tree, NP::ll128).bus_bandwidth),
             WithinRel(40.0, kRel));  // min(48 x 120/128 = 45, 2 x 20)
  // AMD across nodes uses llMaxBw row 1: N4 19.0 GB/s.
  NcclSetup amd = s;
  amd.cpu = CpuVendor::amd;
  CHECK_THAT(gbytes(nccl_allreduce_cost(Bytes(1e6), amd, CA::ring, NP::ll).bus_bandwidth),
             WithinRel(19.0, kRel));
}

TEST_CASE("pinning a protocol restricts the tuner like NCCL_PROTO", "[nccl]") {
  NcclSetup s = sparks(8);
  s.protocols = {NP::simple};
  const NcclChoice c = choose_nccl_allreduce(Bytes(61440), s);
  // tree/Simple 92.4 + 61440 / 6900 = 101.30 us beats ring/Simple's 290.46 us.
  CHECK(describe(c.chosen) == "tree/Simple");
  CHECK_THAT(us(c.chosen.time), WithinRel(92.4 + 61440.0 / 6900.0, kRel));
  s.algorithms = {CA::ring};
  CHECK(describe(choose_nccl_allreduce(Bytes(61440), s).chosen) == "ring/Simple");
  CHECK(c.candidates.size() == 6);
  CHECK_FALSE(find(c, CA::ring, NP::ll).enabled);
  CHECK_FALSE(find(c, CA::tree, NP::ll).enabled);
}

TEST_CASE("a single rank costs nothing", "[nccl]") {
  const NcclChoice c = choose_nccl_allreduce(Bytes(1e6), sparks(1));
  CHECK(c.chosen.time.value() == 0.0);
  CHECK(c.chosen.latency.value() == 0.0);
  for (const auto& cost : c.candidates) CHECK(cost.time.value() == 0.0);
}

TEST_CASE("the ring all-gather prices N-1 steps on the gathered size", "[nccl][golden]") {
  // GLM-5.3 TP8 decode logits: 5 x 129,280 x 2 = 1,292,800 B gathered.
  // LL: 6.6 + 7 x 5.0 = 41.6, alg 12.5 x 8/7: 41.6 + 90.496 = 132.096
  // LL128: 14 + 7 x 8.5 = 73.5, alg 23 x 8/7: 73.5 + 49.182609 = 122.682609
  // Simple: 8.4 + 7 x 14 = 106.4 (no plateau): 106.4 + 45.248 = 151.648
  const NcclChoice c = choose_nccl_allgather(Bytes(1292800), sparks(8));
  REQUIRE(c.candidates.size() == 3);
  CHECK_THAT(us(c.candidates[0].time), WithinRel(132.096, kRel));
  CHECK_THAT(us(c.candidates[2].time), WithinRel(151.648, kRel));
  CHECK(describe(c.chosen) == "ring/LL128");
  CHECK_THAT(us(c.chosen.latency), WithinRel(73.5, kRel));
  CHECK_THAT(us(c.chosen.time), WithinRel(73.5 + 9049600.0 / 184000.0, kRel));
}

TEST_CASE("the 2.28.3 constants are the documented ones", "[nccl]") {
  const NcclTuningConstants& k = nccl_2_28_tuning();
  CHECK(k.source == "NCCL 2.28.3, src/graph/tuning.cc");
  CHECK(k.base_latency_us[1][0] == 6.6);   // Ring LL
  CHECK(k.base_latency_us[0][1] == 14.0);  // Tree LL128
  CHECK(k.net_latency_us[1][0] == 2.7);    // Ring LL over the network
  CHECK(k.net_latency_us[0][2] == 14.0);   // Tree Simple
  CHECK(k.ll_max_bw[3][0] == 282.0);
  CHECK(k.tree_ll128_max_bw_per_channel[3][1] == 31.67);
  CHECK(k.tree_correction[2][22] == 0.9);
}

TEST_CASE("protocol and algorithm names parse as NCCL_PROTO and NCCL_ALGO do", "[nccl]") {
  const auto where = InputLocation::for_key("--nccl-proto");
  CHECK(to_string(NP::ll) == "LL");
  CHECK(to_string(NP::ll128) == "LL128");
  CHECK(to_string(NP::simple) == "Simple");
  CHECK(parse_nccl_protocol("ll128", where) == NP::ll128);
  CHECK(parse_nccl_protocol("SIMPLE", where) == NP::simple);
  CHECK(parse_nccl_protocols("auto", where) == std::vector<NP>{NP::ll, NP::ll128, NP::simple});
  CHECK(parse_nccl_protocols("Simple,LL", where) == std::vector<NP>{NP::ll, NP::simple});
  CHECK(parse_nccl_protocols("^LL128", where) == std::vector<NP>{NP::ll, NP::simple});
  CHECK(parse_nccl_algorithms("Ring", where) == std::vector<CA>{CA::ring});
  CHECK(parse_nccl_algorithms("^tree", where) == std::vector<CA>{CA::ring});
  CHECK(parse_nccl_algorithms("AUTO", where) == std::vector<CA>{CA::tree, CA::ring});
  CHECK(to_string(CpuVendor::arm) == "arm");
}

TEST_CASE("NCCL setups NCCL would not run are refused", "[nccl][bad-input]") {
  const auto where = InputLocation::for_key("--nccl-proto");
  auto refuses = [](const NcclSetup& s, const std::string& key) {
    try {
      (void)choose_nccl_allreduce(Bytes(1024), s);
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(e.where().key == key);
    }
  };
  NcclSetup s = sparks(0);
  refuses(s, "nccl.ranks");
  s = sparks(8);
  s.nodes = 3;
  refuses(s, "nccl.nodes");
  s = sparks(8);
  s.channels = 0;
  refuses(s, "nccl.channels");
  s = sparks(8);
  s.link_rate = BitRate(0.0);
  refuses(s, "link");
  s = sparks(8);
  s.protocols.clear();
  refuses(s, "nccl.protocols");
  s = sparks(8);
  s.algorithms.clear();
  refuses(s, "nccl.algorithms");
  s = sparks(8);
  s.compute_capability = 5.2;
  refuses(s, "compute_capability");
  s = sparks(8);
  s.net_overhead = Seconds(-1e-6);
  refuses(s, "net_overhead");
  CHECK_THROWS_AS(choose_nccl_allreduce(Bytes(-1), sparks(8)), InputError);
  CHECK_THROWS_AS(parse_nccl_protocol("LL256", where), InputError);
  CHECK_THROWS_AS(parse_nccl_protocols("^LL,LL128,Simple", where), InputError);
  CHECK_THROWS_WITH(parse_nccl_protocols("LL,,Simple", where),
                    ContainsSubstring("an empty name in 'LL,,Simple'; use auto, LL, LL128"));
  CHECK_THROWS_WITH(parse_nccl_algorithms("^", where), ContainsSubstring("an empty name in ''"));
  CHECK_THROWS_AS(parse_nccl_algorithms("collnet", where), InputError);
  // NCCL's list syntax takes `=` and ports, which name no algorithm.
  CHECK_THROWS_WITH(parse_nccl_algorithms("=ring", where),
                    ContainsSubstring("'=ring' is not an NCCL all-reduce algorithm"));
  CHECK_THROWS_WITH(parse_nccl_algorithms("tree,ring:1", where),
                    ContainsSubstring("'ring:1' is not an NCCL all-reduce algorithm"));
}
