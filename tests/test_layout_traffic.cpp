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
  // vLLM's default backend, sequence-parallel (TP4 x DP2): each TP rank
  // gathers its quarter of the tokens over all 8 EP ranks (hidden state,
  // top-8 weights and ids), reduce-scatters the results back, and the TP
  // group all-gathers the combined quarters; no MoE all-reduce remains
  const double moe_layer = 7 * 0.25 * ((block + 8 * 8) + block) + 3 * 0.25 * block;
  const double stage0 = (31 * 2 - 28 + 1) * block * 1.5 + 28 * moe_layer + 2 * block / 4;
  // the ring all-gather of hidden states and residual: (tp-1)/tp of 2 x block
  const double stage1 = (30 * 2 - 30) * block * 1.5 + 30 * moe_layer + 2 * block * 3 / 4;
  CHECK_THAT(t.total_bytes.count(), WithinRel(std::max(stage0, stage1), 1e-12));
  CHECK(t.total_bytes.count() == 2497824.0);
  CHECK(stage1 > stage0);  // two more MoE layers and the all-gather outweigh the embedding
  CHECK(t.alltoall_phases == 60);
  CHECK(t.allreduces == 30);
}

TEST_CASE("TP1xEP8: dispatch and combine replace the MoE all-reduces, by backend", "[layout]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  const int moe_layers = tally_layers(v3.layers).moe;
  REQUIRE(moe_layers == 58);
  const LayoutTraffic t = layout_traffic(v3, engine_for(1), ParallelLayout{1, 1, 8}, 1);
  CHECK(t.allreduce_bytes.count() == 0.0);  // TP1: attention is data-parallel
  CHECK(t.alltoall_phases == 2 * moe_layers);
  // allgather_reducescatter: 7 other ranks' rows out (14,400 B), 7 back (14,336 B)
  CHECK(t.alltoall_bytes.count() == moe_layers * 7.0 * (14400 + 14336));
  CHECK(ParallelLayout{1, 1, 8}.nodes() == 8);
  CHECK(t.messages == 2LL * moe_layers * 7);  // dp - 1 ring steps a phase
  CHECK(t.sequential_steps == moe_layers * 2 * 7);

  // DeepEP low latency: 7 of the token's 8 expert copies leave the node, FP8
  // out (7,408 B a message) and BF16 back (14,336 B); one round a phase
  EngineConfig deepep = engine_for(1);
  deepep.all2all_backend = AllToAllBackend::deepep_low_latency;
  const LayoutTraffic d = layout_traffic(v3, deepep, ParallelLayout{1, 1, 8}, 1);
  CHECK(d.alltoall_bytes.count() == moe_layers * 7.0 * (7408 + 14336));
  CHECK(d.messages == 2LL * moe_layers * 7);
  CHECK(d.sequential_steps == moe_layers * 2);
}

TEST_CASE("TP2xEP8: either backend splits the tokens over TP and all-gathers the results",
          "[layout]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  const int moe_layers = tally_layers(v3.layers).moe;
  const int dense_layers = tally_layers(v3.layers).dense;
  CHECK(ParallelLayout{2, 1, 8}.nodes() == 8);
  // allgather_reducescatter: each TP rank's one of the two tokens gathered
  // over the 8 EP ranks and back, then the TP pair's all-gather (one row)
  const LayoutTraffic t = layout_traffic(v3, engine_for(2), ParallelLayout{2, 1, 8}, 2);
  CHECK(t.alltoall_bytes.count() == moe_layers * (7.0 * (14400 + 14336) + 7168 * 2));
  // attention all-reduces remain: one per MoE layer, two per dense layer, plus the embedding
  CHECK(t.allreduces == moe_layers + 2 * dense_layers + 1);
  // DeepEP: the same token dispatched to its experts on the 7 other ranks
  EngineConfig deepep = engine_for(2);
  deepep.all2all_backend = AllToAllBackend::deepep_low_latency;
  const LayoutTraffic d = layout_traffic(v3, deepep, ParallelLayout{2, 1, 8}, 2);
  CHECK(d.alltoall_bytes.count() == moe_layers * (7.0 * (7408 + 14336) + 7168 * 2));
  CHECK(d.allreduces == moe_layers + 2 * dense_layers + 1);
}

TEST_CASE("TP8xEP8: EP inside one TP group keeps every all-reduce and sends no all-to-all",
          "[layout]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  const LayoutTraffic ep = layout_traffic(v3, engine_for(8), ParallelLayout{8, 1, 8}, 1);
  const LayoutTraffic tp = layout_traffic(v3, engine_for(8), ParallelLayout{8, 1, 1}, 1);
  CHECK(ep.alltoall_bytes.count() == 0.0);
  CHECK(ep.total_bytes.count() == tp.total_bytes.count());
  CHECK(ep.sequential_steps == tp.sequential_steps);
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
