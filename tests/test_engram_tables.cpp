// Where each node's Engram tables live (tpnet/model/engram_tables.hpp,
// docs/formulas.md s.12.11), on a model built by hand with 64 GB of tables.

#include <optional>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/model/engram_tables.hpp"

using namespace tpnet;

namespace {

/// 64 GB of tables, three quarters of each rank's pinned in host memory.
ModelArch with_tables() {
  ModelArch m = tpnet::test::tiny_dense();
  m.engram = EngramSpec{Bytes::gigabytes(64.0), 0.75, TablePlacement::host};
  return m;
}

}  // namespace

TEST_CASE("a node holds its TP and PP share of the tables where they are placed", "[memory]") {
  const ModelArch m = with_tables();
  // TP4 x PP2: 64 GB / 8 = 8 GB a node. The model's own placement, host:
  // 0.75 x 8 = 6 GB pinned in host memory, 2 GB in GPU memory.
  const EngramTables host = engram_tables(m, ParallelLayout{4, 2, 1}, std::nullopt, false);
  CHECK(host.placement == TablePlacement::host);
  CHECK(host.per_node.count() == 8e9);
  CHECK(host.host.count() == 6e9);
  CHECK(host.gpu.count() == 2e9);
  CHECK(host.disk.count() == 0.0);
  // Apart from the GPU's memory, host memory counts nothing against the budget...
  CHECK(host.counted.count() == 2e9);
  CHECK_FALSE(host.host_counted);
  // ...on a unified-memory node (a DGX Spark) it is the same memory: all 8 GB count.
  const EngramTables unified = engram_tables(m, ParallelLayout{4, 2, 1}, std::nullopt, true);
  CHECK(unified.counted.count() == 8e9);
  CHECK(unified.host_counted);
  // On disk nothing counts; in GPU memory everything does, wherever host memory is.
  const EngramTables disk = engram_tables(m, ParallelLayout{8, 1, 1}, TablePlacement::disk, true);
  CHECK(disk.disk.count() == 8e9);
  CHECK(disk.counted.count() == 0.0);
  const EngramTables gpu = engram_tables(m, ParallelLayout{16, 1, 1}, TablePlacement::gpu, false);
  CHECK(gpu.gpu.count() == 4e9);
  CHECK(gpu.counted.count() == 4e9);
}

TEST_CASE("a model without tables holds none, whatever the placement asked", "[memory]") {
  const EngramTables none =
      engram_tables(tpnet::test::tiny_dense(), ParallelLayout{8, 1, 1}, TablePlacement::gpu, true);
  CHECK(none.per_node.count() == 0.0);
  CHECK(none.counted.count() == 0.0);
  CHECK(none.host_counted);
}

TEST_CASE("placements read as gpu, host or disk", "[memory][bad-input]") {
  const auto where = InputLocation::for_key("memory.engram_tables");
  CHECK(parse_table_placement("gpu", where) == TablePlacement::gpu);
  CHECK(parse_table_placement("host", where) == TablePlacement::host);
  CHECK(parse_table_placement("disk", where) == TablePlacement::disk);
  CHECK_THROWS_WITH(parse_table_placement("GPU", where),
                    ContainsSubstring("memory.engram_tables: 'GPU' is not a place for the tables; "
                                      "use gpu (GPU memory), host"));
}
