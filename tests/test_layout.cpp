// Parallel layouts (tpnet/model/layout.hpp): how pipeline stages split the
// layers, the layouts refused and why. What a layout sends is tested in
// test_layout_traffic.cpp, the weights it holds in test_weights.cpp.

#include <algorithm>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"

using namespace tpnet;
using namespace tpnet::test;

TEST_CASE("pipeline stages split layers as vLLM does", "[layout]") {
  using Ranges = std::vector<std::pair<int, int>>;
  CHECK(stage_layers(78, 2) == Ranges{{0, 39}, {39, 78}});
  CHECK(stage_layers(61, 4) == Ranges{{0, 15}, {15, 30}, {30, 46}, {46, 61}});
  CHECK(stage_layers(61, 2) == Ranges{{0, 31}, {31, 61}});
  CHECK(stage_layers(5, 5).size() == 5);
}

TEST_CASE("impossible layouts are refused naming the request field", "[layout][bad-input]") {
  const ModelArch dense = builtin_model("llama-3.1-70b");
  const ModelArch moe = builtin_model("deepseek-v3");
  auto message = [](const ModelArch& m, ParallelLayout l) {
    try {
      validate_layout(l, m);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  CHECK_THAT(message(dense, {8, 1, 8}), ContainsSubstring("layout.ep: llama-3.1-70b is dense"));
  CHECK_THAT(message(moe, {4, 1, 6}), ContainsSubstring("not a multiple of TP4"));
  CHECK_THAT(message(moe, {1, 1, 512}), ContainsSubstring("256 routed experts"));
  CHECK_THAT(message(dense, {2, 81, 1}), ContainsSubstring("layout.pp"));
  CHECK_THAT(message(dense, {1, 1, 1}), ContainsSubstring("one node"));
  CHECK_THAT(message(dense, {0, 1, 1}), ContainsSubstring("layout.tp"));
}

TEST_CASE("layouts vLLM refuses are named with its reason", "[layout]") {
  // phi-4 (tests/data/hf/microsoft__phi-4): 40 heads, 10 KV heads.
  ModelArch phi = tiny_dense();
  phi.name = "phi-4";
  const auto heads = [&](int q, int kv) {
    phi = with_layers(phi, [&](LayerSpec& l) {
      l.mixer.attention.q_heads = q;
      l.mixer.attention.kv_heads = kv;
    });
  };
  heads(40, 10);
  CHECK(tp_refusal(phi, 2).empty());  // 10 KV heads split 5 per rank
  CHECK(tp_refusal(phi, 10).empty());
  CHECK_THAT(tp_refusal(phi, 8), ContainsSubstring("10 KV heads do not divide one another"));
  CHECK_FALSE(tp_divides_heads(phi, 8));
  CHECK_THAT(tp_refusal(phi, 3), ContainsSubstring("does not divide phi-4's 40 attention heads"));
  // TP above the KV heads replicates them: 8 KV heads at TP16 are whole.
  heads(64, 8);
  CHECK(tp_refusal(phi, 16).empty());
  heads(48, 6);
  CHECK_FALSE(tp_refusal(phi, 16).empty());
  // MLA caches one latent whatever its KV head count.
  ModelArch glm = builtin_model("glm-5.3");
  REQUIRE(attention_of(glm).latent);
  glm = with_layers(glm, [](LayerSpec& l) { l.mixer.attention.kv_heads = 6; });
  CHECK(tp_refusal(glm, 8).empty());
  // And the byte report carries it as a warning.
  EngineConfig engine;
  engine.tensor_parallel_size = 8;
  const auto warnings = layout_warnings(phi, engine);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], ContainsSubstring("vLLM refuses it"));
}
