// The layer plans of issue 38's families, counted by hand from each real
// config.json in tests/data/hf (SOURCES names repo, path and commit): which
// mixer and FFN every layer has, the parameters by part, the KV cache one
// token adds past every window, and the state one sequence holds. Every
// expected value below is written out from the config's keys, not taken
// from tpnet. Derivations: docs/formulas.md s.8 and s.12.4, docs/models.md.

#include <string>

#include "catch.hpp"
#include "corpus_checkpoint.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/hf_config.hpp"
#include "tpnet/model/kv_cache.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/model/params.hpp"
#include "tpnet/model/weights.hpp"

using Catch::Matchers::WithinRel;
using namespace tpnet;
using namespace tpnet::test;

namespace {

constexpr int kBf16 = 2;

double kv_per_token(const ModelArch& m, int tp) { return kv_bytes_per_token(m, tp, kBf16).count(); }

SequenceState state_of(const ModelArch& m, int tp, long long tokens) {
  return sequence_state(m, tp, kBf16, TokenCount(tokens));
}

}  // namespace

TEST_CASE(
    "Kimi K3: 69 KDA and 24 gated MLA layers, a latent MoE of 896 experts: 2779.5B and "
    "104.2B active against the card's 2.8T and 104B",
    "[hf][families][golden]") {
  const ModelArch m = checkpoint("moonshotai__Kimi-K3");
  const LayerTally t = tally_layers(m);
  CHECK(t.layers == 93);
  CHECK(t.linear == 69);     // kda_layers, 1-indexed
  CHECK(t.attention == 24);  // full_attn_layers
  CHECK(t.dense == 1);       // first_k_dense_replace
  CHECK(t.moe == 92);
  // kda_layers [1, 2, 3, 5, ...]: layers 0-2 are KDA, layer 3 MLA.
  CHECK(m.layers.at(2).mixer.kind == Mixer::linear_attention);
  CHECK(m.layers.at(3).mixer.kind == Mixer::attention);

  const double h = 7168;
  const double kda_width = 96 * 128;
  // q, k, v; beta; the decay gate f (h -> 128 -> 96 x 128); the full-rank
  // output gate g (use_full_rank_gate); the short convolution; o_proj.
  const double kda = 3 * h * kda_width + h * 96 + (h * 128 + 128 * kda_width) + h * kda_width +
                     3 * kda_width * 4 + kda_width * h;
  // q_a, q_b (96 heads of 128 + 64), kv_a (512 + 64), kv_b (96 x (128 + 128)),
  // o_proj and the output gate g_proj (mla_use_output_gate).
  const double mla =
      h * 1536 + 1536 * 96 * 192 + h * 576 + 512 * 96 * 256 + 96 * 128 * h + h * 96 * 128;
  const ParamEstimate e = estimate_params(m);
  CHECK_THAT(e.total.attention, WithinRel(69 * kda + 24 * mla, 1e-12));
  CHECK_THAT(e.total.dense_ffn, WithinRel(3 * h * 33792, 1e-12));
  // Routed experts of 3,072 in the 3,584-wide latent; the projections apart.
  CHECK_THAT(e.total.routed_experts, WithinRel(92 * 896 * 3 * 3584.0 * 3072, 1e-12));
  CHECK_THAT(e.active.routed_experts, WithinRel(92 * 16 * 3 * 3584.0 * 3072, 1e-12));
  CHECK_THAT(e.total.latent_projections, WithinRel(92 * 2 * h * 3584, 1e-12));
  CHECK_THAT(e.total.shared_experts, WithinRel(92 * 2 * 3 * h * 3072, 1e-12));
  CHECK_THAT(e.total.router, WithinRel(92 * h * 896, 1e-12));
  CHECK_THAT(e.total_params(), WithinRel(2779.48e9, 1e-5));
  CHECK_THAT(e.active_params(), WithinRel(104.18e9, 1e-4));

  // 24 MLA layers keep their 512 + 64 latent, whole on every rank.
  CHECK(kv_per_token(m, 1) == 24 * 576 * kBf16);
  CHECK(kv_per_token(m, 8) == 24 * 576 * kBf16);
  // Each KDA layer: a 128 x 128 state per head and the convolution's last
  // three q, k and v inputs, heads split over TP.
  const SequenceState s = state_of(m, 8, 100000);
  CHECK(s.linear_state.count() == 69 * (12 * 128 * 128 + 3 * 3 * 12 * 128) * kBf16);

  // MXFP4 experts; vLLM keeps attention, shared experts and the latent
  // projections in BF16, each rank holding the projections whole.
  CHECK(m.quantization == "mxfp4");
  CHECK(m.bits_of(WeightPart::routed_experts) == 4.25);
  CHECK(m.bits_of(WeightPart::attention) == 16.0);
  CHECK(m.bits_of(WeightPart::latent_projections) == 16.0);
  const WeightMemory w = weight_memory(m, ParallelLayout{16, 1, 1});
  bool held_whole = false;
  for (const ReplicatedPart& r : w.replicated) {
    if (r.name == "latent_projections") {
      held_whole = true;
      CHECK(r.node_params == r.params);
      CHECK_THAT(r.node_bytes.count(), WithinRel(92 * 2 * h * 3584 * 2, 1e-12));
    }
  }
  CHECK(held_whole);
}

