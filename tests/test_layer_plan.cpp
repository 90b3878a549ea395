// The model layer by layer (tpnet/model/layer_plan.hpp, docs/models.md "The
// layer plan"): runs of identical layers, slices for pipeline stages, the
// tallies that parameters, all-reduces and the KV cache count, and the views
// listings show, on small plans built by hand. Plans read from each family's
// config.json keys are tested in test_layer_plans.cpp; plans a model YAML's
// counts imply in test_model_yaml.cpp.

#include <stdexcept>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/model/layer_plan.hpp"

using namespace tpnet;
using namespace tpnet::test;

namespace {

LayerSpec block(Mixer mixer, FfnKind ffn) {
  LayerSpec layer = dense_layer(gqa(8, 2, 16), 128);
  layer.mixer.kind = mixer;
  layer.ffn.kind = ffn;
  if (ffn != FfnKind::dense) layer.ffn.width = 0;
  if (ffn == FfnKind::moe) layer.ffn.moe = MoeSpec{8, 2, 1, 32, 0, 0};
  if (mixer == Mixer::mamba) layer.mixer.mamba = MambaSpec{4, 16, 16, 1, 4, 2};
  if (mixer == Mixer::sliding_window) layer.mixer.attention.window = 128;
  return layer;
}

/// Nemotron-H's letters as a plan: M Mamba, * attention, - MLP, E MoE.
LayerPlan letters(std::string_view pattern) {
  LayerPlan plan;
  for (const char c : pattern) {
    plan.append(c == 'M'   ? block(Mixer::mamba, FfnKind::none)
                : c == '*' ? block(Mixer::attention, FfnKind::none)
                : c == '-' ? block(Mixer::none, FfnKind::dense)
                           : block(Mixer::none, FfnKind::moe));
  }
  return plan;
}

}  // namespace

TEST_CASE("a plan stores runs of identical layers and answers by layer", "[layer-plan]") {
  LayerPlan plan;
  const LayerSpec dense = block(Mixer::attention, FfnKind::dense);
  const LayerSpec moe = block(Mixer::attention, FfnKind::moe);
  plan.append(dense, 3);
  plan.append(moe);
  plan.append(moe, 57);
  plan.append(moe, 0);  // nothing
  CHECK(plan.size() == 61);
  REQUIRE(plan.runs().size() == 2);  // DeepSeek-V3: 3 dense, 58 MoE
  CHECK(plan.runs()[1].count == 58);
  CHECK(plan.at(2) == dense);
  CHECK(plan.at(3) == moe);
  CHECK(plan.at(60) == moe);
  CHECK_THROWS_AS((void)plan.at(61), std::out_of_range);
  CHECK_THROWS_AS((void)plan.at(-1), std::out_of_range);
  // Layer by layer and back: the same plan.
  CHECK(plan.layers().size() == 61);
  CHECK(LayerPlan::of(plan.layers()) == plan);
  CHECK(LayerPlan().empty());
}

TEST_CASE("a slice is a pipeline stage's layers, clamped to the plan", "[layer-plan]") {
  const LayerPlan plan = letters("M*M*");
  CHECK(plan.runs().size() == 4);
  const LayerPlan middle = plan.slice(1, 3);
  CHECK(middle.size() == 2);
  CHECK(middle.at(0).mixer.kind == Mixer::attention);
  CHECK(middle.at(1).mixer.kind == Mixer::mamba);
  CHECK(plan.slice(2, 100).size() == 2);  // past the end: the plan's last layers
  CHECK(plan.slice(-5, 1).size() == 1);
  CHECK(plan.slice(3, 1).empty());  // an empty range
}

TEST_CASE("Nemotron-H's one-block layers are tallied one all-reduce each", "[layer-plan]") {
  const LayerPlan plan = letters("M-M*-E");
  const LayerTally t = tally_layers(plan);
  CHECK(t.layers == 6);
  CHECK(t.mamba == 2);
  CHECK(t.attention == 1);
  CHECK(t.no_mixer == 3);
  CHECK(t.no_ffn == 3);
  CHECK(t.dense == 2);
  CHECK(t.moe == 1);
  CHECK(t.reduced_blocks == 6);
  CHECK(tally_layers(plan, 1, 3).layers == 2);
  CHECK(tally_layers(plan, 1, 3).mamba == 1);
  CHECK(has_single_block_layers(plan));
  // Attention + FFN in every layer: two reduced blocks each.
  CHECK(tally_layers(tiny_dense().layers).reduced_blocks == 4);
  CHECK_FALSE(has_single_block_layers(tiny_dense().layers));
}

TEST_CASE("every kind of mixer is tallied under its own name", "[layer-plan]") {
  LayerPlan plan;
  for (const Mixer mixer : kMixers) plan.append(block(mixer, FfnKind::dense));
  const LayerTally t = tally_layers(plan);
  CHECK(t.attention == 1);
  CHECK(t.sliding == 1);
  CHECK(t.chunked == 1);
  CHECK(t.linear == 1);
  CHECK(t.mamba == 1);
  CHECK(t.cross == 1);
  CHECK(t.no_mixer == 1);
  CHECK(t.reduced_blocks == 13);
}

