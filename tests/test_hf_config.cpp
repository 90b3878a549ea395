// Hugging Face config.json import: the families' key names, nested text
// models, quantization, and every bad input as one InputError naming the file,
// the line and the key.

#include <filesystem>
#include <fstream>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/hf_config.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/model/params.hpp"
#include "tpnet/model/weights.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"

using namespace tpnet;
using namespace tpnet::test;

namespace {

const char* const kLlama70b = R"({
  "architectures": ["LlamaForCausalLM"],
  "hidden_act": "silu",
  "hidden_size": 8192,
  "intermediate_size": 28672,
  "max_position_embeddings": 131072,
  "model_type": "llama",
  "num_attention_heads": 64,
  "num_hidden_layers": 80,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05,
  "rope_scaling": {"factor": 8.0, "rope_type": "llama3"},
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "vocab_size": 128256
}
)";

const char* const kDeepSeekV3 = R"({
  "architectures": ["DeepseekV3ForCausalLM"],
  "first_k_dense_replace": 3,
  "hidden_size": 7168,
  "intermediate_size": 18432,
  "kv_lora_rank": 512,
  "model_type": "deepseek_v3",
  "moe_intermediate_size": 2048,
  "n_routed_experts": 256,
  "n_shared_experts": 1,
  "num_attention_heads": 128,
  "num_experts_per_tok": 8,
  "num_hidden_layers": 61,
  "num_key_value_heads": 128,
  "num_nextn_predict_layers": 1,
  "q_lora_rank": 1536,
  "qk_nope_head_dim": 128,
  "qk_rope_head_dim": 64,
  "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                          "weight_block_size": [128, 128]},
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "v_head_dim": 128,
  "vocab_size": 129280
}
)";

/// gpt-oss-120b: 36 layers alternating sliding (128 tokens) and full attention.
std::string gpt_oss_120b() {
  std::string types;
  for (int i = 0; i < 36; ++i) {
    types += std::string(i == 0 ? "" : ", ") +
             (i % 2 == 0 ? "\"sliding_attention\"" : "\"full_attention\"");
  }
  return R"({
  "architectures": ["GptOssForCausalLM"],
  "attention_bias": true,
  "experts_per_token": 4,
  "head_dim": 64,
  "hidden_size": 2880,
  "intermediate_size": 2880,
  "layer_types": [)" +
         types + R"(],
  "model_type": "gpt_oss",
  "num_attention_heads": 64,
  "num_experts_per_tok": 4,
  "num_hidden_layers": 36,
  "num_key_value_heads": 8,
  "num_local_experts": 128,
  "quantization_config": {
    "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                               "model.embed_tokens", "lm_head"],
    "quant_method": "mxfp4"
  },
  "sliding_window": 128,
  "tie_word_embeddings": false,
  "vocab_size": 201088
}
)";
}

const char* const kQwen3Next = R"({
  "architectures": ["Qwen3NextForCausalLM"],
  "decoder_sparse_step": 1,
  "full_attention_interval": 4,
  "head_dim": 256,
  "hidden_size": 2048,
  "intermediate_size": 5120,
  "linear_conv_kernel_dim": 4,
  "linear_key_head_dim": 128,
  "linear_num_key_heads": 16,
  "linear_num_value_heads": 32,
  "linear_value_head_dim": 128,
  "mlp_only_layers": [],
  "model_type": "qwen3_next",
  "moe_intermediate_size": 512,
  "num_attention_heads": 16,
  "num_experts": 512,
  "num_experts_per_tok": 10,
  "num_hidden_layers": 48,
  "num_key_value_heads": 2,
  "rope_scaling": null,
  "shared_expert_intermediate_size": 512,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "use_sliding_window": false,
  "vocab_size": 151936
}
)";

