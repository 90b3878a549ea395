// The model layer by layer (tpnet/model/layer_plan.hpp, docs/models.md "The
// layer plan"): plans from counts alone, Nemotron-H's block pattern, and the
// tallies that parameters, all-reduces and the KV cache count, on small
// models built by hand. Plans read from each family's config.json keys are
// tested in test_layer_plans.cpp.

#include <utility>
#include <vector>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/model/layer_plan.hpp"

using namespace tpnet;
using tpnet::test::tiny_dense;

namespace {

std::vector<Mixer> mixers(const std::vector<LayerSpec>& plan) {
  std::vector<Mixer> out;
  for (const auto& l : plan) out.push_back(l.mixer);
  return out;
}

}  // namespace

TEST_CASE("counts alone spread linear and sliding layers evenly among full attention",
          "[layer-plan]") {
  using enum Mixer;
  // Qwen3-Next's shape: 6 of 8 layers linear, full attention the last of every 4.
  ModelArch next = tiny_dense();
  next.num_layers = 8;
  next.linear_attention_layers = 6;
  CHECK(mixers(layer_plan(next)) ==
        std::vector<Mixer>{linear_attention, linear_attention, linear_attention, attention,
                           linear_attention, linear_attention, linear_attention, attention});
  // gpt-oss's: half the layers in a window, alternating, full attention second.
  ModelArch oss = tiny_dense();
  oss.num_layers = 4;
  oss.sliding_window = 128;
  oss.sliding_window_layers = 2;
  CHECK(mixers(layer_plan(oss)) ==
        std::vector<Mixer>{sliding_window, attention, sliding_window, attention});
  // Sliding-window layers without a window are full attention.
  oss.sliding_window = 0;
  CHECK(tally_layers(oss).attention == 4);
  // DeepSeek's first_k_dense_replace: the first FFNs dense, the rest MoE.
  ModelArch moe = tiny_dense();
  moe.num_layers = 5;
  moe.moe = MoeSpec{};
  moe.moe->first_dense_layers = 2;
  const LayerTally t = tally_layers(moe);
  CHECK(t.dense == 2);
  CHECK(t.moe == 3);
  CHECK(layer_plan(moe)[1].ffn == FfnKind::dense);
  CHECK(layer_plan(moe)[2].ffn == FfnKind::moe);
  // Stated layers are the plan, whatever the counts say.
  moe.layers = {LayerSpec{mamba, FfnKind::none, 0}};
  CHECK(layer_plan(moe) == moe.layers);
}

TEST_CASE("Nemotron-H's pattern letters are one block a layer", "[layer-plan]") {
  const auto where = InputLocation::for_key("hybrid_override_pattern");
  const std::vector<LayerSpec> plan = layers_from_block_pattern("M-M*-E", where);
  REQUIRE(plan.size() == 6);
  CHECK(plan[0] == LayerSpec{Mixer::mamba, FfnKind::none, 0});
  CHECK(plan[1] == LayerSpec{Mixer::none, FfnKind::dense, 0});
  CHECK(plan[3] == LayerSpec{Mixer::attention, FfnKind::none, 0});
  CHECK(plan[5] == LayerSpec{Mixer::none, FfnKind::moe, 0});
  // One all-reduce per block under TP: six layers of one block each reduce six times.
  const LayerTally t = tally_layers(plan, 0, 6);
  CHECK(t.mamba == 2);
  CHECK(t.attention == 1);
  CHECK(t.no_mixer == 3);
  CHECK(t.no_ffn == 3);
  CHECK(t.reduced_blocks == 6);
  CHECK_THROWS_WITH(layers_from_block_pattern("MM*x", where),
                    ContainsSubstring("hybrid_override_pattern: 'x' is not a layer kind"));
  CHECK(layers_from_block_pattern("", where).empty());
}

TEST_CASE("a tally counts the layers of a range, clamped to the plan", "[layer-plan]") {
  const auto plan =
      layers_from_block_pattern("M*M*", InputLocation::for_key("hybrid_override_pattern"));
  CHECK(tally_layers(plan, 1, 3).layers == 2);
  CHECK(tally_layers(plan, 1, 3).attention == 1);
  CHECK(tally_layers(plan, 2, 100).layers == 2);  // past the end: the plan's last layers
  CHECK(tally_layers(plan, -5, 1).layers == 1);
  CHECK(tally_layers(plan, 3, 1).layers == 0);  // an empty range
  // Attention + FFN in every layer: two reduced blocks each.
  CHECK(tally_layers(tiny_dense()).reduced_blocks == 4);
}

TEST_CASE("dense widths: a layer's own, else intermediate_size, counted by width", "[layer-plan]") {
  ModelArch m = tiny_dense();  // intermediate_size 128
  m.num_layers = 4;
  m.layers = {LayerSpec{Mixer::attention, FfnKind::dense, 0},
              LayerSpec{Mixer::attention, FfnKind::dense, 256},
              LayerSpec{Mixer::attention, FfnKind::dense, 0},
              LayerSpec{Mixer::attention, FfnKind::none, 0}};
  CHECK(dense_width(m, m.layers[0]) == 128);
  CHECK(dense_width(m, m.layers[1]) == 256);
  CHECK(dense_widths(m) == std::vector<std::pair<long long, int>>{{128, 2}, {256, 1}});
  // A layer without an FFN makes "two all-reduces a layer" wrong.
  CHECK(has_single_block_layers(m));
  CHECK_FALSE(has_single_block_layers(tiny_dense()));  // no stated layers: attention + FFN
}
