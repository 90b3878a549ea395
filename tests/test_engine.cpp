// Inference-engine settings (tpnet/model/engine.hpp): the study's defaults
// pass, and each setting out of range is refused naming its request field.

#include <string>

#include "catch.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/model/engine.hpp"

using namespace tpnet;

namespace {

/// The InputError's key when validate throws one; "" when it accepts.
std::string refused_field(const EngineConfig& engine) {
  try {
    validate(engine);
  } catch (const InputError& e) {
    return e.where().key;
  }
  return "";
}

}  // namespace

TEST_CASE("the defaults are the GLM-5.3 study's vLLM settings and pass", "[engine]") {
  const EngineConfig e;
  CHECK(e.tensor_parallel_size == 8);
  CHECK(e.max_num_batched_tokens == 4096);
  CHECK(e.long_prefill_token_threshold == 0);
  CHECK(e.activation_bytes == 2);  // BF16
  CHECK(e.extra_allreduces_per_forward == 1);
  CHECK_FALSE(e.allreduces_per_layer);
  CHECK(e.algorithm == CollectiveAlgorithm::ring);
  CHECK(refused_field(e).empty());
  CHECK(to_string(CollectiveAlgorithm::ring) == "ring");
  CHECK(to_string(CollectiveAlgorithm::tree) == "tree");
}

TEST_CASE("engine settings out of range name their request field", "[engine][bad-input]") {
  auto with = [](auto change) {
    EngineConfig e;
    change(e);
    return refused_field(e);
  };
  CHECK(with([](EngineConfig& e) { e.tensor_parallel_size = 0; }) == "layout.tp");
  CHECK(with([](EngineConfig& e) { e.tensor_parallel_size = kMaxTp + 1; }) == "layout.tp");
  CHECK(with([](EngineConfig& e) { e.tensor_parallel_size = kMaxTp; }).empty());
  CHECK(with([](EngineConfig& e) { e.max_num_batched_tokens = 0; }) ==
        "engine.max_num_batched_tokens");
  CHECK(with([](EngineConfig& e) { e.long_prefill_token_threshold = -1; }) ==
        "engine.long_prefill_token_threshold");
  CHECK(with([](EngineConfig& e) { e.max_num_seqs = 0; }) == "engine.max_num_seqs");
  CHECK(with([](EngineConfig& e) { e.num_speculative_tokens = -1; }) ==
        "engine.num_speculative_tokens");
  CHECK(with([](EngineConfig& e) { e.activation_bytes = 0; }) == "engine.activation_bytes");
  CHECK(with([](EngineConfig& e) { e.allreduces_per_layer = -1; }) ==
        "engine.allreduces_per_layer");
  CHECK(with([](EngineConfig& e) { e.allreduces_per_layer = 0; }).empty());  // EP's own case
  CHECK(with([](EngineConfig& e) { e.extra_allreduces_per_forward = -1; }) ==
        "engine.extra_allreduces_per_forward");
  try {
    EngineConfig e;
    e.max_num_seqs = 0;
    validate(e);
    FAIL("accepted max_num_seqs 0");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), ContainsSubstring("0 is not allowed; use 1 to"));
    CHECK_THAT(std::string(e.what()), ContainsSubstring("(running requests)"));
  }
}

TEST_CASE("backend names are vLLM's, and others are refused naming both allowed", "[engine]") {
  for (const auto backend :
       {AllToAllBackend::allgather_reducescatter, AllToAllBackend::deepep_low_latency,
        AllToAllBackend::deepep_high_throughput}) {
    CHECK(parse_all2all_backend(to_string(backend), InputLocation::for_key("b")) == backend);
  }
  CHECK_THROWS_WITH(parse_all2all_backend("pplx", InputLocation::for_key("b")),
                    Catch::Contains("deepep_low_latency"));
}
