#include <filesystem>
#include <fstream>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/model_yaml.hpp"
#include "tpnet/model/kv_cache.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"

using namespace tpnet;
using namespace tpnet::test;

namespace {

const char* const kValid = R"(name: tiny
hidden_size: 1024
num_layers: 4
vocab_size: 32000
num_attention_heads: 16
num_kv_heads: 4
total_params: 1.2B
active_params: 300M
bits_per_weight: 4.5
moe:
  routed_experts: 8
  experts_per_token: 2
assumptions:
  vocab_size: a guess for the test
)";

std::string error_of(const std::string& text) {
  try {
    (void)parse_model_yaml(text, "tiny.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a model file parses with scaled parameter counts", "[model]") {
  const ModelArch m = parse_model_yaml(kValid, "tiny.yaml");
  CHECK(m.name == "tiny");
  CHECK(m.hidden_size == 1024);
  CHECK(m.num_layers() == 4);
  CHECK(attention_of(m).kv_heads == 4);
  CHECK(m.total_params == 1.2e9);
  CHECK(m.active_params == 300e6);
  CHECK(m.bits_per_weight == 4.5);
  REQUIRE((first_moe(m.layers) != nullptr));
  CHECK(moe_of(m).routed_experts == 8);
  CHECK(moe_of(m).shared_experts == 0);
  CHECK(m.assumptions.at("vocab_size") == "a guess for the test");
}

TEST_CASE("dense models default active parameters to the total", "[model]") {
  const ModelArch m = parse_model_yaml(
      "name: d\nhidden_size: 8\nnum_layers: 1\nvocab_size: 10\nnum_attention_heads: 2\n"
      "total_params: 7B\nbits_per_weight: 16\n",
      "d.yaml");
  CHECK(m.active_params == 7e9);
  CHECK(attention_of(m).kv_heads == 2);
  CHECK_FALSE((first_moe(m.layers) != nullptr));
}

const char* const kShapes = R"(name: shapes
hidden_size: 7168
num_layers: 61
vocab_size: 129280
num_attention_heads: 128
attention: sparse
sparse_attention_top_k: 2048
sparse_attention_index_heads: 64
sparse_attention_index_head_dim: 128
head_dim: 192
intermediate_size: 18432
mtp_layers: 1
tie_word_embeddings: true
torch_dtype: bfloat16
quantization: fp8
linear_attention_layers: 30
linear_attention:
  key_heads: 16
  value_heads: 32
  key_head_dim: 128
  value_head_dim: 128
  conv_kernel: 4
sliding_window: 128
sliding_window_layers: 10
mla:
  kv_lora_rank: 512
  q_lora_rank: 1536
  qk_rope_head_dim: 64
  qk_nope_head_dim: 128
  v_head_dim: 128
total_params: 671B
active_params: 37B
bits_per_weight: 8
moe:
  routed_experts: 256
  experts_per_token: 8
  shared_experts: 1
  expert_intermediate_size: 2048
  shared_expert_intermediate_size: 4096
  first_dense_layers: 3
)";

TEST_CASE("a model file states the shapes the parameter estimate reads", "[model]") {
  const ModelArch m = parse_model_yaml(kShapes, "shapes.yaml");
  CHECK(attention_of(m).head_dim == 192);
  CHECK(dense_width_of(m) == 18432);
  CHECK(m.mtp_layers == 1);
  CHECK(m.tie_word_embeddings);
  CHECK(m.torch_dtype == "bfloat16");
  CHECK(m.quantization == "fp8");
  CHECK(attention_of(m).indexer.heads == 64);
  CHECK(attention_of(m).indexer.head_dim == 128);
  CHECK(tally_layers(m.layers).linear == 30);
  REQUIRE((first_mixer(m.layers, Mixer::linear_attention) != nullptr));
  CHECK(mixer_of(m, Mixer::linear_attention).linear.value_heads == 32);
  CHECK(mixer_of(m, Mixer::linear_attention).linear.conv_kernel == 4);
  CHECK(mixer_of(m, Mixer::sliding_window).attention.window == 128);
  CHECK(tally_layers(m.layers).sliding == 10);
  REQUIRE(attention_of(m).latent);
  CHECK(attention_of(m).mla.kv_lora_rank == 512);
  CHECK(attention_of(m).mla.q_lora_rank == 1536);
  CHECK(attention_of(m).mla.qk_rope_head_dim == 64);
  CHECK(attention_of(m).mla.qk_nope_head_dim == 128);
  CHECK(attention_of(m).mla.v_head_dim == 128);
  REQUIRE((first_moe(m.layers) != nullptr));
  CHECK(moe_of(m).expert_intermediate_size == 2048);
  CHECK(moe_of(m).shared_expert_intermediate_size == 4096);
  CHECK(tally_layers(m).dense == 3);
}

TEST_CASE("the shape keys are optional with zero defaults", "[model]") {
  const ModelArch m = parse_model_yaml(kValid, "tiny.yaml");
  CHECK(attention_of(m).head_dim == 64);  // 1024 / 16
  CHECK(dense_width_of(m) == 0);
  CHECK(m.mtp_layers == 0);
  CHECK_FALSE(m.tie_word_embeddings);
  CHECK_FALSE(attention_of(m).latent);
  CHECK_FALSE((first_mixer(m.layers, Mixer::linear_attention) != nullptr));
  CHECK(moe_of(m).expert_intermediate_size == 0);
  CHECK(tally_layers(m).dense == 0);
}

TEST_CASE("bad shape keys name the file, the line and the key", "[model][bad-input]") {
  auto shapes_with = [](const std::string& from, const std::string& to) {
    std::string text = kShapes;
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    try {
      (void)parse_model_yaml(text.replace(at, from.size(), to), "shapes.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK_THAT(shapes_with("  kv_lora_rank: 512\n", ""),
             ContainsSubstring("shapes.yaml:26: kv_lora_rank: required key is missing"));
  CHECK_THAT(shapes_with("  v_head_dim: 128\n", "  v_head_dim: 128\n  rank: 3\n"),
             ContainsSubstring("shapes.yaml:31: rank: unknown key"));
  CHECK_THAT(shapes_with("tie_word_embeddings: true", "tie_word_embeddings: maybe"),
             ContainsSubstring(":13: tie_word_embeddings: 'maybe' is not true or false"));
  CHECK_THAT(
      shapes_with("linear_attention_layers: 30", "linear_attention_layers: 62"),
      ContainsSubstring(":16: linear_attention_layers: 62 is out of range; allowed 0 to 61"));
  CHECK_THAT(shapes_with("sliding_window_layers: 10", "sliding_window_layers: 40"),
             ContainsSubstring("sliding_window_layers: linear_attention_layers + "
                               "sliding_window_layers must not exceed num_layers (61)"));
  CHECK_THAT(shapes_with("sliding_window: 128\n", ""),
             ContainsSubstring("sliding_window: is required with sliding_window_layers"));
  CHECK_THAT(shapes_with("  first_dense_layers: 3", "  first_dense_layers: 99"),
             ContainsSubstring("first_dense_layers: 99 is out of range"));
  CHECK_THAT(shapes_with("intermediate_size: 18432", "intermediate_size: -1"),
             ContainsSubstring(":11: intermediate_size: -1 is out of range"));
  CHECK_THAT(shapes_with("mtp_layers: 1", "mtp_layers: one"),
             ContainsSubstring(":12: mtp_layers: 'one' is not a number"));
  CHECK_THAT(shapes_with("  conv_kernel: 4", "  conv_kernel: 4\n  gates: 2"),
             ContainsSubstring("gates: unknown key"));
  CHECK_THAT(shapes_with("  shared_experts: 1", "  shared_experts: 1\n  expert_size: 3"),
             ContainsSubstring("expert_size: unknown key"));
  CHECK_THAT(shapes_with("sparse_attention_index_head_dim: 128\n", ""),
             ContainsSubstring("sparse_attention_index_head_dim: is required with "
                               "sparse_attention_index_heads"));
}

TEST_CASE("model file errors name the file, the line and the key", "[model][bad-input]") {
  SECTION("missing key") {
    std::string text = kValid;
    text.replace(text.find("hidden_size: 1024\n"), 18, "");
    CHECK_THAT(error_of(text),
               ContainsSubstring("tiny.yaml:1: hidden_size: required key is missing"));
  }
  SECTION("negative value") {
    std::string text = kValid;
    text.replace(text.find("num_layers: 4"), 13, "num_layers: -4");
    CHECK_THAT(error_of(text), ContainsSubstring("tiny.yaml:3: num_layers: -4 is out of range"));
  }
  SECTION("text where a number belongs") {
    std::string text = kValid;
    text.replace(text.find("vocab_size: 32000"), 17, "vocab_size: lots");
    CHECK_THAT(error_of(text),
               ContainsSubstring("tiny.yaml:4: vocab_size: 'lots' is not a number"));
  }
  SECTION("fractional count") {
    std::string text = kValid;
    text.replace(text.find("num_layers: 4"), 13, "num_layers: 4.5");
    CHECK_THAT(error_of(text), ContainsSubstring("must be a whole number"));
  }
  SECTION("misspelled key") {
    std::string text = kValid + std::string("hiden_size: 3\n");
    CHECK_THAT(error_of(text), ContainsSubstring("tiny.yaml:15: hiden_size: unknown key"));
  }
  SECTION("active above total") {
    std::string text = kValid;
    text.replace(text.find("active_params: 300M"), 19, "active_params: 2B");
    CHECK_THAT(error_of(text), ContainsSubstring("active_params: must not exceed total_params"));
  }
  SECTION("kv heads above heads") {
    std::string text = kValid;
    text.replace(text.find("num_kv_heads: 4"), 15, "num_kv_heads: 32");
    CHECK_THAT(error_of(text), ContainsSubstring("num_kv_heads"));
  }
  SECTION("unknown attention kind") {
    CHECK_THAT(error_of(kValid + std::string("attention: magic\n")),
               ContainsSubstring("'magic' is not an attention kind"));
  }
  SECTION("empty file") { CHECK_THAT(error_of(""), ContainsSubstring("tiny.yaml: is empty")); }
  SECTION("not a mapping") {
    CHECK_THAT(error_of("- a\n- b\n"), ContainsSubstring("expected a mapping"));
  }
  SECTION("malformed YAML") {
    CHECK_THAT(error_of("name: [unclosed\nhidden_size: 1\n"), ContainsSubstring("not valid YAML"));
  }
  SECTION("huge value") {
    std::string text = kValid;
    text.replace(text.find("num_layers: 4"), 13, "num_layers: 1000000");
    CHECK_THAT(error_of(text), ContainsSubstring("out of range"));
  }
}

TEST_CASE("a model file that does not exist names its path", "[model][bad-input]") {
  try {
    (void)load_model_file("/nonexistent/model.yaml");
    FAIL("loaded a missing file");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), ContainsSubstring("/nonexistent/model.yaml: no such file"));
  }
}

TEST_CASE("a model file on disk loads", "[model]") {
  const auto path = std::filesystem::temp_directory_path() / "tpnet_test_model.yaml";
  {
    std::ofstream out(path);
    out << kValid;
  }
  CHECK(load_model_file(path.string()).name == "tiny");
  std::filesystem::remove(path);
}

TEST_CASE("part_bits states the parts a checkpoint keeps at another precision", "[model]") {
  const std::string base = std::string(kShapes) + "part_bits: {attention: 16, router: 16}\n";
  const ModelArch m = parse_model_yaml(base, "shapes.yaml");
  CHECK(m.bits_per_weight == 8);
  CHECK(m.bits_of(WeightPart::attention) == 16);
  CHECK(m.bits_of(WeightPart::router) == 16);
  CHECK(m.bits_of(WeightPart::routed_experts) == 8);
  CHECK_THROWS_WITH(
      parse_model_yaml(std::string(kShapes) + "part_bits: {mlp: 16}\n", "shapes.yaml"),
      ContainsSubstring("part_bits.mlp: unknown key"));
  CHECK_THROWS_WITH(
      parse_model_yaml(std::string(kShapes) + "part_bits: {attention: 0}\n", "shapes.yaml"),
      ContainsSubstring("part_bits.attention"));
}

TEST_CASE("a model YAML states its layers as runs or as a Nemotron-H pattern", "[model-yaml]") {
  // SYNTHETIC: a small hybrid, 2 Mamba layers, 1 attention, 1 MLP.
  const std::string head = R"(name: tiny-hybrid
hidden_size: 1024
num_layers: 4
vocab_size: 32000
num_attention_heads: 8
num_kv_heads: 2
total_params: 1B
bits_per_weight: 16
intermediate_size: 4096
gated_ffn: false
mamba: {heads: 16, head_dim: 64, state_size: 128, groups: 2, conv_kernel: 4}
)";
  const tpnet::ModelArch runs = tpnet::parse_model_yaml(
      head +
          "layers:\n  - {count: 2, mixer: mamba, ffn: none}\n"
          "  - {count: 1, mixer: attention, ffn: none}\n  - {count: 1, mixer: none}\n",
      "tiny.yaml");
  const tpnet::ModelArch pattern =
      tpnet::parse_model_yaml(head + "layer_pattern: \"MM*-\"\n", "tiny.yaml");
  REQUIRE(runs.layers.size() == 4);
  CHECK(runs.layers == pattern.layers);
  CHECK(runs.layers.at(3).mixer.kind == tpnet::Mixer::none);
  CHECK(runs.layers.at(3).ffn.kind == tpnet::FfnKind::dense);
  CHECK_FALSE(runs.layers.at(3).ffn.gated);
  REQUIRE((first_mixer(runs.layers, Mixer::mamba) != nullptr));
  CHECK(mixer_of(runs, Mixer::mamba).mamba.state_bytes == 2);
  tpnet::EngineConfig engine;
  CHECK(tpnet::allreduces_per_forward(runs, engine) == 5);  // one per layer + the embedding

  const auto error = [&](const std::string& text) {
    try {
      (void)tpnet::parse_model_yaml(text, "tiny.yaml");
    } catch (const tpnet::InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK_THAT(error(head + "layer_pattern: \"MM*\"\n"),
             ContainsSubstring("layer_pattern: gives 3 layers; num_layers is 4"));
  CHECK_THAT(error(head + "layer_pattern: \"MMX-\"\n"),
             ContainsSubstring("'X' is not a layer kind"));
  CHECK_THAT(error(head + "layers:\n  - {count: 5, mixer: mamba}\n"),
             ContainsSubstring("layers.count: the runs add up to more than num_layers (4)"));
  CHECK_THAT(error(head + "layers:\n  - {count: 4, mixer: ssm}\n"),
             ContainsSubstring("'ssm' is not a mixer"));
  CHECK_THAT(error(head + "layers:\n  - {count: 4, ffn: moe}\n"),
             ContainsSubstring("has MoE layers; give moe"));
  CHECK_THAT(error(head + "layer_pattern: \"MM*-\"\nlayers:\n  - {count: 4}\n"),
             ContainsSubstring("layers or layer_pattern, not both"));
  // A run's dense FFN of its own width (DeciLM's per-layer widths).
  const tpnet::ModelArch widths =
      tpnet::parse_model_yaml(head +
                                  "layers:\n  - {count: 3, mixer: mamba, ffn: none}\n"
                                  "  - {count: 1, mixer: none, ffn_width: 2048}\n",
                              "tiny.yaml");
  CHECK(widths.layers.at(3).ffn.width == 2048);
  CHECK_THAT(error(head + "layers:\n  - {count: 4, ffn: none, ffn_width: 2048}\n"),
             ContainsSubstring("ffn_width: is the width of a dense FFN"));
  // Runs of their own attention shapes (Gemma 4's sliding and global layers):
  // the KV cache counts each run at its own heads and window.
  const tpnet::ModelArch own = tpnet::parse_model_yaml(
      head +
          "layers:\n"
          "  - {count: 3, mixer: sliding_window, ffn: none, kv_heads: 4, head_dim: 64, window: "
          "512}\n"
          "  - {count: 1, mixer: attention, ffn: none, heads: 16, kv_heads: 1, head_dim: 256}\n",
      "tiny.yaml");
  CHECK(own.layers.at(0).mixer.attention.kv_heads == 4);
  CHECK(own.layers.at(0).mixer.attention.head_dim == 64);
  CHECK(own.layers.at(0).mixer.attention.window == 512);
  CHECK(own.layers.at(0).mixer.attention.q_heads == 8);  // num_attention_heads
  CHECK(own.layers.at(3).mixer.attention.q_heads == 16);
  CHECK(tpnet::kv_bytes_per_token(own, 1, 2).count() == 1 * (256 + 256) * 2);
  CHECK(tpnet::sequence_state(own, 1, 2, 10000).sliding_window.count() ==
        3.0 * 4 * (64 + 64) * 2 * 512);
  CHECK_THAT(error(head + "layers:\n  - {count: 4, mixer: mamba, ffn: none, window: 64}\n"),
             ContainsSubstring("window"));
}
