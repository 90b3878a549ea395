// DeepSeek-V4's compressed attention layer by layer
// (tpnet/model/compressed_attention.hpp, docs/formulas.md s.8.1), counted by
// hand from DeepSeek-V4-Flash's config.json shapes (tests/data/hf/SOURCES).

#include <filesystem>

#include "catch.hpp"
#include "tpnet/io/hf_config.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/model/compressed_attention.hpp"

using namespace tpnet;

namespace {

const std::filesystem::path kCorpus = std::filesystem::path(TPNET_SOURCE_DIR) / "tests/data/hf";

ModelArch flash() { return load_hf_config((kCorpus / "deepseek-ai__DeepSeek-V4-Flash").string()); }

// The config's shapes, written out for the by-hand counts below.
constexpr double h = 4096, heads = 64, d = 512, r_q = 1024, r_o = 1024, groups = 8;
constexpr double index_heads = 64, index_dim = 128;

/// One layer's attention by hand at ratio 0, 4 and 128 (vLLM's module shapes).
double split_attention() { return r_q * heads * d + heads * d * r_o + groups * r_o * h; }
double inputs() { return h * (r_q + d); }
double compressor(double ratio, double entry) {
  const double overlap = ratio == 4 ? 2 : 1;
  return h * 2 * overlap * entry + ratio * overlap * entry;
}
double indexer() {
  return r_q * index_heads * index_dim + h * index_heads + compressor(4, index_dim);
}

}  // namespace

TEST_CASE("DeepSeek-V4's attention layer: 100.7M split over TP, 6.3M to 25.4M held whole",
          "[params][golden]") {
  const ModelArch m = flash();
  CHECK(compressed_attention_params(m, 0).split == split_attention());  // 100,663,296
  CHECK(compressed_attention_params(m, 0).replicated == inputs());      // wq_a + wkv: 6,291,456
  CHECK(compressed_attention_params(m, 1).replicated == inputs());      // the MTP layer's
  CHECK(compressed_attention_params(m, 128).replicated == inputs() + compressor(128, d));
  CHECK(compressed_attention_params(m, 4).replicated ==
        inputs() + compressor(4, d) + indexer());  // 25,433,088
  CHECK(compressed_attention_params(m, 4).replicated == 25433088.0);
  // Without the compressed shapes there is nothing to count.
  CHECK(compressed_attention_params(builtin_model("deepseek-v3"), 4).total() == 0.0);
}

TEST_CASE("DeepSeek-V4-Flash's cache entries, compressor state and hyper-connections by hand",
          "[params][kv]") {
  const ModelArch m = flash();
  REQUIRE(m.compressed_attention);
  // A key: 448 FP8 + 64 rotary values in BF16 + 448 / 64 = 7 scale bytes + 1 pad = 584.
  CHECK(compressed_kv_entry_bytes(*m.compressed_attention) == 584.0);
  // An indexer key: 128 FP8 values and one 4-byte scale.
  CHECK(compressed_index_entry_bytes(m) == 132.0);
  // FP32 state of overlap x ratio rows of 2 x overlap x width: at ratio 4 (overlap 2)
  // 8 x 4 x 512 x 4 = 65,536 B for the keys and 8 x 4 x 128 x 4 = 16,384 B for the
  // indexer's; at ratio 128, 128 x 2 x 512 x 4 = 524,288 B; none without a compressor.
  CHECK(compressor_state_bytes(m, 4) == 65536.0 + 16384.0);
  CHECK(compressor_state_bytes(m, 128) == 524288.0);
  CHECK(compressor_state_bytes(m, 1) == 0.0);
  CHECK(compressor_state_bytes(m, 0) == 0.0);
  // Hyper-connections, m = 4 streams of h = 4,096: each mixing (2 + 4) x 4 x 16,384
  // + 24 + 3 = 393,243, two a layer over 43 layers, and the head's 4 x 16,384 + 5.
  CHECK(hyper_connection_params(m) == 2.0 * 393243 * 43 + 65541);  // 33,884,439
  CHECK(hyper_connection_params(builtin_model("deepseek-v3")) == 0.0);
}

TEST_CASE("compress ratios make the layers: above 1 compressed attention, else the window alone",
          "[params]") {
  ModelArch m = flash();
  REQUIRE(m.moe);
  m.num_layers = 4;
  m.moe->first_dense_layers = 1;
  CompressedAttentionSpec spec = *m.compressed_attention;
  spec.compress_ratios = {0, 1, 4, 128};
  set_compressed_attention_layers(m, spec);
  REQUIRE(m.layers.size() == 4);
  CHECK(m.layers[0].mixer == Mixer::sliding_window);
  CHECK(m.layers[1].mixer == Mixer::sliding_window);  // vLLM reads 1 as 0: no compressor
  CHECK(m.layers[2].mixer == Mixer::attention);
  CHECK(m.layers[3].mixer == Mixer::attention);
  CHECK(m.layers[0].ffn == FfnKind::dense);
  CHECK(m.layers[1].ffn == FfnKind::moe);
  CHECK(m.layers[3].ffn == FfnKind::moe);
  CHECK(m.sliding_window_layers == 2);
}
