// Fabric catalogs (tpnet/io/fabric_yaml.hpp, models/fabrics/*.yaml): a
// profile's topology and a small-size table's path are checked as they are read.

#include <string>

#include "catch.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/io/fabric_yaml.hpp"

using namespace tpnet;

TEST_CASE("a fabric catalog's topology keys are checked", "[fabric][bad-input]") {
  const std::string head = R"(node: n
small_allreduce:
  - {ranks: 2, measured_on: p, source: s, points: [{size: 8192, time: 30us}]}
rdma:
  p: {rate: 100G, line_rate: 200G, source: s}
nccl:
  p: {ranks: 2, collective: all_reduce, source: s, points: [{size: 1MiB, bus_bandwidth: 10GB/s}]}
profiles:
  - name: x
    link: 200G
    description: d
    path: p
    rdma_devices: 1
)";
  CHECK(parse_fabric_catalog(head + "    topology: direct\n", "f.yaml").front().max_ranks == 2);
  CHECK_THROWS_WITH(parse_fabric_catalog(head + "    topology: mesh\n", "f.yaml"),
                    ContainsSubstring("not a topology"));
  CHECK_THROWS_WITH(parse_fabric_catalog(head + "    topology: ring\n", "f.yaml"),
                    ContainsSubstring("needs max_nodes"));
  CHECK_THROWS_WITH(parse_fabric_catalog(head + "    max_nodes: 4\n", "f.yaml"),
                    ContainsSubstring("only a direct cable or a ring"));
  CHECK_THROWS_WITH(
      parse_fabric_catalog(head + "    topology: ring\n    max_nodes: 4\n    nccl_settings: [X]\n",
                           "f.yaml"),
      ContainsSubstring("NAME=value"));
}

TEST_CASE("a fabric catalog's small-size table must name the path it was measured on") {
  const std::string head = R"(node: n
small_allreduce:
  - ranks: 2
    source: s
)";
  const std::string tail = R"(    points: [{size: 8192, time: 30us}]
rdma:
  p: {rate: 190G, line_rate: 200G, source: s}
nccl:
  p: {ranks: 2, collective: all_reduce, source: s, points: [{size: 1GiB, bus_bandwidth: 19GB/s}]}
profiles:
  - {name: x, link: 200G, description: d, path: p, rdma_devices: 2}
)";
  CHECK_THROWS_WITH(parse_fabric_catalog(head + tail, "f.yaml"), ContainsSubstring("measured_on"));
  CHECK_THROWS_WITH(parse_fabric_catalog(head + "    measured_on: q\n" + tail, "f.yaml"),
                    ContainsSubstring("'q' is not a path of the nccl section; use p"));
  const auto profiles = parse_fabric_catalog(head + "    measured_on: p\n" + tail, "f.yaml");
  REQUIRE(profiles.size() == 1);
  CHECK(profiles[0].small.at(0).measured_bus_bandwidth.bytes_per_second() == 19e9);
  // A curve whose sizes do not increase, or an unknown collective, is refused.
  std::string bad = tail;
  bad.replace(bad.find("all_reduce"), 10, "broadcast");
  CHECK_THROWS_WITH(parse_fabric_catalog(head + "    measured_on: p\n" + bad, "f.yaml"),
                    ContainsSubstring("'broadcast' is not a collective"));
}
