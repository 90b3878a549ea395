// A model at the precision a request asks (tpnet/usecase/model_precision.hpp):
// what every command that takes --quantization or --bits-per-weight runs.

#include <string>

#include "catch.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/usecase/model_precision.hpp"

using namespace tpnet;

namespace {

std::string error_key(const ModelArch& model, const PrecisionAsk& ask) {
  try {
    (void)at_precision(model, ask);
  } catch (const InputError& e) {
    return e.where().key;
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a model asked at no precision keeps its file's", "[quantization]") {
  const ModelArch file = builtin_model("glm-5.3");
  const ModelArch served = at_precision(file, PrecisionAsk{});
  CHECK(served.bits_per_weight == file.bits_per_weight);
  CHECK(served.quantization == file.quantization);
  CHECK(served.part_bits == file.part_bits);
  CHECK(served.assumptions == file.assumptions);
}

TEST_CASE("a quantization asked by name replaces the file's, parts that vLLM keeps aside",
          "[quantization]") {
  PrecisionAsk ask;
  ask.quantization = "FP8";
  const ModelArch served = at_precision(builtin_model("glm-5.3"), ask);
  CHECK(served.bits_per_weight == 8.0);
  CHECK(served.quantization == "fp8");
  CHECK(served.bits_of(WeightPart::lm_head) == 16.0);
  CHECK(served.bits_of(WeightPart::routed_experts) == 8.0);
}

TEST_CASE("bits per weight asked apply to every weight", "[quantization]") {
  PrecisionAsk ask;
  ask.bits_per_weight = 6.0;
  const ModelArch served = at_precision(builtin_model("glm-5.3"), ask);
  CHECK(served.bits_per_weight == 6.0);
  CHECK(served.part_bits.empty());
  CHECK(served.bits_of(WeightPart::lm_head) == 6.0);
}

TEST_CASE("a precision the core cannot serve is refused naming the request field",
          "[quantization][bad-input]") {
  const ModelArch m = builtin_model("glm-5.3");
  CHECK(error_key(m, PrecisionAsk{"fp5", std::nullopt}) == "model.quantization");
  CHECK(error_key(m, PrecisionAsk{"", 0.5}) == "model.bits_per_weight");
  CHECK(error_key(m, PrecisionAsk{"", 65.0}) == "model.bits_per_weight");
  // Both at once: applied in turn, the second would silently win.
  CHECK(error_key(m, PrecisionAsk{"nvfp4", 4.0}) == "model.quantization");
}
