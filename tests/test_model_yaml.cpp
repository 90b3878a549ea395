#include <filesystem>
#include <fstream>

#include "catch.hpp"
#include "tpnet/io/model_yaml.hpp"

using namespace tpnet;

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
  CHECK(m.num_layers == 4);
  CHECK(m.num_kv_heads == 4);
  CHECK(m.total_params == 1.2e9);
  CHECK(m.active_params == 300e6);
  CHECK(m.bits_per_weight == 4.5);
  REQUIRE(m.moe);
  CHECK(m.moe->routed_experts == 8);
  CHECK(m.moe->shared_experts == 0);
  CHECK(m.assumptions.at("vocab_size") == "a guess for the test");
}

TEST_CASE("dense models default active parameters to the total", "[model]") {
  const ModelArch m = parse_model_yaml(
      "name: d\nhidden_size: 8\nnum_layers: 1\nvocab_size: 10\nnum_attention_heads: 2\n"
      "total_params: 7B\nbits_per_weight: 16\n",
      "d.yaml");
  CHECK(m.active_params == 7e9);
  CHECK(m.num_kv_heads == 2);
  CHECK_FALSE(m.moe);
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
