// DeepSeek-V4's compressed attention (docs/formulas.md s.8.1): the real
// DeepSeek-V4-Flash config.json files load with the technical report's
// 284B / 13B, the cache per token and per sequence, the all-reduces, the
// built-in deepseek-v4-flash that predict can price, and the two-Spark
// vLLM article's memory and decode figures (docs/formulas.md s.12.10).

#include <cmath>
#include <filesystem>
#include <string>

#include <yaml-cpp/yaml.h>

#include "catch.hpp"
#include "cli_runner.hpp"
#include "golden.hpp"
#include "model_fixtures.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/io/hf_config.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/model_yaml.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/model/compressed_attention.hpp"
#include "tpnet/model/kv_cache.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/model/mixer_compute.hpp"
#include "tpnet/model/params.hpp"
#include "tpnet/model/prefill_gemms.hpp"
#include "tpnet/model/weights.hpp"
#include "tpnet/sim/decode_floor.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/usecase/decode.hpp"
#include "tpnet/usecase/memory.hpp"
#include "tpnet/usecase/model_summary.hpp"

using Catch::Matchers::WithinRel;
using namespace tpnet;
using namespace tpnet::test;

namespace {

const std::filesystem::path kCorpus = std::filesystem::path(TPNET_SOURCE_DIR) / "tests/data/hf";

ModelArch flash() { return load_hf_config((kCorpus / "deepseek-ai__DeepSeek-V4-Flash").string()); }

// The config's shapes, written out for the by-hand counts below.
constexpr double h = 4096, heads = 64, d = 512, r_q = 1024, r_o = 1024, groups = 8;
constexpr double index_heads = 64, index_dim = 128, streams = 4, vocab = 129280;
constexpr double layers = 43, csa = 21, hca = 20;
constexpr double experts = 256, top_k = 6, width = 2048;

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

std::string error_key(const std::string& json) {
  try {
    (void)parse_hf_config(json, "v4.json");
  } catch (const InputError& e) {
    return e.where().key;
  }
  return "";
}

}  // namespace

TEST_CASE("DeepSeek-V4-Flash's config.json loads: 284.3B with 13.3B active, the report's 284B/13B",
          "[hf][golden]") {
  for (const char* folder : {"deepseek-ai__DeepSeek-V4-Flash", "nvidia__DeepSeek-V4-Flash-NVFP4"}) {
    INFO(folder);
    const ModelArch m = load_hf_config((kCorpus / folder).string());
    REQUIRE(attention_of(m).compressed);
    CHECK(attention_label(m.layers) == "compressed");
    const LayerTally t = tally_layers(m);
    CHECK(t.attention == 41);  // 21 at ratio 4, 20 at ratio 128
    CHECK(t.sliding == 2);     // layers 0 and 1 keep the window alone
    CHECK(t.moe == 43);
    CHECK(m.mtp_layers == 1);
    CHECK(m.num_layers() == 43);  // of 44 ratios listed: one is MTP's

    const double attention = layers * (split_attention() + inputs()) +
                             csa * (compressor(4, d) + indexer()) + hca * compressor(128, d);
    const double mix = (2 + streams) * streams;
    const double hyper =
        2 * layers * (mix * streams * h + mix + 3) + streams * streams * h + streams + 1;
    const double expert = 3 * h * width;
    const double total =
        2 * vocab * h + attention + hyper + layers * (experts * expert + expert + h * experts);
    const double active =
        vocab * h + attention + hyper + layers * (top_k * expert + expert + h * experts);
    CHECK_THAT(m.total_params, WithinRel(total, 1e-12));    // 284.33B
    CHECK_THAT(m.active_params, WithinRel(active, 1e-12));  // 13.27B
    // The DeepSeek-V4 technical report (tests/data/hf/PUBLISHED.md): 284B, 13B activated.
    CHECK_THAT(m.total_params, WithinRel(284e9, 0.005));  // +0.12%
    CHECK_THAT(m.active_params, WithinRel(13e9, 0.025));  // +2.1%: "13B" has two figures
  }
}