std::string error_of(const std::string& text, const std::string& origin = "cfg/config.json") {
  try {
    (void)parse_hf_config(text, origin);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

/// kLlama70b with one line's text replaced.
std::string llama_with(const std::string& from, const std::string& to) {
  std::string text = kLlama70b;
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("a Llama-3.1-70B config.json sends (2 x 80 + 1) x 8192 x 2 x 1.75 bytes per token at TP8",
          "[hf][golden]") {
  const ModelArch m = parse_hf_config(kLlama70b, "models/llama-3.1-70b/config.json");
  CHECK(m.name == "llama-3.1-70b");  // the folder, as there is no _name_or_path
  CHECK(m.hidden_size == 8192);
  CHECK(m.num_layers() == 80);
  CHECK(m.vocab_size == 128256);
  CHECK(attention_of(m).q_heads == 64);
  CHECK(attention_of(m).kv_heads == 8);
  CHECK(attention_of(m).head_dim == 128);
  CHECK(dense_width_of(m) == 28672);
  CHECK(attention_label(m.layers) == "gqa");
  CHECK_FALSE((first_moe(m.layers) != nullptr));
  CHECK_FALSE(m.tie_word_embeddings);
  CHECK(m.torch_dtype == "bfloat16");
  CHECK(m.bits_per_weight == 16);
  EngineConfig tp8;
  tp8.tensor_parallel_size = 8;
  CHECK(bytes_per_prompt_token(m, tp8).count() == (2 * 80 + 1) * 8192 * 2 * 1.75);
  // No count in config.json: total and active are the estimate, and say so.
  CHECK(m.total_params == estimate_params(m).total_params());
  CHECK_THAT(m.total_params, WithinRel(70.6e9, 0.005));
  CHECK(m.assumptions.count("total_params") == 1);
}

TEST_CASE("a DeepSeek-V3 config.json gives MLA, MoE, one MTP layer and FP8", "[hf][golden]") {
  const ModelArch m = parse_hf_config(kDeepSeekV3, "deepseek-v3.json");
  CHECK(m.name == "deepseek-v3");  // the file's stem
  CHECK(attention_label(m.layers) == "mla");
  REQUIRE(attention_of(m).latent);
  CHECK(attention_of(m).mla.kv_lora_rank == 512);
  CHECK(attention_of(m).mla.q_lora_rank == 1536);
  CHECK(attention_of(m).mla.qk_rope_head_dim == 64);
  CHECK(attention_of(m).mla.qk_nope_head_dim == 128);
  CHECK(attention_of(m).mla.v_head_dim == 128);
  REQUIRE((first_moe(m.layers) != nullptr));
  CHECK(moe_of(m).routed_experts == 256);
  CHECK(moe_of(m).experts_per_token == 8);
  CHECK(moe_of(m).shared_experts == 1);
  CHECK(moe_of(m).expert_intermediate_size == 2048);
  CHECK(tally_layers(m).dense == 3);
  CHECK(dense_width_of(m) == 18432);
  CHECK(m.mtp_layers == 1);
  CHECK(m.quantization == "fp8");
  CHECK(m.bits_per_weight == 8);
  CHECK_THAT(m.total_params, WithinRel(671e9, 0.005));
  CHECK_THAT(m.active_params, WithinRel(37e9, 0.02));
  // Same shapes as the catalog entry, so the same estimate.
  CHECK(m.total_params == estimate_params(builtin_model("deepseek-v3")).total_params());
}

TEST_CASE("an index_topk makes DeepSeek-V3.2-Exp sparse attention with an indexer", "[hf]") {
  std::string text = kDeepSeekV3;
  text.replace(text.find("\"first_k_dense_replace\""), 0,
               "\"index_topk\": 2048, \"index_n_heads\": 64, \"index_head_dim\": 128,\n  ");
  const ModelArch m = parse_hf_config(text, "v32.json");
  CHECK(attention_label(m.layers) == "sparse");
  CHECK(attention_of(m).indexer.top_k == 2048);
  CHECK(attention_of(m).indexer.heads == 64);
  CHECK(attention_of(m).latent);
  CHECK(m.total_params == estimate_params(builtin_model("deepseek-v3.2-exp")).total_params());
}

TEST_CASE("a gpt-oss-120b config.json: alternating sliding windows and MXFP4 experts", "[hf]") {
  const ModelArch m = parse_hf_config(gpt_oss_120b(), "gpt-oss-120b/config.json");
  CHECK(attention_label(m.layers) == "sliding-window");
  CHECK(mixer_of(m, Mixer::sliding_window).attention.window == 128);
  CHECK(tally_layers(m.layers).sliding == 18);
  CHECK(attention_of(m).head_dim == 64);
  REQUIRE((first_moe(m.layers) != nullptr));
  CHECK(moe_of(m).routed_experts == 128);
  CHECK(moe_of(m).experts_per_token == 4);
  // Mixtral-style names: intermediate_size is one expert's width, no dense FFN.
  CHECK(moe_of(m).expert_intermediate_size == 2880);
  CHECK(dense_width_of(m) == 0);
  CHECK(m.quantization == "mxfp4");
  // Experts at 4.25 bits, the 2.1B other weights at BF16: 4.46 bits on average.
  CHECK(m.bits_per_weight == 4.25);
  CHECK(m.bits_of(WeightPart::routed_experts) == 4.25);
  CHECK(m.bits_of(WeightPart::attention) == 16.0);
  CHECK_THAT(effective_bits_per_weight(m), WithinAbs(4.46, 0.01));
  CHECK_THAT(m.total_params, WithinRel(117e9, 0.005));
  CHECK_THAT(m.active_params, WithinRel(5.1e9, 0.01));
  CHECK(m.assumptions.at("bits_per_weight").find("mxfp4") != std::string::npos);
}

TEST_CASE("a Qwen3-Next config.json: 36 Gated DeltaNet layers, 512 experts and a shared one",
          "[hf]") {
  const ModelArch m = parse_hf_config(kQwen3Next, "Qwen3-Next-80B-A3B/config.json");
  CHECK(attention_label(m.layers) == "hybrid-linear");
  CHECK(tally_layers(m.layers).linear == 36);
  REQUIRE((first_mixer(m.layers, Mixer::linear_attention) != nullptr));
  CHECK(mixer_of(m, Mixer::linear_attention).linear.key_heads == 16);
  CHECK(mixer_of(m, Mixer::linear_attention).linear.value_heads == 32);
  CHECK(mixer_of(m, Mixer::linear_attention).linear.conv_kernel == 4);
  CHECK(tally_layers(m.layers).sliding == 0);  // sliding_window null, use_sliding_window false
  REQUIRE((first_moe(m.layers) != nullptr));
  CHECK(moe_of(m).routed_experts == 512);
  CHECK(moe_of(m).shared_experts == 1);
  CHECK(moe_of(m).shared_expert_intermediate_size == 512);
  CHECK(tally_layers(m).dense == 0);
  CHECK_THAT(m.total_params, WithinRel(80e9, 0.015));
  SECTION("layer_types names the same layers") {
    std::string types;
    for (int i = 0; i < 48; ++i) {
      types += std::string(i == 0 ? "" : ", ") +
               ((i + 1) % 4 == 0 ? "\"full_attention\"" : "\"linear_attention\"");
    }
    std::string text = kQwen3Next;
    text.replace(text.find("\"full_attention_interval\": 4"), 28,
                 "\"layer_types\": [" + types + "]");
    CHECK(tally_layers(parse_hf_config(text, "q.json").layers).linear == 36);
  }
}

TEST_CASE("Qwen MoE configs mark dense layers by mlp_only_layers and decoder_sparse_step", "[hf]") {
  std::string text = kQwen3Next;
  text.replace(text.find("\"mlp_only_layers\": []"), 21, "\"mlp_only_layers\": [0, 2]");
  CHECK(tally_layers(parse_hf_config(text, "q.json")).dense == 2);
  text.replace(text.find("\"decoder_sparse_step\": 1"), 24, "\"decoder_sparse_step\": 2");
  // Odd layer numbers (1, 3, ...) stay sparse; layer 0 and 2 are already dense.
  CHECK(tally_layers(parse_hf_config(text, "q.json")).dense == 24);
}

TEST_CASE("a multimodal config nests the text model under text_config", "[hf]") {
  const std::string text = R"({
  "architectures": ["Llama4ForConditionalGeneration"],
  "_name_or_path": "example/vision-language-model",
  "text_config": )" + std::string(kLlama70b) +
                           R"(,
  "vision_config": {"hidden_size": 1408, "num_hidden_layers": 34}
}
)";
  const ModelArch m = parse_hf_config(text, "vlm/config.json");
  CHECK(m.name == "example/vision-language-model");
  CHECK(m.hidden_size == 8192);  // the text model's, not the vision tower's
  CHECK(m.num_layers() == 80);
  SECTION("errors name the nested key") {
    std::string bad = text;
    bad.replace(bad.find("\"num_hidden_layers\": 80"), 23, "\"num_hidden_layers\": -80");
    CHECK_THAT(error_of(bad),
               ContainsSubstring("text_config.num_hidden_layers: -80 is out of range"));
  }
}

