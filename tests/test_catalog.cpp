#include "catch.hpp"
#include "tpnet/model_catalog.hpp"

using namespace tpnet;

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

TEST_CASE("the three study models are built in with DOMAIN.md's figures", "[catalog][golden]") {
  const ModelArch glm = builtin_model("glm-5.3");
  CHECK(glm.hidden_size == 6144);
  CHECK(glm.num_layers == 78);
  CHECK(glm.total_params == 753e9);
  CHECK(glm.active_params == 40e9);
  CHECK(glm.bits_per_weight == 4.5);
  CHECK(glm.sparse_attention_top_k == 2048);
  CHECK(glm.assumptions.count("vocab_size") == 1);  // not stated by DOMAIN.md: marked
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
