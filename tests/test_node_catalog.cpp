// The built-in nodes (tpnet/io/node_catalog.hpp, models/nodes/*.yaml): the
// DGX Spark entry carries docs/background.md's figures, and an unknown name
// is refused.

#include "catch.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/io/node_catalog.hpp"

using namespace tpnet;

TEST_CASE("the DGX Spark node carries docs/background.md's memory, ports and host links",
          "[node][catalog][golden]") {
  const NodeSpec spark = builtin_node("dgx-spark");
  CHECK(spark.memory.count() == 128e9);
  CHECK(spark.memory_bandwidth.bytes_per_second() == 273e9);
  CHECK(spark.usable_memory.count() == 121e9);
  CHECK(spark.reserved_memory.count() == 9e9);
  CHECK(spark.nic == "ConnectX-7");
  CHECK(spark.ports.count == 2);
  CHECK(spark.ports.rate.bits_per_second() == 200e9);
  CHECK(spark.ports.supports(BitRate::gigabits_per_second(100)));
  CHECK_FALSE(spark.ports.supports(BitRate::gigabits_per_second(400)));
  CHECK(spark.host_links.count == 2);
  CHECK(spark.host_links.pcie_gen == 5);
  CHECK(spark.host_links.lanes == 4);
  CHECK(spark.host_links.usable.bits_per_second() == 109e9);
  // ~200 Gb/s per node however it is cabled: not 2 x 200G, not 2 x 109G.
  CHECK(spark.network_rate().bits_per_second() == 200e9);
  CHECK_THROWS_AS(builtin_node("dgx"), InputError);
}
