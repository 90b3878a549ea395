// The token-mixing compute (docs/formulas.md s.18.1): hand counts on a tiny
// model, the closed forms for windows and top-k, the textbook 4 x layers x
// d_model x context for Llama, and the layer plan's mixers on real configs.

#include <algorithm>
#include <string>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/model/mixer_compute.hpp"

using namespace tpnet;
using namespace tpnet::test;
using tpnet::test::tiny_dense;

namespace {

ModelArch real_config(const std::string& folder) {
  return resolve_model(std::string(TPNET_SOURCE_DIR) + "/tests/data/hf/" + folder);
}

/// Keys seen by a chunk, counted one token at a time (the closed form's check).
double keys_by_hand(long long context, long long chunk, long long window) {
  double keys = 0.0;
  for (long long pos = context; pos < context + chunk; ++pos) {
    const long long seen = pos + 1;
    keys += static_cast<double>(window > 0 && seen > window ? window : seen);
  }
  return keys;
}

}  // namespace

TEST_CASE("mixer compute: full attention counted by hand", "[mixer]") {
  // tiny: 8 heads of 16, 2 layers. Per key and head 2 x (16 + 16) FLOPs.
  const ModelArch m = tiny_dense();
  const MixerFlops f = prefill_mixer_flops(m, 1, 0, 4);
  // Tokens 1..4 see 1+2+3+4 = 10 keys.
  CHECK(f.attention == 2.0 * 8 * 32 * 10 * 2);
  CHECK(f.total() == f.attention);
  // TP2 halves the heads; a chunk after 100 tokens sees 101..104.
  CHECK(prefill_mixer_flops(m, 2, 100, 4).attention == 2.0 * 4 * 32 * (101 + 102 + 103 + 104) * 2);
  // Decode: one token after 99 sees 100 keys.
  CHECK(decode_mixer_flops(m, 1, 99).attention == 2.0 * 8 * 32 * 100 * 2);
  // Chunked prefill does the same work as one pass.
  const double whole = prefill_mixer_flops(m, 1, 0, 3000).total();
  const double chunked = prefill_mixer_flops(m, 1, 0, 1000).total() +
                         prefill_mixer_flops(m, 1, 1000, 1000).total() +
                         prefill_mixer_flops(m, 1, 2000, 1000).total();
  CHECK_THAT(chunked, WithinRel(whole, 1e-12));
}

/// tiny_dense with its first layer's attention over the last `window` tokens.
ModelArch one_sliding_layer(int window) {
  std::vector<LayerSpec> layers = tiny_dense().layers.layers();
  layers[0].mixer.kind = Mixer::sliding_window;
  layers[0].mixer.attention.window = window;
  ModelArch m = tiny_dense();
  m.layers = LayerPlan::of(layers);
  return m;
}

TEST_CASE("mixer compute: sliding windows and top-k cap the keys", "[mixer]") {
  const ModelArch m = one_sliding_layer(128);  // one of the two layers
  const double per_key = 2.0 * 8 * 32;
  for (const auto& [context, chunk] : {std::pair{0LL, 100LL}, std::pair{0LL, 500LL},
                                       std::pair{100LL, 50LL}, std::pair{1000LL, 7LL}}) {
    INFO(context << " + " << chunk);
    const MixerFlops f = prefill_mixer_flops(m, 1, context, chunk);
    CHECK_THAT(f.sliding_window, WithinRel(per_key * keys_by_hand(context, chunk, 128), 1e-12));
    CHECK_THAT(f.attention, WithinRel(per_key * keys_by_hand(context, chunk, 0), 1e-12));
  }
  const ModelArch sparse = with_layers(tiny_dense(), [](LayerSpec& l) {
    l.mixer.attention.indexer = SparseIndexer{64, 4, 8};
  });
  const MixerFlops f = prefill_mixer_flops(sparse, 2, 10, 200);
  CHECK_THAT(f.attention, WithinRel(2.0 * 4 * 32 * keys_by_hand(10, 200, 64) * 2, 1e-12));
  // The indexer is replicated (TP does not split it) and scores every key.
  CHECK_THAT(f.sparse_index, WithinRel(2.0 * 4 * 8 * keys_by_hand(10, 200, 0) * 2, 1e-12));
}

