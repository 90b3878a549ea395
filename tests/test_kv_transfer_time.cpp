// A KV hand-off's time (tpnet/sim/kv_transfer_time.hpp, docs/formulas.md s.32).

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/sim/kv_transfer_time.hpp"

using namespace tpnet;
using namespace tpnet::test;

TEST_CASE("on a Spark the hand-off is staged through host memory on both sides", "[kv-transfer]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  const NodeSpec spark = builtin_node("dgx-spark");
  REQUIRE(spark.unified_memory);
  const FabricProfile fabric =
      nominal_fabric(parse_link("200G", InputLocation::for_key("link")), CollectiveSettings{});
  const KvTransfer transfer = kv_transfer(v3, 1, 1, 8192, {});
  const KvTransferTime t = kv_transfer_time(fabric, transfer, spark, Seconds(0.0));
  CHECK(t.host_staged);
  // NIXL between two Sparks moved host buffers at 105.4 Gb/s (the node's
  // kv_connector): slower than the profile's 200G for these bytes, so it binds.
  REQUIRE(spark.kv_connector);
  CHECK(t.connector_bound);
  CHECK(t.wire.value() == Approx(transfer.per_decode_rank.count() * 8.0 / 105.4e9));
  CHECK(t.wire.value() > fabric_allgather(fabric, transfer.per_decode_rank, 2).value());
  NodeSpec unmeasured = spark;
  unmeasured.kv_connector.reset();
  const KvTransferTime on_profile = kv_transfer_time(fabric, transfer, unmeasured, Seconds(0.0));
  CHECK_FALSE(on_profile.connector_bound);
  CHECK(on_profile.wire.value() == fabric_allgather(fabric, transfer.per_decode_rank, 2).value());
  // out of the GPU's pool and into the other's: read and write each, at 273 GB/s
  const double bytes = transfer.per_decode_rank.count();
  CHECK(t.staging.value() == Approx(2.0 * 2.0 * bytes / 273e9));
  CHECK(t.regions.value() == 0.0);
  CHECK(t.total.value() == Approx(t.wire.value() + t.staging.value()));
  // 8,192 tokens x 70,272 B = 576 MB: at least 23 ms at 200 Gb/s
  CHECK(t.wire.value() > bytes * 8 / 200e9);

  NodeSpec gpu_direct = spark;
  gpu_direct.unified_memory = false;
  const KvTransferTime direct =
      kv_transfer_time(fabric, transfer, gpu_direct, Seconds::microseconds(1.0));
  CHECK_FALSE(direct.host_staged);
  CHECK(direct.staging.value() == 0.0);
  CHECK(direct.regions.value() ==
        Approx(1e-6 * static_cast<double>(transfer.descriptors_per_decode_rank)));
  CHECK_THROWS_WITH(kv_transfer_time(fabric, transfer, spark, Seconds(-1.0)),
                    Catch::Contains("at least 0"));
}
