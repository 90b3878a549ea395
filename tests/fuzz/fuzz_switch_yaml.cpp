// Switch catalog files (models/switches/*.yaml) through parse_switch_yaml,
// then its capacities and the switch plans for DGX Sparks on it.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "fuzz_switch_plan.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/switch_yaml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpnet;
  using namespace tpnet::fuzz;
  static const NodeSpec spark = builtin_node("dgx-spark");
  contract(Origin::file, [&] {
    const SwitchSpec sw = parse_switch_yaml(text_of(data, size), "fuzz/switch.yaml");
    if (sw.name.empty()) violated("switch without a name");
    positive(sw.fabric_capacity, "fabric_capacity");
    non_negative(sw.data_port_capacity(), "data_port_capacity");
    for (const auto& g : sw.port_groups) {
      within(g.count, 1.0, 1e6, "port count");
      within(g.lanes, 1.0, 8.0, "lanes");
      positive(g.rate, "port rate");
      if (g.modes.empty()) violated("a port group without modes");
      for (const auto& m : g.modes) {
        within(m.count, 1.0, g.lanes, "mode sub-ports");
        positive(m.speed, "mode speed");
      }
      (void)g.label();
    }
    (void)sw.non_blocking();
    (void)sw.ports_summary();
    for (const BitRate speed : sw.speeds()) {
      positive(speed, "speed");
      for (const int nodes : {2, 8, 16}) analyze_switches({sw}, spark, nodes, speed);
    }
  });
  return 0;
}
