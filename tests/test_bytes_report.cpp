// `tpnet bytes` (tpnet/usecase/bytes_report.hpp, docs/formulas.md s.1-s.3
// and s.5): one forward's bytes, one chunk's all-reduce and how the bytes
// move from TP2 to TP16. The background numbers it prints are reproduced in
// test_golden_glm53.cpp.

#include <string>

#include "catch.hpp"
#include "study_fixtures.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/usecase/bytes_report.hpp"

using namespace tpnet;
using tpnet::test::glm53;
using tpnet::test::preset;
using tpnet::test::tp8;

TEST_CASE("a TP the heads do not divide is warned about, not refused", "[traffic]") {
  EngineConfig engine = tp8();
  engine.tensor_parallel_size = 128;
  const auto r =
      analyze_bytes(glm53(), engine, preset("200G"), CollectiveSettings{}, Seconds(1e-4));
  REQUIRE_FALSE(r.warnings.empty());
  CHECK_THAT(r.warnings.front(), ContainsSubstring("64 attention heads"));
}

TEST_CASE("one chunk's forward sends every all-reduce's bytes, and TP2-TP16 scale against TP8",
          "[traffic]") {
  const BytesReport r = analyze_bytes(glm53(), tp8(), preset("200G"), CollectiveSettings{},
                                      Seconds::microseconds(100));
  // 157 all-reduces (2 x 78 layers + the embedding) of the 4,096 x 6,144 x 2 B
  // block, each sending 1.75 x it at TP8: 157 x 88,080,384 B.
  CHECK(r.allreduces_per_forward == 157);
  CHECK(r.sent_factor == 1.75);
  CHECK(r.chunk_allreduce.block.count() == 50331648.0);
  CHECK(r.chunk_forward_bytes.count() == 157 * 50331648.0 * 1.75);
  CHECK(r.per_token_bytes.count() == 3376128.0);  // the forward's bytes / 4,096 tokens
  // The transfer at 200 Gb/s: 88,080,384 B x 8 / 200e9 = 3.523 ms; the fixed
  // part is the link's and far below it.
  CHECK_THAT(r.chunk_allreduce_transfer.value(), WithinRel(88080384.0 * 8 / 200e9, 1e-12));
  CHECK(r.chunk_allreduce_latency < r.chunk_allreduce_transfer);
  // 100 us at 200 Gb/s moves 2.5 MB.
  CHECK_THAT(r.bytes_in_fixed_overhead.count(), WithinRel(2.5e6, 1e-12));
  REQUIRE(r.tp_scaling.size() == 4);
  CHECK(r.tp_scaling.front().tp == 2);
  CHECK(r.tp_scaling.back().tp == 16);
  // A tree all-reduce sends twice the block from its busiest node.
  EngineConfig tree = tp8();
  tree.algorithm = CollectiveAlgorithm::tree;
  CHECK(analyze_bytes(glm53(), tree, preset("200G"), CollectiveSettings{}, Seconds(1e-4))
            .sent_factor == 2.0);
}
