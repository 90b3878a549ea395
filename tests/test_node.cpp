// A node as data (tpnet/fabric/node.hpp): what it can move in total is the
// least of its ports, its host links and its NIC's limit, on nodes built by hand.

#include "catch.hpp"
#include "tpnet/fabric/node.hpp"

using namespace tpnet;

namespace {

BitRate gbps(double g) { return BitRate::gigabits_per_second(g); }

/// Two 200G ports behind two PCIe links that carry 109 Gb/s each, as a DGX
/// Spark (docs/background.md), with no NIC limit stated.
NodeSpec two_ports() {
  NodeSpec n;
  n.name = "hand";
  n.ports = NodePorts{2, "QSFP112", gbps(200), {gbps(200), gbps(100)}};
  n.host_links = HostLinks{2, 5, 4, gbps(109)};
  return n;
}

}  // namespace

TEST_CASE("a node moves the least of its ports, host links and NIC limit", "[node]") {
  NodeSpec n = two_ports();
  // min(2 x 200, 2 x 109) = 218 Gb/s: the PCIe links bind.
  CHECK(n.network_rate() == gbps(218));
  // A NIC limit below both binds instead: the DGX Spark's 200 Gb/s.
  n.network_limit = gbps(200);
  CHECK(n.network_rate() == gbps(200));
  // Host links unstated (count 0 or no usable rate) bound nothing: 2 x 200 = 400.
  NodeSpec bare = two_ports();
  bare.host_links = HostLinks{};
  CHECK(bare.network_rate() == gbps(400));
  bare.host_links = HostLinks{2, 5, 4, BitRate(0.0)};
  CHECK(bare.network_rate() == gbps(400));
}

TEST_CASE("a port supports the speeds it lists and no other", "[node]") {
  const NodePorts ports = two_ports().ports;
  CHECK(ports.supports(gbps(200)));
  CHECK(ports.supports(gbps(100)));
  CHECK(ports.supports(BitRate::gigabytes_per_second(25)));  // 200G, in another unit
  CHECK_FALSE(ports.supports(gbps(400)));
  CHECK_FALSE(ports.supports(gbps(50)));
}

TEST_CASE("a preflight finding is looked up by its key", "[node][preflight]") {
  NodePreflight p;
  p.findings = {{"mtu", PreflightFinding{"RoCE MTU 1024", "s", "set 9000", {}, {}}},
                {"memlock", PreflightFinding{"registration fails", "s", "unlimited", {}, {}}}};
  REQUIRE(p.finding("memlock") != nullptr);
  CHECK(p.finding("memlock")->cost == "registration fails");
  CHECK(p.finding("mtu")->fix == "set 9000");
  CHECK(p.finding("pcie_link") == nullptr);
}
