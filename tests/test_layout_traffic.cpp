// What one forward pass of a TP x PP x EP layout sends per node
// (tpnet/traffic/layout_traffic.hpp, docs/formulas.md s.9): all-reduces,
// all-to-alls and stage sends, worked by hand from the models' shapes.

#include <algorithm>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/layout_traffic.hpp"

using namespace tpnet;
using namespace tpnet::test;

namespace {

EngineConfig engine_for(int tp) {
  EngineConfig e;
  e.tensor_parallel_size = tp;
  return e;
}

}  // namespace

TEST_CASE("a pure TP layout sends exactly the TP formula's bytes per token", "[layout]") {
  const ModelArch glm = builtin_model("glm-5.3");
  for (int tp : {2, 4, 8, 16}) {
    INFO("TP" << tp);
    CHECK(layout_bytes_per_token(glm, engine_for(tp), ParallelLayout{tp, 1, 1}).count() ==
          bytes_per_prompt_token(glm, engine_for(tp)).count());
  }
}

TEST_CASE("TP4xPP2 halves the all-reduces on a stage and adds one boundary send", "[layout]") {
  const ModelArch glm = builtin_model("glm-5.3");
  const LayoutTraffic t = layout_traffic(glm, engine_for(4), ParallelLayout{4, 2, 1}, 1);
  const double block = 6144 * 2;
  CHECK(t.allreduces == 39 * 2 + 1);  // 78 layers over 2 stages, plus the embedding
  CHECK(t.allreduce_bytes.count() == 79 * block * 1.5);
  // hidden states and residual, 1/4 from each TP rank
  CHECK(t.pp_bytes.count() == 2 * block / 4);
  CHECK(t.pp_boundaries == 1);
  CHECK(t.total_bytes.count() == 79 * block * 1.5 + 2 * block / 4);
  CHECK(t.messages == 79 * 6 + 1);
  // every all-reduce of both stages, then the send and the 4-rank all-gather
  CHECK(t.sequential_steps == 157 * 6 + 4);
  CHECK(ParallelLayout{4, 2, 1}.nodes() == 8);
  CHECK(ParallelLayout{4, 2, 1}.name() == "TP4xPP2");
}

TEST_CASE("DeepSeek-V3 TP4xPP2xEP8: the busiest stage is found stage by stage", "[layout]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  const LayoutTraffic t = layout_traffic(v3, engine_for(4), ParallelLayout{4, 2, 8}, 1);
  // stage 0: layers 0-30, 3 of them dense; stage 1: layers 31-60, all MoE
  const double block = 7168 * 2;
  const double phase = block / 4 * 8 * 7.0 / 8.0;
  const double stage0 = (31 * 2 - 28 + 1) * block * 1.5 + 2 * 28 * phase + 2 * block / 4;
  // the ring all-gather of hidden states and residual: (tp-1)/tp of 2 x block
  const double stage1 = (30 * 2 - 30) * block * 1.5 + 2 * 30 * phase + 2 * block * 3 / 4;
  CHECK_THAT(t.total_bytes.count(), WithinRel(std::max(stage0, stage1), 1e-12));
  CHECK(stage1 > stage0);  // two more MoE layers and the all-gather outweigh the embedding
  CHECK(t.alltoall_phases == 60);
}

TEST_CASE("TP1xEP8 replaces MoE all-reduces by dispatch and combine all-to-all", "[layout]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  const int moe_layers = tally_layers(v3.layers).moe;
  REQUIRE(moe_layers == 58);
  const LayoutTraffic t = layout_traffic(v3, engine_for(1), ParallelLayout{1, 1, 8}, 1);
  CHECK(t.allreduce_bytes.count() == 0.0);  // TP1: attention is data-parallel
  CHECK(t.alltoall_phases == 2 * moe_layers);
  // tokens x top-k x hidden x bytes x (N-1)/N, each way
  const double phase = 1.0 * 8 * 7168 * 2 * 7.0 / 8.0;
  CHECK_THAT(t.alltoall_bytes.count(), WithinRel(phase * 2 * moe_layers, 1e-12));
  CHECK(ParallelLayout{1, 1, 8}.nodes() == 8);
  CHECK(t.messages == 2LL * moe_layers * 7);
}

TEST_CASE("TP2xEP8: each TP replica dispatches half its group's tokens", "[layout]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  const int moe_layers = tally_layers(v3.layers).moe;
  const LayoutTraffic t = layout_traffic(v3, engine_for(2), ParallelLayout{2, 1, 8}, 2);
  CHECK(ParallelLayout{2, 1, 8}.nodes() == 8);
  const double phase = 2.0 / 2 * 8 * 7168 * 2 * 7.0 / 8.0;
  CHECK_THAT(t.alltoall_bytes.count(), WithinRel(phase * 2 * moe_layers, 1e-12));
  // attention all-reduces remain: one per MoE layer, two per dense layer, plus the embedding
  CHECK(t.allreduces == moe_layers + 2 * tally_layers(v3.layers).dense + 1);
}

TEST_CASE("with EP, --allreduces-per-layer 0 leaves no all-reduces, not a negative count",
          "[layout]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  EngineConfig engine = engine_for(4);
  engine.allreduces_per_layer = 0;
  const LayoutTraffic t = layout_traffic(v3, engine, ParallelLayout{4, 1, 8}, 1);
  CHECK(t.allreduces == 1);  // the embedding's only
  CHECK(t.allreduce_bytes.count() >= 0.0);
  CHECK(t.total_bytes.count() >= 0.0);
}