TEST_CASE(
    "DeepSeek-V4-Flash caches 3,850 bytes per token past its 128-token window: 4.05 GB at 1M "
    "tokens",
    "[kv][golden]") {
  const ModelArch m = flash();
  // vLLM's key: 448 FP8 + 64 BF16 rope + 7 scales + 1 pad; the indexer's 128 FP8 + a 4-byte scale.
  CHECK(compressed_kv_entry_bytes(attention_of(m).compression) == 584.0);
  CHECK(compressed_index_entry_bytes(attention_of(m).indexer) == 132.0);
  const double per_token = csa * (584.0 + 132.0) / 4 + hca * 584.0 / 128;  // 3,850.25
  // Per token past every window: the compressed keys' shares; the window's
  // 43 x 584 B per token stop growing at 128 tokens (sequence_state).
  CHECK(kv_bytes_per_token(m, 2, 1).count() == per_token);
  // The one KV head is on every rank and the layout ignores the KV cache dtype.
  CHECK(kv_bytes_per_token(m, 1, 2) == kv_bytes_per_token(m, 8, 1));
  const double state = csa * (8 * 2048 * 4 + 8 * 512 * 4) + hca * (128 * 1024 * 4);  // 12.2 MB
  const SequenceState million = sequence_state(m, 2, 1, 1048576);
  CHECK(million.attention.count() == csa * 584.0 * 262144 + hca * 584.0 * 8192);
  CHECK(million.sparse_index.count() == csa * 132.0 * 262144);
  CHECK(million.sliding_window.count() == layers * 584.0 * 128);
  CHECK(million.linear_state.count() == state);
  CHECK(million.total().count() == 4052700160.0);
  // Past the window a further 4 x 128 tokens add exactly 128 x 3,850.25 bytes.
  const double grown =
      sequence_state(m, 2, 1, 1048576 + 512).total().count() - million.total().count();
  CHECK(grown == 512 * per_token);
  // A whole compressed entry appears only once `ratio` tokens are in.
  CHECK(sequence_state(m, 2, 1, 3).attention.count() == 0.0);
  CHECK(sequence_state(m, 2, 1, 4).attention.count() == csa * 584.0);
}

TEST_CASE("DeepSeek-V4-Flash all-reduces twice per layer: 87 per forward with the embedding",
          "[traffic][golden]") {
  // vLLM: wo_b is a RowParallelLinear and the MoE (shared experts inside
  // FusedMoE) reduces once; the compressors and indexer are replicated.
  const ModelArch m = flash();
  EngineConfig engine;
  engine.tensor_parallel_size = 2;
  CHECK(allreduces_per_forward(m, engine) == 2 * 43 + 1);
}

TEST_CASE("DeepSeek-V4-Flash's prefill GEMMs and mixer FLOPs at TP2", "[prefill][golden]") {
  const ModelArch m = flash();
  const auto shapes = prefill_gemm_shapes(m, 2, 1000);
  auto find = [&](const std::string& name) {
    for (const auto& s : shapes) {
      if (s.name == name) return s;
    }
    FAIL("no GEMM " << name);
    return GemmShape{};
  };
  CHECK(find("attn.wqa_wkv").n == 1024 + 512);
  CHECK(find("attn.wqa_wkv").count == 43);
  CHECK(find("attn.q_b").n == 32LL * 512);
  CHECK(find("attn.o_a").k == 64 * 512 / 8);
  CHECK(find("attn.o_a").count == 43LL * 4);  // 4 of the 8 output groups per rank
  CHECK(find("attn.o_b").k == 4LL * 1024);
  CHECK(find("attn.o_b").split == GemmSplit::row);
  CHECK(find("attn.compressor_r4").n == 2LL * 2 * 512);
  CHECK(find("attn.compressor_r4").count == 21);
  CHECK(find("attn.compressor_r128").n == 2LL * 512);
  CHECK(find("attn.compressor_r128").count == 20);
  CHECK(find("indexer.wq_b").count == 21);
  CHECK(find("moe.gate_up").count == 43LL * 256);

  // One decode token at 1M tokens of context, TP2 (32 heads a rank):
  // 2 x 32 x (512 + 512) FLOPs per key.
  const double per_key = 2.0 * 32 * 1024;
  const MixerFlops f = decode_mixer_flops(m, 2, 1048575);
  CHECK_THAT(f.sliding_window, WithinRel(per_key * 128 * layers, 1e-12));
  // Ratio 4: the top 512 of 262,144 entries; ratio 128: all 8,192.
  CHECK_THAT(f.attention, WithinRel(per_key * (csa * 512 + hca * 1048576.0 / 128), 1e-12));
  CHECK_THAT(f.sparse_index, WithinRel(2.0 * 64 * 128 * csa * 1048576.0 / 4, 1e-12));
}

