// NCCL's buffers on each rank (tpnet/fabric/nccl_memory.hpp, docs/formulas.md
// s.12.2): the footprint model fitted to the DGX Spark's two measured points
// goes through both and grows with channels, buffer size and ranks.

#include "catch.hpp"
#include "golden.hpp"
#include "tpnet/fabric/nccl_memory.hpp"
#include "tpnet/io/node_catalog.hpp"

using namespace tpnet;
using tpnet::test::prints_as;

namespace {

const NcclMemoryProfile& spark_nccl() {
  static const NcclMemoryProfile profile = *builtin_node("dgx-spark").nccl_memory;
  return profile;
}

Bytes nccl(int channels, Bytes buffsize, int ranks) {
  return nccl_buffer_bytes(spark_nccl(), NcclBuffers{channels, buffsize}, ranks);
}

}  // namespace

TEST_CASE("NCCL at TP8 on GB10 costs 37 GB per rank with 64 channels and 11 GB with 8 of 1 MiB",
          "[memory][golden]") {
  const Bytes defaults = nccl(64, Bytes::mebibytes(4.0), 8);
  const Bytes tuned = nccl(8, Bytes::mebibytes(1.0), 8);
  CHECK(prints_as(defaults.count() / 1e9, 37.0, 0));
  CHECK(prints_as(tuned.count() / 1e9, 11.0, 0));
  // The fit goes through both points exactly.
  CHECK_THAT(defaults.count(), WithinRel(37e9, 1e-12));
  CHECK_THAT(tuned.count(), WithinRel(11e9, 1e-12));
}

TEST_CASE("the NCCL fit: 7.14 buffers per connection, 10.16 GB fixed, nothing for one rank",
          "[memory]") {
  CHECK(prints_as(nccl_footprint(spark_nccl()).buffers_per_connection, 7.14, 2));
  CHECK(prints_as(nccl_footprint(spark_nccl()).fixed.count() / 1e9, 10.16, 2));
  CHECK(nccl(64, Bytes::mebibytes(4.0), 1).count() == 0.0);
  // fixed + channels x 2(N-1) connections x buffers x buffsize
  const double tp16 = nccl_footprint(spark_nccl()).fixed.count() +
                      64 * 30 * nccl_footprint(spark_nccl()).buffers_per_connection * 4194304;
  CHECK_THAT(nccl(64, Bytes::mebibytes(4.0), 16).count(), WithinRel(tp16, 1e-12));
  CHECK(nccl(16, Bytes::mebibytes(1.0), 8) > nccl(8, Bytes::mebibytes(1.0), 8));
  CHECK(nccl(8, Bytes::mebibytes(2.0), 8) > nccl(8, Bytes::mebibytes(1.0), 8));
}
