// Layer plans read from each family's own keys (issue 26 s.4, issue 27 item 5),
// on the real config.json files of tests/data/hf (tests/data/hf/SOURCES):
// Kimi-Linear's KDA/MLA layers, Llama-3.2-Vision's cross-attention layers,
// ERNIE-4.5's MoE keys, the MTP keys of Qwen3.5/3.6 and MiniMax, and the KV
// cache tokens of sliding-window models. Derivations: docs/formulas.md s.26.

#include <cmath>
#include <string>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"
#include "corpus_checkpoint.hpp"
#include "model_fixtures.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/io/hf_config.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/model/kv_cache.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/model/params.hpp"
#include "tpnet/model/prefill_gemms.hpp"
#include "tpnet/model/weights.hpp"
#include "tpnet/usecase/memory.hpp"

using Catch::Matchers::WithinRel;
using namespace tpnet;
using namespace tpnet::test;

namespace {

MemoryRequest at_tp(int tp) {
  MemoryRequest in;
  in.layout = ParallelLayout{tp, 1, 1};
  in.node = builtin_node("dgx-spark");
  return in;
}

bool warns(const ModelArch& m, const std::string& text) {
  for (const auto& w : m.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

/// ERNIE-4.5-300B-A47B-PT's shapes. Its config.json is not in the stored
/// index, so this is not the file: the keys and values are those public code
/// quotes for the 300B model (Ascend's atb_llm ernie_moe router test), with
/// the architecture and model_type the HF checkpoints name (transformers'
/// Ernie4_5_MoeForCausalLM, ernie4_5_moe). SYNTHETIC.
std::string ernie_300b(const std::string& experts_key = "moe_num_experts",
                       const std::string& type = "ernie4_5_moe") {
  return R"({"architectures": ["Ernie4_5_MoeForCausalLM"], "model_type": ")" + type +
         R"(", "hidden_act": "silu", "hidden_size": 8192, "intermediate_size": 28672,
  "max_position_embeddings": 131072, "num_attention_heads": 64, "num_key_value_heads": 8,
  "num_hidden_layers": 54, "rms_norm_eps": 1e-05, "vocab_size": 103424,
  "rope_theta": 500000.0, ")" +
         experts_key + R"(": 64, "moe_num_shared_experts": 0,
  "moe_layer_start_index": 3, "moe_layer_end_index": 53, "moe_intermediate_size": 3584,
  "moe_gate": "topk_fused", "moe_k": 8, "moe_layer_interval": 1, "tie_word_embeddings": true,
  "torch_dtype": "bfloat16"})";
}

}  // namespace

TEST_CASE("Kimi-Linear-48B-A3B: 20 KDA layers and 7 MLA keep 7 x 576 x 2 bytes of KV a token",
          "[layer-plan][hf][memory][golden]") {
  // Read as 27 MLA layers before: 27 x 1,152 = 31.1 KB a token.
  const ModelArch m = checkpoint("moonshotai__Kimi-Linear-48B-A3B-Instruct");
  const LayerTally t = tally_layers(m);
  CHECK(t.linear == 20);
  CHECK(t.attention == 7);
  CHECK(t.dense == 1);
  CHECK(t.moe == 26);
  CHECK(attention_label(m.layers) == "mla");
  REQUIRE(first_mixer(m.layers, Mixer::linear_attention) != nullptr);
  CHECK(mixer_of(m, Mixer::linear_attention).linear.gate_rank == 128);
  REQUIRE(first_moe(m.layers) != nullptr);
  CHECK(moe_of(m).shared_experts == 1);  // num_shared_experts
  for (const int tp : {1, 2, 4}) {
    INFO("TP" << tp);
    // The MLA latent (512 + 64) is kept whole on every rank.
    CHECK(kv_bytes_per_token(m, tp, 2).count() == 7.0 * 576 * 2);
  }
  // KDA's state per sequence and layer: 32 heads of 128 x 128, and the
  // convolution's last 3 inputs over q, k and v (3 x 4,096), in BF16.
  const SequenceState s = sequence_state(m, 1, 2, 0);
  CHECK(s.linear_state.count() == 20.0 * (32 * 128 * 128 + 3 * 3 * 4096) * 2);
  CHECK(s.linear_state.count() == 22446080.0);
  // The checkpoint's safetensors hold 49,122,681,728 values, norms included
  // (docs/formulas.md s.26.1); the card's round "48B" and "3B activated".
  CHECK_THAT(m.total_params, WithinRel(49.12e9, 0.01));
  CHECK_THAT(m.active_params, WithinRel(3.0e9, 0.05));
}

