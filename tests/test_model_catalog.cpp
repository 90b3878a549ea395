// The built-in models and the one way a --model value becomes a model
// (tpnet/io/model_catalog.hpp): every entry parses with its source, the
// study models carry docs/background.md's figures, and unknown names
// suggest close ones.

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/model_catalog.hpp"

using namespace tpnet;
using namespace tpnet::test;

TEST_CASE("every built-in model parses and states its source", "[catalog]") {
  const auto names = builtin_model_names();
  CHECK(names.size() >= 3);
  for (const auto& name : names) {
    INFO(name);
    const ModelArch m = builtin_model(name);
    CHECK(m.name == name);
    CHECK_FALSE(m.source.empty());
    CHECK(m.active_params <= m.total_params);
  }
}

TEST_CASE("the three study models are built in with docs/background.md's figures",
          "[catalog][golden]") {
  const ModelArch glm = builtin_model("glm-5.3");
  CHECK(glm.hidden_size == 6144);
  CHECK(glm.num_layers() == 78);
  CHECK(glm.total_params == 753e9);
  CHECK(glm.active_params == 40e9);
  CHECK(glm.bits_per_weight == 4.5);
  CHECK(attention_of(glm).indexer.top_k == 2048);
  CHECK(glm.assumptions.count("vocab_size") == 1);  // not stated by docs/background.md: marked
  CHECK(builtin_model("qwen3.6-27b").total_params == 27e9);
  CHECK(builtin_model("deepseek-v4.1-flash").total_params == 763e9);
}

TEST_CASE("an unknown model name suggests close names", "[catalog][bad-input]") {
  try {
    (void)builtin_model("glm-53");
    FAIL("accepted glm-53");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), ContainsSubstring("unknown model 'glm-53'"));
    CHECK_THAT(std::string(e.what()), ContainsSubstring("did you mean glm-5.3"));
  }
  CHECK(closest_names("qwen", builtin_model_names()).front().rfind("qwen", 0) == 0);
  CHECK(closest_names("zzzzzzzzzzzzzzzzzzzz", {"glm-5.3"}).empty());
}

TEST_CASE("the model flag takes a path as well as a name", "[catalog]") {
  CHECK_THROWS_AS(resolve_model("./missing.yaml"), InputError);
  CHECK_THROWS_AS(resolve_model(""), InputError);
  CHECK(resolve_model(std::string(TPNET_SOURCE_DIR) + "/models/glm-5.3.yaml").hidden_size == 6144);
}

TEST_CASE("the published models name their config.json and model card and give every shape",
          "[catalog]") {
  for (const char* name :
       {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen3-32b", "qwen3-235b-a22b",
        "qwen3-next-80b-a3b", "deepseek-v3", "deepseek-v3.2-exp", "glm-4.5", "glm-4.5-air",
        "gpt-oss-120b", "kimi-k2", "minimax-m2"}) {
    INFO(name);
    const ModelArch m = builtin_model(name);
    CHECK_THAT(m.source, ContainsSubstring("config.json"));
    CHECK_THAT(m.source, ContainsSubstring("model card"));
    CHECK_FALSE(m.torch_dtype.empty());
    CHECK(attention_of(m).head_dim > 0);
    if ((first_moe(m.layers) != nullptr)) CHECK(moe_of(m).expert_intermediate_size > 0);
    if (!(first_moe(m.layers) != nullptr) || tally_layers(m).dense > 0)
      CHECK(dense_width_of(m) > 0);
    if (attention_label(m.layers) == "mla") CHECK(attention_of(m).latent);
  }
}

TEST_CASE("issue 3's models carry the shapes it lists", "[catalog][golden]") {
  const ModelArch v32 = builtin_model("deepseek-v3.2-exp");
  CHECK(attention_of(v32).indexer.top_k == 2048);
  CHECK(attention_of(v32).mla.kv_lora_rank == 512);
  CHECK(v32.mtp_layers == 1);
  const ModelArch next = builtin_model("qwen3-next-80b-a3b");
  CHECK(tally_layers(next.layers).linear == 36);
  CHECK(moe_of(next).routed_experts == 512);
  CHECK(moe_of(next).experts_per_token == 10);
  const ModelArch oss = builtin_model("gpt-oss-120b");
  CHECK(mixer_of(oss, Mixer::sliding_window).attention.window == 128);
  CHECK(tally_layers(oss.layers).sliding == 18);
  CHECK(oss.quantization == "mxfp4");
  const ModelArch kimi = builtin_model("kimi-k2");
  CHECK(attention_of(kimi).q_heads == 64);
  CHECK(moe_of(kimi).routed_experts == 384);
  CHECK(tally_layers(kimi).dense == 1);
  CHECK(tally_layers(builtin_model("glm-4.5")).dense == 3);
  CHECK(moe_of(builtin_model("glm-4.5-air")).expert_intermediate_size == 1408);
  CHECK(builtin_model("minimax-m2").vocab_size == 200064);
  CHECK(attention_of(builtin_model("qwen3-235b-a22b")).kv_heads == 4);
}