TEST_CASE(
    "Gemma 4 31B: 50 sliding layers of 16 KV heads x 256 and 10 global of 4 x 512 with K = V, "
    "30.70B as the card's 30.7B",
    "[hf][families][golden]") {
  const ModelArch m = checkpoint("google__gemma-4-31B-it");
  const LayerTally t = tally_layers(m);
  CHECK(t.sliding == 50);
  CHECK(t.attention == 10);
  const AttentionSpec& global = m.layers.at(5).mixer.attention;
  CHECK(global.kv_heads == 4);    // num_global_key_value_heads
  CHECK(global.head_dim == 512);  // global_head_dim
  CHECK(global.shared_kv);        // attention_k_eq_v: no v_proj
  const AttentionSpec& local = m.layers.at(0).mixer.attention;
  CHECK(local.kv_heads == 16);
  CHECK(local.head_dim == 256);
  CHECK(local.window == 1024);

  const double h = 5376;
  const double sliding = h * 32 * 256 + 2 * h * 16 * 256 + 32 * 256 * h;
  const double full = h * 32 * 512 + h * 4 * 512 + 32 * 512 * h;  // no v_proj
  const ParamEstimate e = estimate_params(m);
  CHECK_THAT(e.total.attention, WithinRel(50 * sliding + 10 * full, 1e-12));
  CHECK_THAT(e.total_params(),
             WithinRel(50 * sliding + 10 * full + 60 * 3 * h * 21504 + 262144 * h, 1e-12));
  CHECK_THAT(e.total_params(), WithinRel(30.7e9, 0.001));

  // K serves as V in the weights, not in the cache: V is normed apart, so
  // vLLM keeps both. Past the window only the 10 global layers grow.
  CHECK(kv_per_token(m, 1) == 10 * 4 * (512 + 512) * kBf16);
  CHECK(kv_per_token(m, 4) == 10 * 1 * (512 + 512) * kBf16);
  const SequenceState s = state_of(m, 1, 100000);
  CHECK(s.sliding_window.count() == 50.0 * 16 * (256 + 256) * kBf16 * 1024);
}

TEST_CASE(
    "Gemma 4 E2B: the last 20 layers borrow K and V and have double-wide MLPs, per-layer "
    "embeddings of 256 for each of 35 layers",
    "[hf][families][golden]") {
  const ModelArch m = checkpoint("google__gemma-4-E2B-it");
  const LayerTally t = tally_layers(m);
  CHECK(t.layers == 35);
  CHECK(t.sliding == 28);
  CHECK(t.attention == 7);
  int borrowing = 0;
  for (int i = 0; i < 35; ++i) {
    const LayerSpec& layer = m.layers.at(i);
    INFO("layer " << i);
    const bool shared = i >= 35 - 20;  // num_kv_shared_layers
    CHECK(layer.mixer.attention.borrowed_kv == shared);
    CHECK(layer.ffn.width == (shared ? 2 * 6144 : 6144));  // use_double_wide_mlp
    borrowing += layer.mixer.attention.borrowed_kv ? 1 : 0;
  }
  CHECK(borrowing == 20);
  // Only the first 15 layers keep a cache: 3 global layers of 1 x 512 past
  // the window, 12 sliding ones of 1 x 256 up to their 512 tokens.
  CHECK(kv_per_token(m, 1) == 3 * (512 + 512) * kBf16);
  CHECK(state_of(m, 1, 100000).sliding_window.count() == 12.0 * (256 + 256) * kBf16 * 512);
  CHECK(m.per_layer_input_width == 256);
  const ParamEstimate e = estimate_params(m);
  CHECK_THAT(e.total.embedding, WithinRel(262144 * 1536.0 + 262144 * 35 * 256.0, 1e-12));
}

