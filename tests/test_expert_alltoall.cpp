// What one MoE layer's dispatch and combine send under EP with data-parallel
// attention (tpnet/traffic/expert_alltoall.hpp, docs/formulas.md s.31),
// worked by hand from DeepSeek-V3's shapes (hidden 7,168, 256 experts, top 8)
// and DeepEP's and vLLM's message layouts.

#include <cmath>
#include <numbers>
#include <vector>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/traffic/expert_alltoall.hpp"

using namespace tpnet;
using namespace tpnet::test;

TEST_CASE("vLLM's default backend all-gathers each DP rank's tokens and reduce-scatters them back",
          "[expert-alltoall]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  const EngineConfig engine;  // BF16 activations
  const ExpertAllToAll a = expert_alltoall(v3, engine, ParallelLayout{1, 1, 8}, {}, 100.0);
  CHECK(a.backend == AllToAllBackend::allgather_reducescatter);
  CHECK(a.ranks == 8);
  // a gathered row: the hidden state in BF16 and top-8 weights (fp32) and ids (int32)
  CHECK(a.dispatch_message.count() == 7168 * 2 + 8 * 8);
  CHECK(a.combine_message.count() == 7168 * 2);
  // a ring over 8 ranks: each node sends the 7 other ranks' worth of its rows
  CHECK(a.dispatch_sent.count() == 7 * 100 * 14400.0);
  CHECK(a.combine_sent.count() == 7 * 100 * 14336.0);
  CHECK(a.messages_per_phase == 7);
  CHECK(a.imbalance == 1.0);
  CHECK_FALSE(a.keeps_tp_allreduce);

  // TP2 inside each of 4 DP ranks: vLLM's sequence-parallel MoE. Each TP
  // rank takes half its group's tokens and gathers over all 8 EP ranks; the
  // TP pair all-gathers the combined halves, and no MoE all-reduce remains.
  const ExpertAllToAll tp2 = expert_alltoall(v3, engine, ParallelLayout{2, 1, 8}, {}, 100.0);
  CHECK(tp2.ranks == 8);
  CHECK(tp2.tokens_per_rank == 50.0);
  CHECK(tp2.dispatch_sent.count() == 7 * 50 * 14400.0);
  CHECK(tp2.tp_allgather_sent.count() == 1 * 50 * 14336.0);
  CHECK_FALSE(tp2.keeps_tp_allreduce);

  // EP inside one TP group (TP8xEP8, one DP rank): no all-to-all at all; the
  // TP all-reduce combines the experts.
  const ExpertAllToAll inside = expert_alltoall(v3, engine, ParallelLayout{8, 1, 8}, {}, 100.0);
  CHECK(inside.ranks == 1);
  CHECK(inside.dispatch_sent.count() == 0.0);
  CHECK(inside.keeps_tp_allreduce);
}

TEST_CASE("DeepEP low latency writes one FP8 message per token and remote expert",
          "[expert-alltoall]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  EngineConfig engine;
  engine.all2all_backend = AllToAllBackend::deepep_low_latency;
  ExpertAllToAllSettings deepep;
  const ExpertAllToAll a = expert_alltoall(v3, engine, ParallelLayout{1, 1, 8}, deepep, 128.0);
  CHECK(a.ranks == 8);
  // 16-byte header, 7,168 FP8 values, 56 float scales (one per 128 channels)
  CHECK(a.dispatch_message.count() == 16 + 7168 + 56 * 4);
  CHECK(a.combine_message.count() == 7168 * 2);
  // 8 experts a token, 7/8 of them on other ranks
  CHECK(a.remote_copies_per_token == Approx(7.0));
  CHECK(a.messages_per_phase == Approx(128 * 7.0));
  CHECK(a.dispatch_sent.count() == Approx(896 * 7408.0));
  CHECK(a.combine_sent.count() == Approx(896 * 14336.0));
  CHECK(a.imbalance == Approx(1.041039104).epsilon(1e-6));
  CHECK_FALSE(a.imbalance_given);

  deepep.dispatch = DispatchPrecision::bf16;
  deepep.routing_imbalance = 1.5;
  const ExpertAllToAll bf16 = expert_alltoall(v3, engine, ParallelLayout{1, 1, 8}, deepep, 128.0);
  CHECK(bf16.dispatch_message.count() == 16 + 7168 * 2);
  CHECK(bf16.imbalance == 1.5);
  CHECK(bf16.imbalance_given);

  // TP2 x DP4: each TP rank dispatches half the tokens over all 8 ranks and
  // the halves are all-gathered in the TP group after combine.
  const ExpertAllToAll tp2 = expert_alltoall(v3, engine, ParallelLayout{2, 1, 8}, {}, 128.0);
  CHECK(tp2.ranks == 8);
  CHECK(tp2.tokens_per_rank == 64.0);
  CHECK(tp2.tp_allgather_sent.count() == 1 * 64 * 7168 * 2.0);
  CHECK_FALSE(tp2.keeps_tp_allreduce);
}

