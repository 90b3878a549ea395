// What tensor parallelism sends (tpnet/traffic/bytes_per_token.hpp,
// docs/formulas.md s.2-s.3), counted by hand on the two-layer model of
// model_fixtures.hpp (hidden 64, 8 heads, 2 KV heads). GLM-5.3's figures are
// reproduced in test_golden_glm53.cpp.

#include <string>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/model_yaml.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"

using namespace tpnet;
using tpnet::test::tiny_dense;

namespace {

EngineConfig at_tp(int tp) {
  EngineConfig e;
  e.tensor_parallel_size = tp;
  return e;
}

}  // namespace

TEST_CASE("all-reduces per forward: one per reduced block, plus the embedding's", "[traffic]") {
  const ModelArch m = tiny_dense();
  // Attention + FFN in each of 2 layers, and the vocab-parallel embedding: 2 x 2 + 1.
  CHECK(allreduces_per_forward(m, at_tp(4)) == 5);
  CHECK(layer_allreduces(m, at_tp(4), 0, 1) == 2);
  // --allreduces-per-layer replaces the plan's count; the extra ones stay apart.
  EngineConfig e = at_tp(4);
  e.allreduces_per_layer = 1;
  e.extra_allreduces_per_forward = 0;
  CHECK(allreduces_per_forward(m, e) == 2);
  // Nemotron-H's one-block layers reduce once each: 4 layers + 1.
  const ModelArch hybrid = parse_model_yaml(
      "name: h\nhidden_size: 64\nnum_layers: 4\nvocab_size: 100\nnum_attention_heads: 8\n"
      "intermediate_size: 128\ntotal_params: 1M\nbits_per_weight: 16\nlayer_pattern: M-*E\n"
      "mamba: {heads: 4, head_dim: 16, state_size: 16, groups: 1, conv_kernel: 4}\n"
      "moe: {routed_experts: 4, experts_per_token: 2, expert_intermediate_size: 32}\n",
      "hybrid.yaml");
  CHECK(allreduces_per_forward(hybrid, at_tp(4)) == 5);
}

TEST_CASE("the block is tokens x hidden x activation bytes, whatever TP", "[traffic]") {
  const ModelArch m = tiny_dense();
  CHECK(activation_block(m, at_tp(2), 4096).count() == 4096.0 * 64 * 2);
  CHECK(activation_block(m, at_tp(16), 4096) == activation_block(m, at_tp(2), 4096));
  EngineConfig fp32 = at_tp(2);
  fp32.activation_bytes = 4;
  CHECK(activation_block(m, fp32, 1).count() == 256.0);
  // A product past 2^62 is refused, never wrapped.
  ModelArch wide = m;
  wide.hidden_size = 1LL << 40;
  CHECK_THROWS_AS(activation_block(wide, at_tp(2), 1LL << 30), InputError);
}

TEST_CASE("bytes per prompt token: all-reduces x hidden x bytes x the ring's 2(N-1)/N",
          "[traffic]") {
  const ModelArch m = tiny_dense();
  // 5 all-reduces of 64 x 2 = 128 B a token: x 1 at TP2, 1.5 at TP4, 1.75 at TP8.
  CHECK(bytes_per_prompt_token(m, at_tp(2)).count() == 640.0);
  CHECK(bytes_per_prompt_token(m, at_tp(4)).count() == 960.0);
  CHECK(bytes_per_prompt_token(m, at_tp(8)).count() == 1120.0);
  CHECK(bytes_per_prompt_token(m, at_tp(1)).count() == 0.0);  // one rank sends nothing
  // The tree's busiest node sends 2 x the block from TP4 on.
  EngineConfig tree = at_tp(8);
  tree.algorithm = CollectiveAlgorithm::tree;
  CHECK(bytes_per_prompt_token(m, tree).count() == 1280.0);
}

TEST_CASE("a byte question needs two ranks, and a TP the heads refuse is warned about",
          "[traffic][bad-input]") {
  try {
    require_network_tp(at_tp(1));
    FAIL("accepted TP1");
  } catch (const InputError& e) {
    CHECK(e.where().key == "layout.tp");
    CHECK_THAT(std::string(e.what()), ContainsSubstring("TP1 sends nothing over the network"));
  }
  CHECK_NOTHROW(require_network_tp(at_tp(2)));
  EngineConfig bad = at_tp(2);
  bad.max_num_seqs = 0;  // and the rest of the engine is checked too
  CHECK_THROWS_AS(require_network_tp(bad), InputError);
  // 8 query heads over TP4 split evenly; over TP3 they do not.
  CHECK(layout_warnings(tiny_dense(), at_tp(4)).empty());
  const auto warnings = layout_warnings(tiny_dense(), at_tp(3));
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], ContainsSubstring("8 attention heads"));
}