TEST_CASE(
    "MiniMax-M1: 70 lightning-attention layers keep a 128 x 128 state per head, 10 softmax "
    "layers 8 KV heads",
    "[hf][families][golden]") {
  const ModelArch m = checkpoint("MiniMax-AI__MiniMax-M1");
  const LayerTally t = tally_layers(m);
  CHECK(t.linear == 70);  // attn_type_list 0
  CHECK(t.attention == 10);
  CHECK(t.moe == 80);
  CHECK(m.layers.at(7).mixer.kind == Mixer::attention);  // attn_type_list[7] = 1
  CHECK(mixer_of(m, Mixer::linear_attention).linear.kind == LinearKind::lightning);
  CHECK(kv_per_token(m, 1) == 10 * 8 * (128 + 128) * kBf16);
  CHECK(state_of(m, 1, 4096).linear_state.count() == 70.0 * 64 * 128 * 128 * kBf16);
  CHECK(state_of(m, 8, 4096).linear_state.count() == 70.0 * 8 * 128 * 128 * kBf16);
  const double h = 6144;
  const double lightning = h * 3 * 8192 + h * 8192 + 8192 * h;  // qkv, output gate, out_proj
  const double softmax = h * 8192 + 2 * h * 1024 + 8192 * h;
  const ParamEstimate e = estimate_params(m);
  CHECK_THAT(e.total.attention, WithinRel(70 * lightning + 10 * softmax, 1e-12));
  CHECK_THAT(e.total.routed_experts, WithinRel(80 * 32 * 3 * h * 9216, 1e-12));
}

TEST_CASE(
    "MiMo-V2.5: 9 full and 39 sliding layers of their own heads, V padded to the 192-wide K "
    "in the cache",
    "[hf][families][golden]") {
  const ModelArch m = checkpoint("XiaomiMiMo__MiMo-V2.5");
  const LayerTally t = tally_layers(m);
  CHECK(t.attention == 9);  // hybrid_layer_pattern 0
  CHECK(t.sliding == 39);
  CHECK(t.dense == 1);  // moe_layer_freq 0
  CHECK(t.moe == 47);
  const AttentionSpec& full = m.layers.at(0).mixer.attention;
  const AttentionSpec& swa = m.layers.at(1).mixer.attention;
  CHECK(full.kv_heads == 4);
  CHECK(swa.kv_heads == 8);  // swa_num_key_value_heads
  CHECK(swa.window == 128);
  CHECK(full.head_dim == 192);
  CHECK(full.v_head_dim == 128);
  CHECK(kv_per_token(m, 1) == 9 * 4 * (192 + 192) * kBf16);
  CHECK(state_of(m, 1, 100000).sliding_window.count() == 39.0 * 8 * (192 + 192) * kBf16 * 128);
}

TEST_CASE(
    "Nemotron 3 Ultra: layers_block_type without num_hidden_layers gives 108 one-block layers, "
    "48 Mamba-2, 12 attention and 48 latent MoE",
    "[hf][families][golden]") {
  const ModelArch m = checkpoint("nvidia__NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16");
  const LayerTally t = tally_layers(m);
  CHECK(t.layers == 108);
  CHECK(t.mamba == 48);
  CHECK(t.attention == 12);
  CHECK(t.moe == 48);
  CHECK(t.no_mixer == 48);
  CHECK(kv_per_token(m, 1) == 12 * 2 * (128 + 128) * kBf16);
  // The SSM state in float32 (mamba_ssm_cache_dtype), the convolution's last
  // three x, B and C inputs in BF16.
  const double ssm = 256.0 * 64 * 128 * 4;
  const double conv = 3.0 * (256 * 64 + 2 * 8 * 128) * kBf16;
  CHECK(state_of(m, 1, 4096).linear_state.count() == 48 * (ssm + conv));
  CHECK(moe_of(m).latent_size == 2048);
  const ParamEstimate e = estimate_params(m);
  CHECK_THAT(e.total.latent_projections, WithinRel(48 * 2 * 8192.0 * 2048, 1e-12));
  // Two matrices (relu2) of 5,120 in the latent; the shared expert at 10,240.
  CHECK_THAT(e.total.routed_experts, WithinRel(48 * 512 * 2 * 2048.0 * 5120, 1e-12));
  CHECK_THAT(e.total.shared_experts, WithinRel(48 * 2 * 8192.0 * 10240, 1e-12));
}

TEST_CASE(
    "MiniMax-M3: a per-layer moe_layer_freq list makes 3 dense layers of 12,288 and 57 MoE "
    "layers with the sparse index",
    "[hf][families][golden]") {
  const ModelArch m = checkpoint("MiniMaxAI__MiniMax-M3");
  const LayerTally t = tally_layers(m);
  CHECK(t.dense == 3);
  CHECK(t.moe == 57);
  CHECK(m.layers.at(0).ffn.width == 12288);  // dense_intermediate_size
  CHECK(moe_of(m).expert_intermediate_size == 3072);
  CHECK(moe_of(m).shared_experts == 1);
  CHECK_FALSE(m.layers.at(2).mixer.attention.indexer.scores());
  CHECK(m.layers.at(3).mixer.attention.indexer.scores());  // sparse_attention_freq
  // 60 layers of 4 KV heads x 128, and the 57 index layers' FP8 keys of 128
  // with their 4-byte scale.
  CHECK(kv_per_token(m, 1) == 60 * 4 * (128 + 128) * kBf16 + 57 * (128 + 4));
}
