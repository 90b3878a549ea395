#pragma once
// The GLM-5.3 study's model, engine settings, links and fabric profiles,
// shared by the unit tests that reproduce its numbers (docs/background.md).

#include <string>

#include "catch.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/usecase/predict.hpp"

namespace tpnet::test {

inline ModelArch glm53() { return builtin_model("glm-5.3"); }

/// TP8 with vLLM's chunk of 4,096 tokens, as the study served it.
inline EngineConfig tp8() {
  EngineConfig engine;
  engine.tensor_parallel_size = 8;
  engine.max_num_batched_tokens = 4096;
  return engine;
}

/// The study's whole engine: TP8, 4,096-token steps, prompts over 2,048
/// tokens chunked, 8 sequences, 4 MTP drafts.
inline EngineConfig glm_engine() {
  EngineConfig e = tp8();
  e.long_prefill_token_threshold = 2048;
  e.max_num_seqs = 8;
  e.num_speculative_tokens = 4;
  return e;
}

inline Link preset(const std::string& name) {
  return parse_link(name, InputLocation::for_key("link"));
}

/// `requests` prompts of `prompt` tokens, all arriving at once.
inline PredictScenario all_at_once(const std::string& name, int requests, TokenCount prompt,
                                   TokenCount output) {
  PredictScenario s{name, {}};
  for (int i = 0; i < requests; ++i) s.requests.push_back(ScheduledRequest{0.0, prompt, output});
  return s;
}

/// A built-in fabric profile by name; fails the test when there is none.
inline const FabricProfile& builtin_profile(const std::string& name) {
  for (const auto& p : builtin_fabric_profiles()) {
    if (p.name == name) return p;
  }
  FAIL("no built-in profile " << name);
  throw;
}

}  // namespace tpnet::test
