// The KV cache per token and per sequence on each rank (tpnet/model/kv_cache.hpp,
// docs/formulas.md s.12.4), by kind of attention layer, each by hand from the
// model's shapes.

#include "catch.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/model/kv_cache.hpp"
#include "tpnet/model/layer_plan.hpp"

using namespace tpnet;

TEST_CASE("Llama-3.1-70B keeps 327,680 bytes of KV cache per token, split over TP up to TP8",
          "[memory][golden]") {
  const ModelArch m = builtin_model("llama-3.1-70b");
  // 80 layers x 8 KV heads x 128 x 2 (K and V) x 2 bytes
  CHECK(kv_bytes_per_token(m, 1, 2).count() == 327680.0);
  CHECK(kv_bytes_per_token(m, 2, 2).count() == 327680.0 / 2);
  CHECK(kv_bytes_per_token(m, 4, 2).count() == 327680.0 / 4);
  CHECK(kv_bytes_per_token(m, 8, 2).count() == 327680.0 / 8);
  CHECK(kv_bytes_per_token(m, 8, 1).count() == 327680.0 / 16);  // fp8
}

TEST_CASE("DeepSeek-V3's MLA latent cache is 61 x (512 + 64) x 2 bytes per token on every rank",
          "[memory][golden]") {
  const ModelArch m = builtin_model("deepseek-v3");
  for (int tp : {1, 8, 16}) {
    INFO("TP" << tp);
    CHECK(kv_bytes_per_token(m, tp, 2).count() == 61.0 * (512 + 64) * 2);  // 70,272
  }
  CHECK(kv_bytes_per_token(m, 8, 1).count() == 61.0 * (512 + 64));
}

TEST_CASE("DSA adds the indexer's FP8 keys per token: GLM-5.3 keeps 78 x (576 x 2 + 132) bytes",
          "[memory]") {
  const ModelArch m = builtin_model("glm-5.3");
  // MLA latent 512 + 64 at 2 bytes; index keys 128 FP8 values + one 4-byte scale.
  CHECK(kv_bytes_per_token(m, 8, 2).count() == 78.0 * (576 * 2 + 132));  // 100,152
  // fp8 halves the latent, not the index keys.
  CHECK(kv_bytes_per_token(m, 8, 1).count() == 78.0 * (576 + 132));  // 55,224
  CHECK(kv_bytes_per_token(builtin_model("deepseek-v3.2-exp"), 8, 2).count() ==
        61.0 * (576 * 2 + 132));
}

TEST_CASE("sliding-window layers hold at most the window: gpt-oss-120b's 18 layers of 128 tokens",
          "[memory]") {
  const ModelArch m = builtin_model("gpt-oss-120b");
  const double per_layer = 8.0 * 64 * 2 * 2;  // 8 KV heads x 64 x K and V x 2 bytes, at TP1
  // Past the window only the 18 full-attention layers add a token's K and V.
  CHECK(kv_bytes_per_token(m, 1, 2).count() == 18 * per_layer);
  const SequenceState short_seq = sequence_state(m, 1, 2, 100);
  CHECK(short_seq.total().count() == 36 * per_layer * 100);
  const SequenceState long_seq = sequence_state(m, 1, 2, 100000);
  CHECK(long_seq.sliding_window.count() == 18 * per_layer * 128);
  CHECK(long_seq.attention.count() == 18 * per_layer * 100000);
  CHECK(sequence_state(m, 1, 2, 1000000).sliding_window == long_seq.sliding_window);
}

TEST_CASE("Gated DeltaNet layers hold a fixed state per sequence: Qwen3-Next-80B-A3B", "[memory]") {
  const ModelArch m = builtin_model("qwen3-next-80b-a3b");
  // Only the 12 full-attention layers keep tokens: 2 KV heads x 256 x K and V x 2 bytes.
  CHECK(kv_bytes_per_token(m, 1, 2).count() == 12.0 * 2 * 256 * 2 * 2);
  // 36 layers x (32 value heads x 128 x 128 + 3 conv inputs x (2 x 16 x 128 + 32 x 128)) x 2 bytes
  const double state = 36.0 * (32 * 128 * 128 + 3 * (2 * 16 * 128 + 32 * 128)) * 2;
  CHECK(sequence_state(m, 1, 2, 1).linear_state.count() == state);
  CHECK(sequence_state(m, 1, 2, 100000).linear_state.count() == state);
  CHECK(sequence_state(m, 2, 2, 1).linear_state.count() == state / 2);
  CHECK(sequence_state(m, 1, 1, 1).linear_state.count() == state);  // BF16 whatever the KV dtype
}

TEST_CASE("layers divide by kind of attention, and a stage's share scales every part", "[memory]") {
  // gpt-oss-120b alternates sliding-window and full attention over 36 layers;
  // Qwen3-Next-80B-A3B keeps full attention in 12 of 48 and Gated DeltaNet in 36.
  const LayerTally oss = tally_layers(builtin_model("gpt-oss-120b").layers);
  CHECK(oss.sliding == 18);
  CHECK(oss.attention == 18);
  CHECK(oss.linear == 0);
  const LayerTally next = tally_layers(builtin_model("qwen3-next-80b-a3b").layers);
  CHECK(next.linear == 36);
  CHECK(next.attention == 12);
  CHECK(next.sliding == 0);
  // A quarter of the layers holds a quarter of every part; the tokens stay.
  const SequenceState s{1000, Bytes(4000.0), Bytes(400.0), Bytes(40.0), Bytes(8.0)};
  CHECK(s.total().count() == 4448.0);
  const SequenceState quarter = s.scaled(0.25);
  CHECK(quarter.tokens == 1000);
  CHECK(quarter.attention.count() == 1000.0);
  CHECK(quarter.sparse_index.count() == 100.0);
  CHECK(quarter.sliding_window.count() == 10.0);
  CHECK(quarter.linear_state.count() == 2.0);
  CHECK(quarter.total().count() == 1112.0);
}