TEST_CASE(
    "Llama-3.2-90B-Vision: 20 cross-attention layers keep no KV a text token, 163,840 "
    "bytes at TP2",
    "[layer-plan][hf][memory][golden]") {
  const ModelArch m = checkpoint("meta-llama__Llama-3.2-90B-Vision-Instruct");
  const LayerTally t = tally_layers(m);
  CHECK(t.cross == 20);
  CHECK(t.attention == 80);
  CHECK(t.reduced_blocks == 200);  // every layer still all-reduces its mixer and its FFN
  // 80 self-attention layers x K and V x 4 KV heads a rank x 128 x 2 bytes;
  // counted over all 100 layers it was 204,800.
  CHECK(kv_bytes_per_token(m, 2, 2).count() == 80.0 * 2 * 4 * 128 * 2);
  CHECK(kv_bytes_per_token(m, 2, 2).count() == 163840.0);
  // The cross-attention layers' projections are weights like any attention's.
  const ParamEstimate e = estimate_params(m);
  CHECK_THAT(e.total.attention, WithinRel(100.0 * 8192 * 128 * (2 * 64 + 2 * 8), 1e-12));
  CHECK_NOTHROW(prefill_gemm_shapes(m, 2, 4096));
  MemoryRequest in = at_tp(2);
  in.settings.max_model_len = 32768;
  in.engine.max_num_seqs = 1;
  const MemoryReport r = analyze_memory(m, in);
  CHECK(r.max_model_len_fits == true);
  for (const auto& w : r.warnings) CHECK_THAT(w, !ContainsSubstring("refuse to start"));
}

TEST_CASE("ERNIE-4.5-300B-A47B: moe_num_experts and moe_k make 51 MoE layers, 298.6B and 47.1B",
          "[layer-plan][hf][golden]") {
  // Read as a dense 47B before ("MoE FFNs 0").
  const ModelArch m = parse_hf_config(ernie_300b(), "ERNIE-4.5-300B-A47B-PT/config.json");
  REQUIRE(first_moe(m.layers) != nullptr);
  CHECK(moe_of(m).routed_experts == 64);
  CHECK(moe_of(m).experts_per_token == 8);
  CHECK(moe_of(m).shared_experts == 0);
  const LayerTally t = tally_layers(m);
  CHECK(t.dense == 3);  // layers 0-2, before moe_layer_start_index
  CHECK(t.moe == 51);
  // docs/formulas.md s.26.2: the card's 300B total, 47B active.
  CHECK_THAT(m.total_params, WithinRel(298.64e9, 0.001));
  CHECK_THAT(m.active_params, WithinRel(47.08e9, 0.001));
  CHECK_THAT(m.total_params, WithinRel(300e9, 0.01));
  CHECK_THAT(m.active_params, WithinRel(47e9, 0.01));
  CHECK(m.warnings.empty());
  // At TP8 a node holds 74.7 GB of BF16 weights, not the 11.76 GB a dense 47B gave.
  CHECK_THAT(weight_memory(m, ParallelLayout{8, 1, 1}).per_node().count(),
             WithinRel(298.64e9 * 2 / 8, 0.01));
}