TEST_CASE("quantization_config sets bits per weight, else torch_dtype does", "[hf]") {
  auto bits = [](const std::string& quant) {
    return parse_hf_config(
               llama_with("\"tie_word_embeddings\": false,",
                          R"("tie_word_embeddings": false, "quantization_config": )" + quant + ","),
               "q.json")
        .bits_per_weight;
  };
  CHECK(bits(R"({"quant_method": "fp8"})") == 8);
  CHECK(bits(R"({"quant_method": "modelopt", "quant_algo": "NVFP4"})") == 4.5);
  CHECK(bits(R"({"quant_method": "modelopt", "quant_algo": "FP8"})") == 8);
  CHECK(bits(R"({"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized"})") == 4.5);
  CHECK(bits(R"({"quant_method": "mxfp4"})") == 4.25);  // a dense model: every weight
  CHECK(bits(R"({"quant_method": "awq", "bits": 4, "group_size": 128})") == 4.25);
  CHECK(parse_hf_config(llama_with("bfloat16", "float32"), "f.json").bits_per_weight == 32);
  CHECK(parse_hf_config(llama_with("bfloat16", "float16"), "f.json").bits_per_weight == 16);
  // transformers >= 4.56 writes "dtype".
  CHECK(parse_hf_config(llama_with("\"torch_dtype\": \"bfloat16\"", "\"dtype\": \"float32\""),
                        "f.json")
            .bits_per_weight == 32);
}