TEST_CASE("the built-in deepseek-v4-flash is the config.json's model and predict can price it",
          "[models][golden]") {
  const ModelArch yaml = builtin_model("deepseek-v4-flash");
  const ModelArch json = flash();
  CHECK(yaml.layers == json.layers);
  CHECK(yaml.hyper_connections == json.hyper_connections);
  const ParamEstimate e = estimate_params(yaml);
  CHECK(e.complete());
  CHECK(e.total_params() == json.total_params);
  CHECK(e.active_params() == json.active_params);
  CHECK(yaml.total_params == 284e9);
  CHECK(yaml.active_params == 13e9);
  CHECK_FALSE(prefill_compute_missing(yaml).has_value());
  CHECK(kv_bytes_per_token(yaml, 2, 1) == kv_bytes_per_token(json, 2, 1));

  const auto models = test::run_tpnet({"models", "--format", "json"});
  REQUIRE(models.exit_code == 0);
  CHECK_THAT(models.out, ContainsSubstring("\"deepseek-v4-flash\""));
  const auto shown = test::run_tpnet({"models", "show", "deepseek-v4-flash", "--format", "json"});
  REQUIRE(shown.exit_code == 0);
  const YAML::Node j = YAML::Load(shown.out);
  CHECK(j["compressed_attention"]["present"].as<bool>());
  CHECK(j["compressed_attention"]["window_only_layers"].as<int>() == 2);
  CHECK(j["compressed_attention"]["ratio_4_layers"].as<int>() == 21);
  CHECK(j["compressed_attention"]["ratio_128_layers"].as<int>() == 20);
  CHECK(j["compressed_attention"]["o_groups"].as<int>() == 8);
  const auto predicted =
      test::run_tpnet({"predict", "--model", "deepseek-v4-flash", "--tp", "2", "--links", "200G",
                       "--prompt", "1x8k", "--output", "32", "--gemm-tflops", "100",
                       "--mixer-tflops", "50", "--format", "json"});
  INFO(predicted.out << predicted.err);
  CHECK(predicted.exit_code == 0);
}

TEST_CASE(
    "DeepSeek-V4-Flash (155 GB at FP8 with MXFP4 experts) does not fit one DGX Spark and fits "
    "two, about 78 GB of weights each",
    "[memory][golden]") {
  const ModelArch m = builtin_model("deepseek-v4-flash");
  // The checkpoint: 150-160 GB at about 4 bits (the two-Spark article).
  const double model_bytes = weight_memory(m, ParallelLayout{1, 1, 1}).per_node().count();
  CHECK(model_bytes > 150e9);
  CHECK(model_bytes < 160e9);
  MemoryRequest one;
  one.layout = ParallelLayout{1, 1, 1};
  one.node = builtin_node("dgx-spark");
  CHECK_FALSE(analyze_memory(m, one).fits);
  MemoryRequest two = one;
  two.layout = ParallelLayout{2, 1, 1};
  const MemoryReport r = analyze_memory(m, two);
  CHECK(r.fits);
  CHECK(test::prints_as(r.weights_bytes.count() / 1e9, 78.10, 2));  // 77.26 split + 0.84 whole
  CHECK(test::prints_as(model_bytes / 1e9, 155.35, 2));
  // The article: "a bit over 100 GB" on each Spark. vLLM takes its budget
  // (121 GB x 0.9) whole, the KV cache filling what the fixed parts leave:
  // 93.49 GB fixed (weights, 14 GB of NCCL buffers, graphs, activations)
  // below 100 GB, 108.90 GB in all above it.
  CHECK(test::prints_as(r.fixed_bytes.count() / 1e9, 93.49, 2));
  CHECK(r.fixed_bytes.count() < 100e9);
  CHECK(r.budget.count() > 100e9);
  CHECK(r.kv_cache_bytes.count() > 15e9);
}

TEST_CASE(
    "DeepSeek-V4-Flash's weight-read floor on two Sparks allows about 52 tokens/s where the "
    "article measured 38",
    "[decode][golden]") {
  const ModelArch m = builtin_model("deepseek-v4-flash");
  const NodeSpec spark = builtin_node("dgx-spark");
  const double floor_s = weight_read_floor(m, 2, spark.memory_bandwidth).value();
  // Each node reads half of the 13B active weights at their bits (10.54 GB)
  // at 273 GB/s: 19.30 ms, at most 51.8 tokens/s.
  CHECK(test::prints_as(floor_s * 1e3, 19.30, 2));
  const double ceiling = 1.0 / floor_s;
  CHECK(test::prints_as(ceiling, 51.8, 1));
  // The article's 38 tokens/s is 73% of the bound: below it, and close
  // enough that decode is bound by the weight reads.
  CHECK(ceiling > 38.0);
  CHECK(test::prints_as(38.0 / ceiling, 0.73, 2));
}

