// Quantization as served, read from real checkpoints in tests/data/hf
// (tests/data/hf/SOURCES): modelopt's hf_quant_config.json with its exclusion
// list and MIXED_PRECISION map, compressed-tensors config_groups, and the
// --quantization / --bits-per-weight overrides.

#include <string>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"
#include "corpus_checkpoint.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/hf_config.hpp"
#include "tpnet/io/text_file.hpp"
#include "tpnet/model/quantization.hpp"
#include "tpnet/model/weights.hpp"

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using tpnet::ModelArch;
using tpnet::WeightPart;
using tpnet::test::checkpoint;
using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::json_of;
using tpnet::test::kCorpus;
using tpnet::test::run_tpnet;

TEST_CASE("DeepSeek-V3.1-NVFP4: NVFP4 from hf_quant_config.json, MLA projections but o_proj kept",
          "[quantization][hf]") {
  const ModelArch m = checkpoint("nvidia__DeepSeek-V3.1-NVFP4");
  CHECK(m.quantization == "nvfp4");
  CHECK(m.bits_per_weight == 4.5);
  // exclude_modules lists q_a, q_b, kv_a and kv_b of every layer, not o_proj:
  // the attention's bits are those projections' BF16 and o_proj's NVFP4,
  // weighed by their sizes (hidden 7168, 128 heads, q rank 1536, kv rank 512).
  const double q_a = 7168.0 * 1536;
  const double q_b = 1536.0 * 128 * (128 + 64);
  const double kv_a = 7168.0 * (512 + 64);
  const double kv_b = 512.0 * 128 * (128 + 128);
  const double o = 128.0 * 128 * 7168;
  const double attention =
      ((q_a + q_b + kv_a + kv_b) * 16 + o * 4.5) / (q_a + q_b + kv_a + kv_b + o);
  CHECK_THAT(m.bits_of(WeightPart::attention), WithinAbs(attention, 1e-9));
  CHECK(m.bits_of(WeightPart::routed_experts) == 4.5);
  CHECK(m.bits_of(WeightPart::shared_experts) == 4.5);
  CHECK(m.bits_of(WeightPart::lm_head) == 16.0);    // "lm_head" is excluded
  CHECK(m.bits_of(WeightPart::embedding) == 16.0);  // not a linear layer
  CHECK(m.bits_of(WeightPart::router) == 16.0);     // vLLM's gate is unquantized
  CHECK_THAT(tpnet::effective_bits_per_weight(m), WithinAbs(4.61, 0.01));
  // At TP8 a node holds about 49 GB, not the 170 GB a BF16 reading gave.
  const tpnet::WeightMemory w = tpnet::weight_memory(m, tpnet::ParallelLayout{8, 1, 1});
  CHECK_THAT(w.per_node().count(), WithinRel(49.4e9, 0.01));
}

TEST_CASE("Qwen3.6-27B-NVFP4: MIXED_PRECISION puts attention in FP8 and the MLP in NVFP4",
          "[quantization][hf]") {
  const ModelArch m = checkpoint("nvidia__Qwen3.6-27B-NVFP4");
  CHECK(m.quantization == "mixed");
  // FP8 but for the Gated DeltaNet's in_proj_a and in_proj_b (48 wide each),
  // which the map does not list: they stay BF16.
  CHECK_THAT(m.bits_of(WeightPart::attention), WithinAbs(8.0255, 0.0001));
  CHECK(m.bits_of(WeightPart::dense_ffn) == 4.5);
  CHECK(m.bits_of(WeightPart::embedding) == 16.0);
  const double bits = tpnet::effective_bits_per_weight(m);
  CHECK(bits > 4.5);
  CHECK(bits < 8.0);
}