TEST_CASE("MoE keys tpnet does not read are named in a warning, never a silent dense reading",
          "[layer-plan][hf]") {
  const ModelArch m =
      parse_hf_config(ernie_300b("moe_num_routed_experts"), "renamed-experts/config.json");
  CHECK(first_moe(m.layers) == nullptr);
  CHECK(warns(m, "moe_num_routed_experts"));
  CHECK(warns(m, "moe_k"));
  CHECK(warns(m, "may shape the architecture"));
  CHECK(warns(m, "0 MoE"));
}

TEST_CASE("an unknown model_type is warned about, naming the plan it assumed", "[layer-plan][hf]") {
  const ModelArch m =
      parse_hf_config(ernie_300b("moe_num_experts", "ernie9_moe"), "ernie9/config.json");
  CHECK(warns(m, "model_type 'ernie9_moe'"));
  CHECK(warns(m, "54 layers: 54 attention, 3 dense FFN, 51 MoE"));
  // Every family of the corpus is known: no such warning there.
  for (const char* folder :
       {"moonshotai__Kimi-Linear-48B-A3B-Instruct", "meta-llama__Llama-3.2-90B-Vision-Instruct",
        "nvidia__MiniMax-M2.5-NVFP4", "nvidia__Qwen3.6-27B-NVFP4"}) {
    INFO(folder);
    CHECK_FALSE(warns(checkpoint(folder), "not a family tpnet knows"));
  }
}

TEST_CASE("MTP layers are read under Qwen3.5's and MiniMax's keys", "[layer-plan][hf]") {
  CHECK(checkpoint("nvidia__Qwen3.6-27B-NVFP4").mtp_layers == 1);  // mtp_num_hidden_layers
  CHECK(checkpoint("Qwen__Qwen3.5-397B-A17B").mtp_layers == 1);
  // num_mtp_modules 3 of mtp_transformer_layers 1, use_mtp true.
  CHECK(checkpoint("nvidia__MiniMax-M2.5-NVFP4").mtp_layers == 3);
  CHECK(checkpoint("nvidia__GLM-5-NVFP4").mtp_layers == 1);  // num_nextn_predict_layers
}

TEST_CASE("drafting by MTP loads the MTP layers: GLM-5-NVFP4 holds 9.95B more at TP8",
          "[layer-plan][hf][memory][golden]") {
  const ModelArch m = checkpoint("nvidia__GLM-5-NVFP4");
  const ParamEstimate e = estimate_params(m);
  CHECK_THAT(e.mtp, WithinRel(9.95e9, 0.005));
  MemoryRequest off = at_tp(8);
  MemoryRequest on = at_tp(8);
  on.engine.num_speculative_tokens = 3;
  const MemoryReport without = analyze_memory(m, off);
  const MemoryReport with = analyze_memory(m, on);
  CHECK(without.weights.mtp.count() == 0.0);
  // The MTP layer stored as the main layers are, on average
  // (docs/formulas.md s.26.5), split over 8 ranks.
  const double expected = e.mtp * effective_bits_per_weight(m) / 8 / 8;
  CHECK_THAT(with.weights.mtp.count(), WithinRel(expected, 1e-9));
  CHECK_THAT((with.weights_bytes - without.weights_bytes).count(), WithinRel(expected, 1e-9));
  // glm-5.3's stated 753B already holds its MTP layer: no second count.
  const ModelArch glm53 = builtin_model("glm-5.3");
  MemoryRequest glm_on = at_tp(8);
  glm_on.engine.num_speculative_tokens = 4;
  CHECK(analyze_memory(glm53, glm_on).weights_bytes.count() ==
        analyze_memory(glm53, at_tp(8)).weights_bytes.count());
  // Qwen3.6-27B-NVFP4 leaves mtp* out of its quantization: its MTP layer is BF16.
  CHECK(checkpoint("nvidia__Qwen3.6-27B-NVFP4").mtp_bits_per_weight == 16.0);
}