TEST_CASE("a latent MoE dispatches in its latent width", "[expert-alltoall]") {
  ModelArch latent = builtin_model("deepseek-v3");
  std::vector<LayerSpec> layers = latent.layers.layers();
  for (auto& layer : layers) {
    if (layer.ffn.kind == FfnKind::moe) layer.ffn.moe.latent_size = 1024;
  }
  latent.layers = LayerPlan::of(layers);
  const ExpertAllToAll a =
      expert_alltoall(latent, EngineConfig{}, ParallelLayout{1, 1, 4}, {}, 10.0);
  CHECK(a.dispatch_width == 1024);
  CHECK(a.combine_message.count() == 1024 * 2);
}

TEST_CASE("an all-to-all without EP, on a dense model or by DeepEP's normal kernels is refused",
          "[expert-alltoall]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  const ModelArch dense = builtin_model("llama-3.1-70b");
  CHECK_THROWS_WITH(expert_alltoall(v3, EngineConfig{}, ParallelLayout{8, 1, 1}, {}, 1.0),
                    Catch::Contains("EP above 1"));
  CHECK_THROWS_WITH(expert_alltoall(dense, EngineConfig{}, ParallelLayout{1, 1, 8}, {}, 1.0),
                    Catch::Contains("MoE model"));
  EngineConfig normal;
  normal.all2all_backend = AllToAllBackend::deepep_high_throughput;
  try {
    (void)expert_alltoall(v3, normal, ParallelLayout{1, 1, 8}, {}, 1.0);
    FAIL("deepep_high_throughput was priced");
  } catch (const InputError& e) {
    CHECK(e.where().key == "engine.all2all_backend");
    CHECK_THAT(e.what(), Catch::Contains("eight GPUs per node"));
  }
  ExpertAllToAllSettings below_one;
  below_one.routing_imbalance = 0.9;
  CHECK_THROWS_WITH(expert_alltoall(v3, EngineConfig{}, ParallelLayout{1, 1, 8}, below_one, 1.0),
                    Catch::Contains("at least 1"));
  CHECK_THROWS(expert_alltoall(v3, EngineConfig{}, ParallelLayout{1, 1, 8}, {}, std::nan("")));
}

TEST_CASE("the routing arithmetic: remote ranks, the busiest rank, a normal maximum",
          "[expert-alltoall]") {
  // 1/sqrt(pi) for two draws; 1.4236 for eight (tables of normal order statistics)
  CHECK(expected_max_standard_normal(1) == 0.0);
  CHECK(expected_max_standard_normal(2) == Approx(1.0 / std::sqrt(std::numbers::pi)).epsilon(1e-9));
  CHECK(expected_max_standard_normal(8) == Approx(1.4236003).epsilon(1e-6));
  // 7 x (1 - C(224,8)/C(256,8)): fewer than 7 other ranks, as s.9 says
  CHECK(expected_remote_ranks(256, 8, 8) == Approx(4.6328205).epsilon(1e-7));
  CHECK(expected_remote_ranks(256, 8, 1) == 0.0);
  // one token a rank: the busiest of 8 ranks gets 46% more than the mean
  CHECK(uniform_routing_imbalance(256, 8, 8, 1.0) == Approx(1.4643045).epsilon(1e-6));
  CHECK(uniform_routing_imbalance(256, 8, 8, 128.0) == Approx(1.0410391).epsilon(1e-6));
  CHECK(uniform_routing_imbalance(256, 8, 1, 128.0) == 1.0);
  // two experts on two ranks, top-1, one token each: at most all copies on one rank
  CHECK(uniform_routing_imbalance(2, 1, 2, 1.0) <= 2.0);
}

TEST_CASE("DeepEP's low-latency buffers for DeepSeek-V3 on 8 ranks", "[expert-alltoall]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  // slots: dispatch 16 + max(14,336, 7,168 + 224) = 14,352 B; combine 224 + 14,336 = 14,560 B;
  // send and receive max(256 x 256 x 14,560, ...) = 954,204,160 B each; signaling 1,024 B;
  // odd and even copies, plus vLLM's 1,024 MiB NVLink buffer
  const double rdma = 2.0 * (2.0 * 954204160.0 + 1024.0);
  CHECK(deepep_low_latency_buffer(v3, {}, 8).count() == rdma + 1073741824.0);
  CHECK(deepep_low_latency_buffer(v3, {}, 1).count() == 0.0);
}