TEST_CASE("mixer compute: rates kept for a run count as one-off calls", "[mixer]") {
  // What the step cost asks of every request of every step: one
  // MixerFlopsRates, many chunks and decodes, the same numbers bit for bit.
  const ModelArch m = one_sliding_layer(128);
  const MixerFlopsRates rates(m, 2);
  const double per_key = 2.0 * 4 * 32;
  for (const long long context : {0LL, 1LL, 126LL, 127LL, 128LL, 5000LL}) {
    INFO(context);
    const MixerFlops decode = rates.decode(context);
    CHECK(decode.attention == per_key * static_cast<double>(context + 1));
    CHECK(decode.sliding_window == per_key * static_cast<double>(std::min(context + 1, 128LL)));
    CHECK(decode.total() == decode_mixer_flops(m, 2, context).total());
    CHECK(rates.prefill(context, 300).total() == prefill_mixer_flops(m, 2, context, 300).total());
  }
  CHECK_THROWS_WITH(rates.decode(-1), ContainsSubstring("context_tokens"));
  CHECK_THROWS_WITH(rates.prefill(0, 0), ContainsSubstring("max_num_batched_tokens"));
  CHECK_THROWS_WITH(MixerFlopsRates(tiny_dense(), 3), ContainsSubstring("num_attention_heads"));
}

TEST_CASE("mixer compute: Llama-3.1-8B is 4 x layers x d_model per key", "[mixer]") {
  const ModelArch m = builtin_model("llama-3.1-8b");
  // 32 heads x 128 = d_model 4096; one decode token at 8K context.
  CHECK(decode_mixer_flops(m, 1, 8191).attention == 4.0 * 32 * 4096 * 8192);
  // Prefill of 128K from empty: 4 x 32 x 4096 x (131072 x 131073 / 2).
  CHECK_THAT(prefill_mixer_flops(m, 1, 0, 131072).attention,
             WithinRel(4.0 * 32 * 4096 * (131072.0 * 131073.0 / 2.0), 1e-12));
  CHECK_THAT(prefill_mixer_flops(m, 8, 0, 4096).attention,
             WithinRel(prefill_mixer_flops(m, 1, 0, 4096).attention / 8.0, 1e-12));
}

TEST_CASE("mixer compute: MLA prefill expands the heads, decode absorbs them", "[mixer]") {
  const ModelArch m = builtin_model("deepseek-v3");
  // 128 heads; prefill qk 128 + 64, v 128; decode qk 512 + 64, v 512; 61 layers.
  CHECK(prefill_mixer_flops(m, 8, 0, 1).attention == 2.0 * 16 * (192 + 128) * 1 * 61);
  CHECK(decode_mixer_flops(m, 8, 0).attention == 2.0 * 16 * (576 + 512) * 1 * 61);
}

TEST_CASE("mixer compute: the layer plan decides which layers mix how", "[mixer]") {
  SECTION("Qwen3-Next: 12 attention layers and 36 Gated DeltaNet layers") {
    const ModelArch m = real_config("Qwen__Qwen3-Next-80B-A3B-Thinking");
    const MixerFlops f = prefill_mixer_flops(m, 1, 0, 10);
    // 16 heads of 256; DeltaNet 32 value heads of 128 x key heads of 128.
    CHECK(f.attention == 2.0 * 16 * 512 * 55 * 12);
    CHECK(f.linear_attention == 7.0 * 32 * 128 * 128 * 10 * 36);
    CHECK(f.mamba == 0.0);
  }
  SECTION("Nemotron-H-56B: Mamba layers have a state, MLP layers no mixer") {
    const ModelArch m = real_config("nvidia__Nemotron-H-56B-Base-8K");
    REQUIRE(first_mixer(m.layers, Mixer::mamba) != nullptr);
    const MixerFlops one = prefill_mixer_flops(m, 1, 0, 1);
    const MixerFlops two = prefill_mixer_flops(m, 1, 0, 2);
    // Mamba-2 work is linear in tokens; attention (a few layers) grows with them.
    CHECK(two.mamba == 2.0 * one.mamba);
    CHECK(one.mamba > 0.0);
    CHECK(two.attention == 3.0 * one.attention);
  }
}

TEST_CASE("mixer compute: bad layouts and ranges name the key", "[mixer]") {
  CHECK_THROWS_WITH(prefill_mixer_flops(tiny_dense(), 3, 0, 10),
                    ContainsSubstring("num_attention_heads"));
  CHECK_THROWS_WITH(prefill_mixer_flops(tiny_dense(), 0, 0, 10), ContainsSubstring("layout.tp"));
  CHECK_THROWS_WITH(prefill_mixer_flops(tiny_dense(), 1, 0, 0),
                    ContainsSubstring("max_num_batched_tokens"));
  CHECK_THROWS_WITH(prefill_mixer_flops(tiny_dense(), 1, -1, 10),
                    ContainsSubstring("context_tokens"));
  const ModelArch no_shapes =
      with_layers(tiny_dense(), [](LayerSpec& l) { l.mixer.attention.latent = true; });
  CHECK_THROWS_WITH(prefill_mixer_flops(no_shapes, 1, 0, 10), ContainsSubstring("mla"));
}