TEST_CASE("the views: first attention, first experts, dense widths", "[layer-plan]") {
  LayerPlan plan;
  plan.append(block(Mixer::sliding_window, FfnKind::dense));
  LayerSpec wide = block(Mixer::attention, FfnKind::dense);
  wide.ffn.width = 256;
  wide.mixer.attention.q_heads = 16;
  plan.append(wide);
  plan.append(block(Mixer::mamba, FfnKind::moe), 2);
  // The model is listed by its first full-attention layer, not its first layer.
  REQUIRE(first_attention(plan) != nullptr);
  CHECK(first_attention(plan)->q_heads == 16);
  CHECK(first_attention(letters("M-")) == nullptr);
  REQUIRE(first_moe(plan) != nullptr);
  CHECK(first_moe(plan)->routed_experts == 8);
  CHECK(first_moe(tiny_dense().layers) == nullptr);
  CHECK(first_mixer(plan, Mixer::mamba) != nullptr);
  CHECK(first_mixer(plan, Mixer::linear_attention) == nullptr);
  CHECK(dense_widths(plan) == std::vector<std::pair<long long, int>>{{128, 1}, {256, 1}});
}

TEST_CASE("the shapes a plan lacks are named by the keys model files use", "[layer-plan]") {
  CHECK(missing_shapes(tiny_dense().layers).empty());
  LayerSpec latent = block(Mixer::attention, FfnKind::dense);
  latent.mixer.attention.latent = true;  // MLA without its ranks
  latent.ffn.width = 0;
  LayerSpec linear = block(Mixer::linear_attention, FfnKind::moe);
  linear.ffn.moe.expert_intermediate_size = 0;
  LayerPlan plan;
  plan.append(latent);
  plan.append(linear);
  plan.append(block(Mixer::mamba, FfnKind::none));
  LayerSpec unshaped_mamba = block(Mixer::mamba, FfnKind::none);
  unshaped_mamba.mixer.mamba = MambaSpec{};
  plan.append(unshaped_mamba);
  CHECK(missing_shapes(plan) == std::vector<std::string>{"mla", "linear_attention", "mamba",
                                                         "intermediate_size",
                                                         "moe.expert_intermediate_size"});
}

TEST_CASE("the attention label summarises the plan for listings", "[layer-plan]") {
  CHECK(attention_label(tiny_dense().layers) == "gqa");
  CHECK(attention_label(with_layers(tiny_dense(), [](LayerSpec& l) {
                          l.mixer.attention.kv_heads = 8;
                        }).layers) == "mha");
  CHECK(attention_label(letters("M*")) == "hybrid-linear");
  LayerPlan windowed;
  windowed.append(block(Mixer::sliding_window, FfnKind::dense));
  windowed.append(block(Mixer::attention, FfnKind::dense));
  CHECK(attention_label(windowed) == "sliding-window");
  const ModelArch sparse = with_layers(tiny_dense(), [](LayerSpec& l) {
    l.mixer.attention.latent = true;
    l.mixer.attention.indexer.top_k = 2048;
  });
  CHECK(attention_label(sparse.layers) == "sparse");
}

TEST_CASE("an MTP layer copies the first full attention and the last FFN", "[layer-plan]") {
  LayerPlan plan;
  plan.append(block(Mixer::sliding_window, FfnKind::dense));
  plan.append(block(Mixer::attention, FfnKind::dense));
  plan.append(block(Mixer::attention, FfnKind::moe), 2);
  plan.append(block(Mixer::mamba, FfnKind::none));
  const LayerSpec mtp = mtp_layer(plan);
  CHECK(mtp.mixer.kind == Mixer::attention);
  CHECK(mtp.ffn.kind == FfnKind::moe);  // the last layer has none: the last that has one
  // DeepSeek-V4's: the window alone, without the compressor or its indexer.
  LayerSpec v4 = block(Mixer::attention, FfnKind::moe);
  v4.mixer.attention.compressed = true;
  v4.mixer.attention.compression.ratio = 4;
  v4.mixer.attention.indexer = SparseIndexer{512, 64, 128};
  LayerPlan compressed;
  compressed.append(v4);
  const LayerSpec v4_mtp = mtp_layer(compressed);
  CHECK(v4_mtp.mixer.kind == Mixer::sliding_window);
  CHECK(v4_mtp.mixer.attention.compression.ratio == 1);
  CHECK(v4_mtp.mixer.attention.indexer.top_k == 0);
}

TEST_CASE("runs are described one line each, a repeating group once", "[layer-plan]") {
  CHECK(describe_runs(tiny_dense().layers) ==
        std::vector<std::string>{"2 x [attention 8 q / 2 kv x 16; dense FFN 128]"});
  // Qwen3.5's 3 linear + 1 full, four times, and a last dense layer.
  LayerPlan hybrid;
  for (int i = 0; i < 4; ++i) {
    hybrid.append(block(Mixer::mamba, FfnKind::moe), 3);
    hybrid.append(block(Mixer::attention, FfnKind::moe));
  }
  hybrid.append(block(Mixer::attention, FfnKind::dense));
  const std::vector<std::string> lines = describe_runs(hybrid);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] ==
        "4 x (3 x [Mamba-2 4 heads x 16, state 16, 1 groups; MoE 8 x 32 top-2 + 1 shared] + "
        "1 x [attention 8 q / 2 kv x 16; MoE 8 x 32 top-2 + 1 shared])");
  CHECK(lines[1] == "1 x [attention 8 q / 2 kv x 16; dense FFN 128]");
  LayerSpec gated = block(Mixer::sliding_window, FfnKind::dense);
  gated.mixer.attention.output_gate = true;
  gated.mixer.attention.v_head_dim = 8;
  gated.ffn.gated = false;
  CHECK(describe_layer(gated) ==
        "[sliding-window 128 attention 8 q / 2 kv x 16 (v 8), gated output; dense FFN 128 (2 "
        "matrices)]");
}