TEST_CASE("a missing tie_word_embeddings is taken as untied and marked", "[hf]") {
  const ModelArch m = parse_hf_config(llama_with("\"tie_word_embeddings\": false,", ""), "t.json");
  CHECK_FALSE(m.tie_word_embeddings);
  CHECK(m.assumptions.count("tie_word_embeddings") == 1);
  CHECK_THAT(m.assumptions.at("tie_word_embeddings"),
             ContainsSubstring("the default of transformers' llama config"));
  CHECK(parse_hf_config(llama_with("false", "true"), "t.json").tie_word_embeddings);
}

TEST_CASE("a missing tie_word_embeddings takes transformers' default for the model_type", "[hf]") {
  // SYNTHETIC: Llama-70B's shapes under other model_types.
  auto typed = [](std::string text, const std::string& type) {
    return text.replace(text.find("\"llama\""), 7, "\"" + type + "\"");
  };
  const std::string untied = llama_with("\"tie_word_embeddings\": false,", "");
  // Gemma's config classes default to tied (GemmaConfig, Gemma2Config, Gemma3TextConfig).
  for (const char* type : {"gemma", "gemma2", "gemma3_text"}) {
    INFO(type);
    const ModelArch m = parse_hf_config(typed(untied, type), "t.json");
    CHECK(m.tie_word_embeddings);
    CHECK_THAT(m.assumptions.at("tie_word_embeddings"),
               ContainsSubstring(std::string("true (the LM head is the input embedding table), "
                                             "the default of transformers' ") +
                                 type + " config"));
    CHECK(estimate_params(m).total.lm_head == 0.0);  // no LM head of its own
  }
  // A model_type with no default in tpnet's table stays untied, and says so.
  const ModelArch other = parse_hf_config(typed(untied, "my_custom_lm"), "t.json");
  CHECK_FALSE(other.tie_word_embeddings);
  CHECK_THAT(other.assumptions.at("tie_word_embeddings"),
             ContainsSubstring("no default for model_type 'my_custom_lm'"));
  // The file's own value wins over the table.
  const ModelArch stated = parse_hf_config(typed(kLlama70b, "gemma2"), "t.json");
  CHECK_FALSE(stated.tie_word_embeddings);
  CHECK(stated.assumptions.count("tie_word_embeddings") == 0);
}

