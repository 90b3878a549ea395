// DeepSeek-V4's compressed attention layer by layer
// (tpnet/model/compressed_attention.hpp, docs/formulas.md s.8.1), counted by
// hand from DeepSeek-V4-Flash's config.json shapes (tests/data/hf/SOURCES).

#include <filesystem>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/hf_config.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/model/compressed_attention.hpp"

using namespace tpnet;
using namespace tpnet::test;

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

/// Flash's attention at compress ratio `ratio` (its indexer on ratio 4 alone).
AttentionSpec at_ratio(const ModelArch& m, int ratio) {
  for (const LayerRun& run : m.layers.runs()) {
    const AttentionSpec& a = run.layer.mixer.attention;
    if (a.compressed && std::max(1, a.compression.ratio) == std::max(1, ratio)) return a;
  }
  // Flash has no ratio-1 layer: the window alone, as an MTP layer runs it.
  AttentionSpec a = attention_of(m);
  a.compression.ratio = ratio;
  a.indexer = {};
  return a;
}

TEST_CASE("DeepSeek-V4's attention layer: 100.7M split over TP, 6.3M to 25.4M held whole",
          "[params][golden]") {
  const ModelArch m = flash();
  const long long hidden = m.hidden_size;
  CHECK(compressed_attention_params(hidden, at_ratio(m, 0)).split == split_attention());
  CHECK(compressed_attention_params(hidden, at_ratio(m, 0)).replicated == inputs());
  CHECK(compressed_attention_params(hidden, at_ratio(m, 1)).replicated == inputs());  // MTP's
  CHECK(compressed_attention_params(hidden, at_ratio(m, 128)).replicated ==
        inputs() + compressor(128, d));
  CHECK(compressed_attention_params(hidden, at_ratio(m, 4)).replicated ==
        inputs() + compressor(4, d) + indexer());  // 25,433,088
  CHECK(compressed_attention_params(hidden, at_ratio(m, 4)).replicated == 25433088.0);
  // Attention that is not DeepSeek-V4's has nothing to count here.
  const ModelArch v3 = builtin_model("deepseek-v3");
  CHECK(compressed_attention_params(v3.hidden_size, attention_of(v3)).total() == 0.0);
}

TEST_CASE("DeepSeek-V4-Flash's cache entries, compressor state and hyper-connections by hand",
          "[params][kv]") {
  const ModelArch m = flash();
  REQUIRE(attention_of(m).compressed);
  // A key: 448 FP8 + 64 rotary values in BF16 + 448 / 64 = 7 scale bytes + 1 pad = 584.
  CHECK(compressed_kv_entry_bytes(attention_of(m).compression) == 584.0);
  // An indexer key: 128 FP8 values and one 4-byte scale.
  CHECK(compressed_index_entry_bytes(at_ratio(m, 4).indexer) == 132.0);
  CHECK(has_compressed_indexer(at_ratio(m, 4)));
  CHECK_FALSE(has_compressed_indexer(at_ratio(m, 128)));
  // FP32 state of overlap x ratio rows of 2 x overlap x width: at ratio 4 (overlap 2)
  // 8 x 4 x 512 x 4 = 65,536 B for the keys and 8 x 4 x 128 x 4 = 16,384 B for the
  // indexer's; at ratio 128, 128 x 2 x 512 x 4 = 524,288 B; none without a compressor.
  CHECK(compressor_state_bytes(at_ratio(m, 4)) == 65536.0 + 16384.0);
  CHECK(compressor_state_bytes(at_ratio(m, 128)) == 524288.0);
  CHECK(compressor_state_bytes(at_ratio(m, 1)) == 0.0);
  CHECK(compressor_state_bytes(at_ratio(m, 0)) == 0.0);
  // Hyper-connections, m = 4 streams of h = 4,096: each mixing (2 + 4) x 4 x 16,384
  // + 24 + 3 = 393,243, two a layer over 43 layers, and the head's 4 x 16,384 + 5.
  CHECK(hyper_connection_params(m) == 2.0 * 393243 * 43 + 65541);  // 33,884,439
  CHECK(hyper_connection_params(builtin_model("deepseek-v3")) == 0.0);
}

TEST_CASE("compress ratios make the layers: above 1 compressed attention, else the window alone",
          "[params]") {
  const ModelArch m = flash();
  const LayerTally t = tally_layers(m);
  // compress_ratios [0, 0, 4, 128, 4, 128, ...]: the first two layers the window alone.
  CHECK(t.sliding == 2);
  CHECK(t.attention == 41);
  CHECK(m.layers.at(0).mixer.kind == Mixer::sliding_window);
  CHECK(m.layers.at(2).mixer.attention.compression.ratio == 4);
  CHECK(m.layers.at(3).mixer.attention.compression.ratio == 128);
  CHECK(m.layers.at(2).mixer.attention.indexer.scores());        // ratio 4 chooses by indexer
  CHECK_FALSE(m.layers.at(3).mixer.attention.indexer.scores());  // ratio 128 keeps them all
  CHECK(m.hyper_connections == 4);
}