TEST_CASE("DeepSeek-V4 configs that tpnet cannot read as vLLM runs them are refused naming the key",
          "[hf]") {
  const std::string base = R"({"model_type": "deepseek_v4", "hidden_size": 64,
      "num_hidden_layers": 2, "vocab_size": 100, "num_attention_heads": 4,
      "num_key_value_heads": 1, "head_dim": 32, "qk_rope_head_dim": 8, "q_lora_rank": 16,
      "o_lora_rank": 16, "o_groups": 2, "hc_mult": 4, "sliding_window": 8,
      "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 16,)";
  CHECK(error_key(base + R"("compress_ratios": [0, 4]})").empty());
  CHECK(error_key(base + R"("compress_ratios": [0, 4, 128]})") == "compress_ratios");
  CHECK(error_key(base + R"("compress_ratios": [0, 16]})") == "compress_ratios");
  CHECK(error_key(base + R"("compress_ratios": [0, "4"]})") == "compress_ratios");
  CHECK(error_key(base + R"("compress_ratios": 4})") == "compress_ratios");
  // Without the list the layers' attention is unknown: refused, never read
  // as another attention (issue 40).
  CHECK(error_key(base + R"("hc_eps": 1e-6})") == "compress_ratios");
  std::string three_groups = base;
  three_groups.replace(three_groups.find("\"o_groups\": 2"), 13, "\"o_groups\": 3");
  CHECK(error_key(three_groups + R"("compress_ratios": [0, 4]})") == "o_groups");
  std::string no_window = base;
  no_window.replace(no_window.find("\"sliding_window\": 8,"), 20, "");
  CHECK(error_key(no_window + R"("compress_ratios": [0, 4]})") == "sliding_window");
  const std::string fp8 = R"("quantization_config": {"quant_method": "fp8",
      "weight_block_size": [128, 128]}, "compress_ratios": [0, 4],)";
  CHECK(error_key(base + fp8 + R"("expert_dtype": "fp8"})").empty());
  CHECK(error_key(base + fp8 + R"("expert_dtype": "int4"})") == "expert_dtype");
}

TEST_CASE("DeepSeek-V4's expert_dtype fp4 makes the routed experts MXFP4: 155.6 GB in all",
          "[hf][quantization][golden]") {
  const ModelArch m = flash();
  CHECK(m.bits_of(WeightPart::routed_experts) == 4.25);
  CHECK(m.bits_of(WeightPart::attention) == 8.0);
  CHECK(m.assumptions.count("expert_dtype") == 1);
  // 277.0B experts at 4.25 bits, the rest at FP8, embedding, head and router at 16 bits:
  // the checkpoint's 150-160 GB (the two-Spark article).
  const double bytes = weight_memory(m, ParallelLayout{1, 1, 1}).per_node().count();
  CHECK(test::prints_as(bytes / 1e9, 155.6, 1));
  // NVIDIA's checkpoint: modelopt's hf_quant_config.json decides (NVFP4 experts).
  const ModelArch nvfp4 = load_hf_config((kCorpus / "nvidia__DeepSeek-V4-Flash-NVFP4").string());
  CHECK(nvfp4.bits_of(WeightPart::routed_experts) == 4.5);
  CHECK(nvfp4.assumptions.count("expert_dtype") == 0);
}

TEST_CASE("a model YAML's compressed_attention is checked and gives the layers", "[model-yaml]") {
  const std::string head = R"(name: v4
hidden_size: 64
num_layers: 3
vocab_size: 100
num_attention_heads: 4
num_kv_heads: 1
total_params: 1B
bits_per_weight: 8
sliding_window: 8
moe: {routed_experts: 4, experts_per_token: 2, expert_intermediate_size: 16}
)";
  const std::string block = R"(compressed_attention:
  head_dim: 32
  q_lora_rank: 16
  qk_rope_head_dim: 8
  o_lora_rank: 16
  o_groups: 2
)";
  auto key_of = [](const std::string& text) {
    try {
      (void)parse_model_yaml(text, "v4.yaml");
    } catch (const InputError& e) {
      return e.where().key;
    }
    return std::string();
  };
  const ModelArch m = parse_model_yaml(
      head + "attention: compressed\n" + block + "  compress_ratios: [0, 4, 128]\n", "v4.yaml");
  REQUIRE(m.layers.size() == 3);
  CHECK(m.layers.at(0).mixer.kind == Mixer::sliding_window);
  CHECK(m.layers.at(1).mixer.kind == Mixer::attention);
  CHECK(m.layers.at(2).ffn.kind == FfnKind::moe);
  CHECK(tally_layers(m.layers).sliding == 1);
  CHECK(key_of(head + "attention: compressed\n") == "compressed_attention");
  CHECK(key_of(head + "attention: compressed\n" + block + "  compress_ratios: [0, 4]\n") ==
        "compressed_attention.compress_ratios");
  CHECK(key_of(head + "attention: compressed\n" + block + "  compress_ratios: [0, 8, 4]\n") ==
        "compressed_attention.compress_ratios");
  CHECK(key_of(head + "attention: mla\n" + block + "  compress_ratios: [0, 4, 128]\n") ==
        "compressed_attention");
  // vLLM gives each rank o_groups / TP output groups: TP16 cannot split V4-Flash's 8.
  CHECK(tp_refusal(builtin_model("deepseek-v4-flash"), 8).empty());
  CHECK_THAT(tp_refusal(builtin_model("deepseek-v4-flash"), 16), ContainsSubstring("o_groups"));
}