TEST_CASE("Qwen3.6-27B-NVFP4's config.json alone: its MIXED_PRECISION map reads as 5.993 bits",
          "[quantization][hf][golden]") {
  // The modelopt export copies hf_quant_config.json's per-module map into
  // config.json's quantization_config; without the side file it was refused
  // ("'MIXED_PRECISION' is not a modelopt format tpnet knows").
  const std::string folder = kCorpus + "nvidia__Qwen3.6-27B-NVFP4";
  const ModelArch alone = tpnet::parse_hf_config(tpnet::read_text_file(folder + "/config.json"),
                                                 folder + "/config.json");
  const ModelArch both = checkpoint("nvidia__Qwen3.6-27B-NVFP4");
  CHECK(alone.quantization == "mixed");
  CHECK(alone.bits_of(WeightPart::attention) == both.bits_of(WeightPart::attention));
  CHECK(alone.bits_of(WeightPart::dense_ffn) == 4.5);
  CHECK(alone.bits_of(WeightPart::embedding) == 16.0);
  CHECK_THAT(tpnet::effective_bits_per_weight(alone),
             WithinAbs(tpnet::effective_bits_per_weight(both), 1e-9));
  // The headline bits per weight is the mean over every part, not the
  // unquantized dtype's 16.
  CHECK_THAT(alone.bits_per_weight, WithinAbs(5.9926, 0.0001));
  CHECK_THAT(both.bits_per_weight, WithinAbs(5.9926, 0.0001));
  // The study's "27B": the shapes give 26.90B (no vision tower, no MTP
  // layer), the attention's output gates (attn_output_gate, 0.50B) counted.
  CHECK_THAT(alone.total_params, WithinRel(27e9, 0.01));
  CHECK_THAT(alone.total_params, WithinRel(26.90e9, 0.001));
  const YAML::Node shown =
      json_of(run_tpnet({"models", "show", folder + "/config.json", "--format", "json"}));
  CHECK_THAT(shown["bits_per_weight"].as<double>(), WithinAbs(5.9926, 0.0001));
}

TEST_CASE("Kimi-K2.6-NVFP4: a whole-layer exclusion leaves the dense first layer in BF16",
          "[quantization][hf]") {
  // 'language_model.model.layers.0*' is layer 0, the only dense FFN
  // (first_k_dense_replace 1); experts start at layer 1 and stay NVFP4.
  const ModelArch m = checkpoint("nvidia__Kimi-K2.6-NVFP4");
  CHECK(m.quantization == "nvfp4");
  CHECK(m.bits_of(WeightPart::dense_ffn) == 16.0);
  CHECK(m.bits_of(WeightPart::routed_experts) == 4.5);
  CHECK(m.bits_of(WeightPart::shared_experts) == 16.0);
  CHECK(m.bits_of(WeightPart::attention) == 16.0);
}

TEST_CASE("Kimi-K2.5: compressed-tensors int4 groups of 32 are 4.5 bits, its ignore list is read",
          "[quantization][hf]") {
  const ModelArch m = checkpoint("moonshotai__Kimi-K2.5");
  CHECK(m.quantization == "int4");
  CHECK(m.bits_per_weight == 4.0 + 16.0 / 32);  // a BF16 scale per 32, symmetric
  CHECK(m.bits_of(WeightPart::routed_experts) == 4.5);
  CHECK(m.bits_of(WeightPart::attention) == 16.0);       // re:.*self_attn.*
  CHECK(m.bits_of(WeightPart::shared_experts) == 16.0);  // re:.*shared_experts.*
  CHECK(m.bits_of(WeightPart::dense_ffn) == 16.0);       // re:.*mlp\.(gate|up|gate_up|down)_proj.*
}

TEST_CASE("Llama-4-Scout FP8-dynamic: compressed-tensors FP8 with BF16 attention",
          "[quantization][hf]") {
  const ModelArch m = checkpoint("RedHatAI__Llama-4-Scout-17B-16E-Instruct-FP8-dynamic");
  CHECK(m.quantization == "fp8");
  CHECK(m.bits_per_weight == 8.0);
  CHECK(m.bits_of(WeightPart::attention) == 16.0);
  CHECK(m.bits_of(WeightPart::routed_experts) == 8.0);
  CHECK(m.assumptions.at("bits_per_weight").find("and 443 more") != std::string::npos);
}

TEST_CASE("an unquantized checkpoint reads at its dtype and every part agrees",
          "[quantization][hf]") {
  const ModelArch m = checkpoint("Qwen__Qwen3-235B-A22B");
  CHECK(m.quantization.empty());
  CHECK(m.bits_per_weight == 16.0);
  CHECK(m.part_bits.empty());
  CHECK(tpnet::effective_bits_per_weight(m) == 16.0);
}

