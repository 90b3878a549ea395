#include "tpnet/model/engine.hpp"

#include <string>

#include "tpnet/error.hpp"

namespace tpnet {

std::string_view to_string(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
    case CollectiveAlgorithm::ring:
      return "ring";
    case CollectiveAlgorithm::tree:
      return "tree";
  }
  return "unknown";
}

namespace {

template <typename T>
void require_range(T value, T lo, T hi, const char* flag, const char* why) {
  if (value < lo || value > hi) {
    throw InputError(std::to_string(value) + " is not allowed; use " + std::to_string(lo) + " to " +
                         std::to_string(hi) + " (" + why + ")",
                     InputLocation::for_key(flag));
  }
}

}  // namespace

void validate(const EngineConfig& engine) {
  require_range(engine.tensor_parallel_size, 1, 1024, "--tensor-parallel-size",
                "nodes sharing each layer");
  require_range<TokenCount>(engine.max_num_batched_tokens, 1, 16777216, "--max-num-batched-tokens",
                            "tokens per forward pass");
  require_range<TokenCount>(engine.long_prefill_token_threshold, 0, 16777216,
                            "--long-prefill-token-threshold", "0 leaves it unset");
  require_range(engine.max_num_seqs, 1, 1048576, "--max-num-seqs", "running requests");
  require_range(engine.num_speculative_tokens, 0, 64, "--num-speculative-tokens",
                "draft tokens per request");
  require_range(engine.activation_bytes, 1, 8, "--activation-bytes", "2 for BF16");
  require_range(engine.allreduces_per_layer, 0, 16, "--allreduces-per-layer", "2 by default");
  require_range(engine.extra_allreduces_per_forward, 0, 1024, "--extra-allreduces",
                "1 by default, for the input embedding");
}

}  // namespace tpnet