TEST_CASE("without layer_types or a pattern, sliding layers follow transformers' class default",
          "[hf]") {
  // SYNTHETIC: Llama-70B's 80 layers with a 4096-token window under other
  // model_types; `extra` is spliced in after the window.
  auto windowed = [](const std::string& type, const std::string& extra = "") {
    std::string text =
        llama_with(R"("model_type": "llama")",
                   R"("model_type": ")" + type + R"(", "sliding_window": 4096)" + extra);
    return parse_hf_config(text, "w.json");
  };
  struct Default {
    const char* type;
    int pattern;  // layer i is global when (i + 1) % pattern == 0
    int sliding;  // of 80
  };
  // Gemma2Config and GptOssConfig alternate, layer 0 sliding; Gemma3TextConfig
  // keeps one global layer in 6, Cohere2Config one in 4.
  for (const Default& d :
       {Default{"gemma2", 2, 40}, Default{"gpt_oss", 2, 40}, Default{"gemma3_text", 6, 67},
        Default{"gemma3", 6, 67}, Default{"cohere2", 4, 60}}) {
    INFO(d.type);
    int sliding = 0;
    for (int i = 0; i < 80; ++i) sliding += (i + 1) % d.pattern != 0 ? 1 : 0;
    REQUIRE(sliding == d.sliding);
    const ModelArch m = windowed(d.type);
    CHECK(mixer_of(m, Mixer::sliding_window).attention.window == 4096);
    CHECK(tally_layers(m.layers).sliding == d.sliding);
    CHECK(attention_label(m.layers) == "sliding-window");
    REQUIRE(m.assumptions.count("sliding_window_pattern") == 1);
    CHECK_THAT(m.assumptions.at("sliding_window_pattern"),
               ContainsSubstring(std::to_string(d.pattern) + ", the default of transformers' " +
                                 d.type + " config"));
  }
  SECTION("the file's own pattern or layer_types wins, with nothing assumed") {
    const ModelArch every_fourth = windowed("gemma3_text", R"(, "sliding_window_pattern": 4)");
    CHECK(tally_layers(every_fourth.layers).sliding == 60);
    CHECK(every_fourth.assumptions.count("sliding_window_pattern") == 0);
    std::string types;
    for (int i = 0; i < 80; ++i)
      types += i == 0 ? R"("full_attention")" : R"(, "sliding_attention")";
    const ModelArch listed = windowed("gemma3_text", R"(, "layer_types": [)" + types + "]");
    CHECK(tally_layers(listed.layers).sliding == 79);
    CHECK(listed.assumptions.count("sliding_window_pattern") == 0);
  }
  SECTION("a model_type without a default slides on every layer, as Mistral's configs do") {
    const ModelArch mistral = windowed("mistral");
    CHECK(tally_layers(mistral.layers).sliding == 80);
    CHECK(mistral.assumptions.count("sliding_window_pattern") == 0);
  }
  SECTION("no window: the class's own, marked; use_sliding_window false: full attention") {
    // Gemma3TextConfig's sliding_window defaults to 4096 (configuration_gemma3.py).
    const ModelArch no_window =
        parse_hf_config(llama_with("\"llama\"", "\"gemma3_text\""), "w.json");
    CHECK(tally_layers(no_window.layers).sliding == 67);
    CHECK(mixer_of(no_window, Mixer::sliding_window).attention.window == 4096);
    CHECK(no_window.assumptions.count("sliding_window") == 1);
    const ModelArch llama = parse_hf_config(llama_with("\"llama\"", "\"llama\""), "w.json");
    CHECK(tally_layers(llama.layers).sliding == 0);
    CHECK(attention_label(llama.layers) == "gqa");
    const ModelArch off = windowed("gemma2", R"(, "use_sliding_window": false)");
    CHECK(tally_layers(off.layers).sliding == 0);
    CHECK(off.assumptions.count("sliding_window_pattern") == 0);
  }
  SECTION("Qwen2/Qwen3: no window unless use_sliding_window, then from max_window_layers on") {
    // Qwen2Config(use_sliding_window=False, max_window_layers=28): a stated
    // window alone is not used; when it is, layers 0..max_window_layers-1
    // keep every token.
    for (const char* type : {"qwen2", "qwen2_moe", "qwen3", "qwen3_moe"}) {
      INFO(type);
      const ModelArch unused = windowed(type);
      CHECK(tally_layers(unused.layers).sliding == 0);
      CHECK(attention_label(unused.layers) == "gqa");
      REQUIRE(unused.assumptions.count("use_sliding_window") == 1);
      CHECK_THAT(unused.assumptions.at("use_sliding_window"),
                 ContainsSubstring("false, the default of transformers'"));
      const ModelArch on = windowed(type, R"(, "use_sliding_window": true)");
      CHECK(tally_layers(on.layers).sliding == 80 - 28);
      CHECK(on.assumptions.count("max_window_layers") == 1);
      const ModelArch stated =
          windowed(type, R"(, "use_sliding_window": true, "max_window_layers": 70)");
      CHECK(tally_layers(stated.layers).sliding == 10);
      CHECK(stated.assumptions.count("max_window_layers") == 0);
      const ModelArch all_full =
          windowed(type, R"(, "use_sliding_window": true, "max_window_layers": 80)");
      CHECK(tally_layers(all_full.layers).sliding == 0);
    }
  }
}