TEST_CASE(
    "a quantization asked for serves any model in it, embedding, head and router staying BF16",
    "[quantization]") {
  ModelArch m = checkpoint("Qwen__Qwen3-235B-A22B");
  const tpnet::Bytes bf16 = tpnet::weight_memory(m, tpnet::ParallelLayout{8, 1, 1}).per_node();
  tpnet::apply_quantization(m,
                            tpnet::parse_quantization("fp8", tpnet::InputLocation::for_key("q")));
  CHECK(m.quantization == "fp8");
  CHECK(m.bits_per_weight == 8.0);
  CHECK(m.bits_of(WeightPart::embedding) == 16.0);
  CHECK(m.bits_of(WeightPart::lm_head) == 16.0);
  CHECK(m.bits_of(WeightPart::router) == 16.0);
  CHECK(m.bits_of(WeightPart::routed_experts) == 8.0);
  const tpnet::Bytes fp8 = tpnet::weight_memory(m, tpnet::ParallelLayout{8, 1, 1}).per_node();
  CHECK(fp8.count() > 0.5 * bf16.count());
  CHECK(fp8.count() < 0.52 * bf16.count());

  SECTION("nvfp4 is 4.5 bits, mxfp4 and int4 4.25") {
    CHECK(tpnet::parse_quantization("NVFP4", tpnet::InputLocation::for_key("q")).bits == 4.5);
    CHECK(tpnet::parse_quantization("mxfp4", tpnet::InputLocation::for_key("q")).bits == 4.25);
    CHECK(tpnet::parse_quantization("int4", tpnet::InputLocation::for_key("q")).bits == 4.25);
    CHECK(tpnet::parse_quantization("bf16", tpnet::InputLocation::for_key("q")).bits == 16.0);
  }
  SECTION("bf16 undoes a checkpoint's quantization") {
    ModelArch q = checkpoint("nvidia__DeepSeek-V3.1-NVFP4");
    tpnet::apply_quantization(
        q, tpnet::parse_quantization("bf16", tpnet::InputLocation::for_key("q")));
    CHECK(tpnet::effective_bits_per_weight(q) == 16.0);
  }
  SECTION("an unknown name is refused, naming the field and what is allowed") {
    CHECK_THROWS_WITH(
        tpnet::parse_quantization("fp5", tpnet::InputLocation::for_key("quantization")),
        ContainsSubstring("quantization") && ContainsSubstring("nvfp4"));
  }
}

TEST_CASE("tpnet memory --quantization and --bits-per-weight change the weights per node",
          "[cli][quantization]") {
  const std::string model = kCorpus + "Qwen__Qwen3-235B-A22B";
  auto weights = [&](std::initializer_list<std::string> extra) {
    std::vector<std::string> args = {"memory", "--model", model, "--tp", "8", "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return json_of(run_tpnet(args))["weights_bytes"].as<double>();
  };
  const double bf16 = weights({});
  const double nvfp4 = weights({"--quantization", "nvfp4"});
  const double eight = weights({"--bits-per-weight", "8"});
  CHECK_THAT(eight, WithinRel(bf16 / 2, 1e-9));
  CHECK(nvfp4 < 0.32 * bf16);
  CHECK(nvfp4 > 4.5 / 16 * bf16);
  expect_bad_input(run_tpnet({"memory", "--model", model, "--tp", "8", "--quantization", "fp5"}),
                   "--quantization");
  expect_bad_input(run_tpnet({"memory", "--model", model, "--tp", "8", "--bits-per-weight", "0"}),
                   "--bits-per-weight");
  expect_bad_input(run_tpnet({"memory", "--model", model, "--tp", "8", "--bits-per-weight", "99"}),
                   "--bits-per-weight");
}

TEST_CASE("tpnet models show prints weights per node by part", "[cli][quantization]") {
  const auto j = json_of(
      run_tpnet({"models", "show", kCorpus + "nvidia__DeepSeek-V3.1-NVFP4", "--format", "json"}));
  CHECK(j["quantization"].as<std::string>() == "nvfp4");
  double model_sum = 0.0;
  double node_sum = 0.0;
  for (const auto& row : j["weights_by_part"]) {
    model_sum += row["model_bytes"].as<double>();
    node_sum += row["node_bytes_at_tp8"].as<double>();
  }
  // The parts add up to the model's weights and to the TP8 row's per-node bytes.
  CHECK_THAT(node_sum, WithinRel(j["per_tp"][3]["weights_per_node_bytes"].as<double>(), 1e-6));
  CHECK_THAT(model_sum, WithinRel(j["per_tp"][0]["weights_per_node_bytes"].as<double>(), 1e-6));
}

TEST_CASE("phi-4 at TP8: memory warns that vLLM refuses the layout, naming the KV heads",
          "[cli][layout]") {
  const std::string phi = kCorpus + "microsoft__phi-4";
  const CliResult r = run_tpnet({"memory", "--model", phi, "--tp", "8", "--format", "json"});
  CHECK_THAT(r.err, ContainsSubstring("10 KV heads do not divide one another"));
  const auto j = json_of(r);
  bool named = false;
  for (const auto& w : j["warnings"])
    named |= w.as<std::string>().find("vLLM refuses") != std::string::npos;
  CHECK(named);
}

TEST_CASE("exclusion patterns: a wildcard after the layer number spans layers, huge lists refused",
          "[quantization]") {
  // SYNTHETIC: a 24-layer dense model in FP8 with one exclusion.
  auto with_ignore = [](const std::string& layers, const std::string& ignore) {
    return tpnet::parse_hf_config(
        R"({"hidden_size": 1024, "num_hidden_layers": )" + layers +
            R"(, "vocab_size": 32000, "num_attention_heads": 16, "intermediate_size": 4096,
            "torch_dtype": "bfloat16", "quantization_config": {"quant_method": "fp8",
            "ignore": )" +
            ignore + "}}",
        "synthetic.json");
  };
  // "model.layers.1*" is layers 1 and 10-19: 11 of 24 MLPs stay BF16.
  const ModelArch m = with_ignore("24", R"(["model.layers.1*"])");
  CHECK_THAT(m.bits_of(WeightPart::dense_ffn), WithinAbs((11 * 16.0 + 13 * 8.0) / 24, 1e-9));
  // "model.layers.1.mlp" is layer 1 only.
  const ModelArch one = with_ignore("24", R"(["model.layers.1.mlp"])");
  CHECK_THAT(one.bits_of(WeightPart::dense_ffn), WithinAbs((16.0 + 23 * 8.0) / 24, 1e-9));
  CHECK(one.bits_of(WeightPart::attention) == 8.0);
  // Wildcards are matched against every layer: bounded work.
  CHECK_THROWS_WITH(with_ignore("100000", R"(["*.a", "*.b", "*.c"])"),
                    ContainsSubstring("wildcard module patterns over 100000 layers"));
}

namespace {

/// SYNTHETIC: a small MoE (layer 0 dense) with an NVFP4 compressed-tensors
/// group and the given exclusion list.
ModelArch moe_ignoring(const std::string& ignore) {
  const std::string text = R"({"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
  "hidden_size": 1024, "intermediate_size": 4096, "moe_intermediate_size": 512,
  "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 64, "num_hidden_layers": 4,
  "num_experts": 8, "num_experts_per_tok": 2, "vocab_size": 32000, "torch_dtype": "bfloat16",
  "tie_word_embeddings": false, "mlp_only_layers": [0],
  "quantization_config": {"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
    "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4,
      "type": "float", "strategy": "tensor_group", "group_size": 16, "symmetric": true}}},
    "ignore": )" + ignore + "}}";
  return tpnet::parse_hf_config(text, "ignoring/config.json");
}

}  // namespace

