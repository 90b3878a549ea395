// Node files (tpnet/io/node_yaml.hpp, schema in docs/switch.md): a node
// parses with its defaults filled in, and every error names file, line and key.

#include <string>

#include "catch.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/node_yaml.hpp"

using namespace tpnet;

namespace {

const std::string kNode = R"(name: box
memory: 64GB
memory_bandwidth: 100GB/s
ports:
  count: 1
  cage: QSFP56
  rate: 200G
  speeds: [100G]
)";

std::string node_error(const std::string& text) {
  try {
    (void)parse_node_yaml(text, "node.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string node_with(const std::string& from, const std::string& to) {
  std::string text = kNode;
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("a node file parses and its errors name file, line and key", "[node][yaml][bad-input]") {
  const NodeSpec n = parse_node_yaml(kNode, "node.yaml");
  CHECK(n.usable_memory.count() == 64e9);  // defaults to all of it
  CHECK(n.ports.speeds.size() == 2);       // the port's own rate added
  CHECK(n.network_rate().bits_per_second() == 200e9);
  CHECK_THAT(node_error(node_with("[100G]", "[400G]")),
             ContainsSubstring("node.yaml:8: ports.speeds: 400G is faster than the port's rate"));
  CHECK_THAT(node_error(node_with("cage: QSFP56", "cage: XFP")),
             ContainsSubstring("node.yaml:6: ports.cage: 'XFP' is not a known port type"));
  CHECK_THAT(node_error(node_with("memory: 64GB", "memory: 64GB\nusable_memory: 65GB")),
             ContainsSubstring("node.yaml:3: usable_memory: must not exceed memory"));
  CHECK_THAT(node_error(node_with("memory: 64GB", "memory: 64GB\ngpu: 1")),
             ContainsSubstring("node.yaml:3: gpu: unknown key"));
  CHECK_THAT(node_error(node_with("memory_bandwidth: 100GB/s", "memory_bandwidth: fast")),
             ContainsSubstring("memory_bandwidth: 'fast' is not a bit rate"));
  CHECK_THAT(node_error(node_with("  count: 1\n", "  count: 1\n  lanes: 4\n")),
             ContainsSubstring("ports.lanes: unknown key"));
}

TEST_CASE("a node's bus-bandwidth fault bands are read from its file and checked in order",
          "[node][yaml][bad-input][doctor]") {
  const NodeSpec spark = builtin_node("dgx-spark");
  REQUIRE(spark.bus_bandwidth_faults);
  const BusBandwidthFaults& f = *spark.bus_bandwidth_faults;
  // docs/background.md s.9's measurements each fall in their own band.
  CHECK(BitRate::gigabits_per_second(4.9) < f.software_forwarded_below);
  CHECK(BitRate::gigabits_per_second(12.74) <= f.degraded_nic_up_to);
  CHECK(BitRate::gigabits_per_second(109.11) >= f.one_pcie_half_from);
  CHECK(BitRate::gigabits_per_second(111.86) <= f.one_pcie_half_to);
  CHECK(BitRate::gigabits_per_second(196) > f.one_pcie_half_to);
  CHECK_FALSE(f.source.empty());
  CHECK_FALSE(parse_node_yaml(kNode, "node.yaml").bus_bandwidth_faults);

  const std::string bands =
      "bus_bandwidth_faults:\n  software_forwarded_below: 8G\n  degraded_nic_up_to: 25G\n"
      "  one_pcie_half: [95G, 125G]\n  one_pcie_half_on_links_from: 180G\n  source: s\n";
  const auto with_bands = [&](const std::string& from, const std::string& to) {
    std::string text = bands;
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return node_with("memory: 64GB\n", "memory: 64GB\n" + text.replace(at, from.size(), to));
  };
  CHECK(parse_node_yaml(with_bands("s\n", "s\n"), "node.yaml").bus_bandwidth_faults);
  CHECK_THAT(node_error(with_bands("[95G, 125G]", "[125G, 95G]")),
             ContainsSubstring("bus_bandwidth_faults.one_pcie_half: needs lowest < highest"));
  CHECK_THAT(node_error(with_bands("degraded_nic_up_to: 25G", "degraded_nic_up_to: 5G")),
             ContainsSubstring("bus_bandwidth_faults.degraded_nic_up_to: needs "
                               "software_forwarded_below < degraded_nic_up_to"));
  CHECK_THAT(node_error(with_bands("[95G, 125G]", "95G")),
             ContainsSubstring("bus_bandwidth_faults.one_pcie_half: expected [lowest, highest]"));
  CHECK_THAT(node_error(with_bands("  source: s\n", "")),
             ContainsSubstring("bus_bandwidth_faults.source"));
}

TEST_CASE("a node's measured KV connector rates are read, and bad ones named by key",
          "[node][yaml][bad-input]") {
  const std::string with =
      node_with("memory: 64GB",
                "memory: 64GB\nkv_connector:\n  host_memory: 105.4Gb/s\n  gpu_memory: 4Gb/s\n"
                "  source: nixlbench between two boxes");
  const NodeSpec n = parse_node_yaml(with, "node.yaml");
  REQUIRE(n.kv_connector);
  CHECK(n.kv_connector->host_memory.bits_per_second() == Approx(105.4e9));
  CHECK(n.kv_connector->gpu_memory.bits_per_second() == Approx(4e9));
  CHECK_FALSE(parse_node_yaml(kNode, "node.yaml").kv_connector);
  CHECK_THAT(node_error(node_with("memory: 64GB", "memory: 64GB\nkv_connector:\n  source: x")),
             ContainsSubstring("kv_connector.host_memory"));
  CHECK_THAT(node_error(node_with(
                 "memory: 64GB", "memory: 64GB\nkv_connector:\n  host_memory: 0Gb/s\n  source: x")),
             ContainsSubstring("kv_connector.host_memory: '0Gb/s' must be a positive bit rate"));
  CHECK_THAT(node_error(node_with("memory: 64GB",
                                  "memory: 64GB\nkv_connector:\n  host_memory: 1G\n  rdma: yes\n"
                                  "  source: x")),
             ContainsSubstring("kv_connector.rdma: unknown key"));
  CHECK_THAT(
      node_error(node_with("memory: 64GB", "memory: 64GB\nkv_connector:\n  host_memory: 1G")),
      ContainsSubstring("kv_connector.source"));
}