TEST_CASE("bad config.json files give one error naming the file, line and key", "[hf][bad-input]") {
  SECTION("empty file") {
    CHECK_THAT(error_of(""), ContainsSubstring("cfg/config.json: is empty"));
    CHECK_THAT(error_of("  \n\t\n"), ContainsSubstring("cfg/config.json: is empty"));
  }
  SECTION("truncated JSON") {
    const std::string text = kLlama70b;
    CHECK_THAT(error_of(text.substr(0, text.size() / 2)),
               ContainsSubstring("cfg/config.json:") && ContainsSubstring("is not valid JSON"));
  }
  SECTION("not JSON") {
    CHECK_THAT(error_of("hidden_size: 8192\n"),
               ContainsSubstring("cfg/config.json:1: is not JSON"));
    CHECK_THAT(error_of("\n<html>404</html>"), ContainsSubstring("cfg/config.json:2: is not JSON"));
    CHECK_THAT(error_of("[1, 2]"), ContainsSubstring("is not JSON"));
  }
  SECTION("missing hidden_size: an unknown architecture, never a default") {
    CHECK_THAT(error_of(llama_with("\"hidden_size\": 8192,", "")),
               ContainsSubstring("cfg/config.json:1: hidden_size: required key is missing "
                                 "(architecture LlamaForCausalLM)"));
    CHECK_THAT(error_of(R"({"model_type": "whisper", "d_model": 1280})"),
               ContainsSubstring("hidden_size: required key is missing (architecture whisper)"));
  }
  SECTION("a key twice, in a small object and in a large one") {
    // Up to 16 keys are compared pairwise, more are hashed: both name the lines.
    CHECK_THAT(
        error_of(
            llama_with("\"hidden_size\": 8192,", "\"hidden_size\": 8192,\n\"vocab_size\": 1,")),
        ContainsSubstring("key 'vocab_size' appears twice in one JSON object, at lines 5 and 16"));
    std::string many;
    for (int i = 0; i < 20; ++i) many += "\"extra_" + std::to_string(i) + "\": null,\n";
    CHECK_THAT(
        error_of(
            llama_with("\"hidden_size\": 8192,", many + "\"hidden_size\": 8192,\n\"extra_3\": 1,")),
        ContainsSubstring("key 'extra_3' appears twice in one JSON object, at lines 7 and 25"));
  }
  SECTION("a string where a number belongs") {
    CHECK_THAT(error_of(llama_with("\"hidden_size\": 8192", "\"hidden_size\": \"8192\"")),
               ContainsSubstring(
                   "cfg/config.json:4: hidden_size: expected a number, found the string \"8192\""));
    CHECK_THAT(error_of(llama_with("\"num_hidden_layers\": 80", "\"num_hidden_layers\": \"many\"")),
               ContainsSubstring(":9: num_hidden_layers: expected a number"));
    CHECK_THAT(error_of(llama_with("\"vocab_size\": 128256", "\"vocab_size\": [128256]")),
               ContainsSubstring("vocab_size: expected a number, found a list"));
  }
  SECTION("huge, negative and fractional values") {
    CHECK_THAT(
        error_of(llama_with("\"num_hidden_layers\": 80", "\"num_hidden_layers\": 1e12")),
        ContainsSubstring(":9: num_hidden_layers: 1e12 is out of range; allowed 1 to 100000"));
    CHECK_THAT(error_of(llama_with("\"hidden_size\": 8192", "\"hidden_size\": -8192")),
               ContainsSubstring(":4: hidden_size: -8192 is out of range"));
    CHECK_THAT(error_of(llama_with("\"vocab_size\": 128256",
                                   "\"vocab_size\": 99999999999999999999999999")),
               ContainsSubstring("vocab_size: 99999999999999999999999999 is out of range"));
    CHECK_THAT(error_of(llama_with("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 0.5")),
               ContainsSubstring("num_key_value_heads: '0.5' must be a whole number"));
  }
  SECTION("inconsistent shapes") {
    CHECK_THAT(error_of(llama_with("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 128")),
               ContainsSubstring(":10: num_key_value_heads: must not exceed num_attention_heads"));
    CHECK_THAT(error_of(llama_with("\"intermediate_size\": 28672,", "")),
               ContainsSubstring("intermediate_size: required key is missing"));
    std::string no_width = kDeepSeekV3;
    no_width.replace(no_width.find("\"moe_intermediate_size\": 2048,"), 30, "");
    CHECK_THAT(error_of(no_width), ContainsSubstring("moe_intermediate_size: required key"));
    std::string few_types = gpt_oss_120b();
    few_types.replace(few_types.find("\"sliding_attention\", "), 21, "");
    CHECK_THAT(error_of(few_types),
               ContainsSubstring("layer_types: expected a list of 36 entries, one per layer"));
    std::string no_linear = kQwen3Next;
    no_linear.replace(no_linear.find("\"linear_num_key_heads\": 16,"), 27, "");
    CHECK_THAT(error_of(no_linear), ContainsSubstring("linear_num_key_heads: required key"));
  }
  SECTION("unknown precision") {
    CHECK_THAT(error_of(llama_with("bfloat16", "bfloat17")),
               ContainsSubstring("torch_dtype: 'bfloat17' is not a dtype tpnet knows"));
    CHECK_THAT(error_of(llama_with("\"tie_word_embeddings\": false,",
                                   "\"quantization_config\": {\"quant_method\": \"magic\"},")),
               ContainsSubstring("quantization_config.quant_method: 'magic' is not a "
                                 "quantization tpnet knows"));
    CHECK_THAT(error_of(llama_with("\"tie_word_embeddings\": false,",
                                   "\"quantization_config\": \"fp8\",")),
               ContainsSubstring("quantization_config: expected a JSON object"));
    CHECK_THAT(error_of(llama_with("\"tie_word_embeddings\": false,",
                                   "\"quantization_config\": {\"quant_method\": \"modelopt\"},")),
               ContainsSubstring("quantization_config.quant_algo: required key is missing"));
    CHECK_THAT(
        error_of(llama_with("\"tie_word_embeddings\": false,",
                            "\"quantization_config\": {\"quant_method\": \"modelopt\", "
                            "\"quant_algo\": \"W4A16\"},")),
        ContainsSubstring("quantization_config.quant_algo: 'W4A16' is not a modelopt format"));
    CHECK_THAT(error_of(llama_with("\"tie_word_embeddings\": false,",
                                   "\"quantization_config\": {\"quant_method\": "
                                   "\"compressed-tensors\"},")),
               ContainsSubstring("quantization_config.format: required key is missing"));
    CHECK_THAT(error_of(llama_with("\"tie_word_embeddings\": false,",
                                   "\"quantization_config\": {\"bits\": 4},")),
               ContainsSubstring("quantization_config.quant_method: required key is missing"));
  }
  SECTION("a flag that is not true or false") {
    CHECK_THAT(error_of(llama_with("\"tie_word_embeddings\": false", "\"tie_word_embeddings\": 1")),
               ContainsSubstring(":13: tie_word_embeddings: expected true or false"));
  }
}

