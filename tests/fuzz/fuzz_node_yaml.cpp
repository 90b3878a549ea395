// Node catalog files (models/nodes/*.yaml) through parse_node_yaml, then
// its network rate and the switch plans over the built-in switches.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "fuzz_switch_plan.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/io/node_yaml.hpp"
#include "tpnet/io/switch_catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpnet;
  using namespace tpnet::fuzz;
  static const std::vector<SwitchSpec> switches = builtin_switches();
  contract(Origin::file, [&] {
    const NodeSpec n = parse_node_yaml(text_of(data, size), "fuzz/node.yaml");
    if (n.name.empty()) violated("node without a name");
    positive(n.memory, "memory");
    positive(n.memory_bandwidth, "memory_bandwidth");
    positive(n.usable_memory, "usable_memory");
    non_negative(n.reserved_memory, "reserved_memory");
    if (n.usable_memory > n.memory) violated("more usable than installed memory");
    within(n.ports.count, 1.0, 1e6, "ports");
    positive(n.ports.rate, "port rate");
    for (const BitRate s : n.ports.speeds) positive(s, "port speed");
    non_negative(n.host_links.usable, "host link usable");
    non_negative(n.network_limit, "network_limit");
    positive(n.network_rate(), "network_rate");
    for (const BitRate speed : n.ports.speeds) {
      for (const int nodes : {1, 3, 8}) analyze_switches(switches, n, nodes, speed);
    }
  });
  return 0;
}