TEST_CASE("sliding-window KV tokens count the window as the per-sequence figure does",
          "[layer-plan][memory][golden]") {
  // gemma-3-27b at TP2 read 261,341 tokens over all 62 layers while one
  // 8,192-token sequence caps 52 of them at 1,024: one answer now.
  for (const char* folder : {"google__gemma-3-27b-it", "openai__gpt-oss-120b"}) {
    INFO(folder);
    const ModelArch m = checkpoint(folder);
    const MemoryReport r = analyze_memory(m, at_tp(2));
    REQUIRE(r.kv_tokens.has_value());
    REQUIRE(r.sequence.has_value());
    const double tokens = r.kv_cache_bytes.count() * 8192.0 / r.sequence_bytes->count();
    CHECK(*r.kv_tokens == static_cast<long long>(std::floor(tokens)));
    // Whole max-model-len sequences: kv_tokens / 8192 is max_sequences, to one.
    CHECK(*r.kv_tokens / 8192 == *r.max_sequences);
  }
  // KV per token counts the layers that grow past the window: gemma-3-27b's
  // 10 global layers of 62. An 8,192-token sequence also holds the 52
  // sliding layers' 1,024-token windows: 10 + 52 / 8 layers' worth a token.
  const MemoryReport gemma = analyze_memory(checkpoint("google__gemma-3-27b-it"), at_tp(2));
  const double per_layer = 8.0 * 128 * 2 * 2;  // TP2: 8 of 16 KV heads, K and V, BF16
  CHECK(gemma.kv_bytes_per_token->count() == 10 * per_layer);
  CHECK_THAT(static_cast<double>(*gemma.kv_tokens) /
                 (gemma.kv_cache_bytes.count() / gemma.kv_bytes_per_token->count()),
             WithinRel(10.0 / (10 + 52 * 1024.0 / 8192), 1e-3));
}

TEST_CASE("the built-in qwen3.6-27b states every shape predict needs", "[layer-plan][predict]") {
  const ModelArch m = builtin_model("qwen3.6-27b");
  CHECK_NOTHROW(prefill_gemm_shapes(m, 2, 4096));
  const ModelArch real = checkpoint("nvidia__Qwen3.6-27B-NVFP4");
  CHECK(dense_width_of(m) == dense_width_of(real));
  CHECK(tally_layers(m).linear == tally_layers(real).linear);
  CHECK_THAT(effective_bits_per_weight(m), WithinRel(effective_bits_per_weight(real), 1e-9));
  const test::CliResult r = test::run_tpnet(
      {"predict", "--model", "qwen3.6-27b", "--tp", "2", "--links", "200G", "--prompt", "128",
       "--output", "128", "--decode-itl", "1=77.97ms", "--gemm-tflops", "100", "--format", "json"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
}

namespace {

/// SYNTHETIC: Llama-3.1-8B's shapes with one key added.
std::string llama_with(const std::string& extra) {
  return R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
  "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
  "num_hidden_layers": 4, "vocab_size": 128256, "torch_dtype": "bfloat16", )" +
         extra + "}";
}

}  // namespace

TEST_CASE(
    "a shape key no family rule reads is warned about, and a per-layer list of one is refused, "
    "never read as uniform layers",
    "[layer-plan][hf][bad-input]") {
  // A plain shape-like key: read without it, with a warning naming it.
  const ModelArch warned =
      parse_hf_config(llama_with(R"("expert_hidden_size": 1024)"), "renamed/config.json");
  CHECK(warns(warned, "expert_hidden_size"));
  CHECK(warns(warned, "may shape the architecture"));
  // One value per layer: its layers may differ, so the reading stops.
  const std::string per_layer = llama_with(R"("layer_head_counts": [32, 32, 16, 16])");
  try {
    (void)parse_hf_config(per_layer, "per-layer/config.json");
    FAIL("a per-layer list was read as uniform layers");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), ContainsSubstring("layer_head_counts"));
    CHECK_THAT(std::string(e.what()), ContainsSubstring("per-layer list"));
  }
  // The keys every family reads, and numerics (rope, norms), warn about nothing.
  CHECK(parse_hf_config(llama_with(R"("rope_theta": 500000.0, "rms_norm_eps": 1e-05)"),
                        "plain/config.json")
            .warnings.empty());
}