TEST_CASE("config.json files load from a path or their folder", "[hf]") {
  const std::string dir = std::string(TPNET_SOURCE_DIR) + "/examples/hf/llama-3.1-70b";
  const ModelArch from_file = load_hf_config(dir + "/config.json");
  const ModelArch from_folder = load_hf_config(dir);
  CHECK(from_file.name == "llama-3.1-70b");
  CHECK(from_folder.name == "llama-3.1-70b");
  CHECK(from_folder.total_params == from_file.total_params);
  // --model takes either.
  CHECK(resolve_model(dir).hidden_size == 8192);
  CHECK(resolve_model(dir + "/config.json").hidden_size == 8192);
  const ModelArch v3 = resolve_model(std::string(TPNET_SOURCE_DIR) + "/examples/hf/deepseek-v3");
  CHECK(v3.total_params == estimate_params(builtin_model("deepseek-v3")).total_params());
  CHECK(v3.assumptions.count("tie_word_embeddings") == 0);  // the file states it

  SECTION("a missing file or a folder without config.json is named") {
    CHECK_THAT(std::string([] {
                 try {
                   (void)resolve_model("/nonexistent/config.json");
                 } catch (const InputError& e) {
                   return std::string(e.what());
                 }
                 return std::string("(no error)");
               }()),
               ContainsSubstring("/nonexistent/config.json: no such file"));
    const auto empty_dir = std::filesystem::temp_directory_path() / "tpnet_hf_empty_dir";
    std::filesystem::create_directories(empty_dir);
    CHECK_THROWS_WITH(resolve_model(empty_dir.string()),
                      ContainsSubstring("is a folder without a config.json"));
    std::filesystem::remove(empty_dir);
  }
}