TEST_CASE(
    "exclusion regexes read as literals name what std::regex names: substrings, a group of "
    "alternatives, a name's end",
    "[quantization][hf]") {
  auto bits = [](const std::string& ignore) {
    const ModelArch m = moe_ignoring(ignore);
    std::string out;
    for (const WeightPart part : tpnet::kWeightParts) {
      out += std::string(to_string(part)) + "=" + std::to_string(m.bits_of(part)) + " ";
    }
    return out;
  };
  // Each pair: a form matched as literals, and one only std::regex reads.
  const std::pair<const char*, const char*> same[] = {
      {R"(["re:.*self_attn.*"])", R"(["re:.*self_att[n].*"])"},
      {R"(["re:.*mlp\\.(gate|up|down)_proj.*"])", R"(["re:.*mlp\\.(gat[e]|up|down)_proj.*"])"},
      {R"(["re:.*o_proj$"])", R"(["re:.*o_pro[j]$"])"},
      {R"(["re:model\\.layers\\.0\\..*"])", R"(["re:model\\.layers\\.[0]\\..*"])"},
      {R"(["re:.*experts.*"])", R"(["re:.*expert[s].*"])"},
  };
  for (const auto& [literal, general] : same) {
    INFO(literal << " / " << general);
    CHECK(bits(literal) == bits(general));
    CHECK(bits(literal) != bits("[]"));  // each names something
  }
  // Attention under an exclusion stays 16-bit, the experts 4.5.
  const ModelArch m = moe_ignoring(R"(["re:.*self_attn.*"])");
  CHECK(m.bits_of(WeightPart::attention) == 16.0);
  CHECK(m.bits_of(WeightPart::routed_experts) == 4.5);
  // A regex std::regex refuses names nothing, as before.
  CHECK(bits(R"(["re:.*self_attn(.*"])") == bits("[]"));
}
