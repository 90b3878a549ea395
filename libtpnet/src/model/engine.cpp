#include "tpnet/model/engine.hpp"

#include <fmt/format.h>

#include <array>
#include <string>
#include <utility>

#include "tpnet/base/error.hpp"
#include "tpnet/base/limits.hpp"

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

constexpr std::array<std::pair<AllToAllBackend, std::string_view>, 3> kBackendNames{{
    {AllToAllBackend::allgather_reducescatter, "allgather_reducescatter"},
    {AllToAllBackend::deepep_low_latency, "deepep_low_latency"},
    {AllToAllBackend::deepep_high_throughput, "deepep_high_throughput"},
}};

template <typename T>
void require_range(T value, T lo, T hi, const char* field, const char* why) {
  if (value < lo || value > hi) {
    throw InputError(std::to_string(value) + " is not allowed; use " + std::to_string(lo) + " to " +
                         std::to_string(hi) + " (" + why + ")",
                     InputLocation::for_key(field));
  }
}

}  // namespace

std::string_view to_string(AllToAllBackend backend) {
  for (const auto& [value, name] : kBackendNames) {
    if (value == backend) return name;
  }
  return "allgather_reducescatter";
}

AllToAllBackend parse_all2all_backend(std::string_view text, const InputLocation& where) {
  for (const auto& [value, name] : kBackendNames) {
    if (name == text) return value;
  }
  throw InputError(fmt::format("'{}' is not an all-to-all backend tpnet prices; use "
                               "allgather_reducescatter (vLLM's default) or deepep_low_latency",
                               text),
                   where);
}

void validate(const EngineConfig& engine) {
  require_range(engine.tensor_parallel_size, 1, kMaxTp, "layout.tp", "nodes sharing each layer");
  require_range<TokenCount>(engine.max_num_batched_tokens, 1, kMaxTokens,
                            "engine.max_num_batched_tokens", "tokens per forward pass");
  require_range<TokenCount>(engine.long_prefill_token_threshold, 0, kMaxTokens,
                            "engine.long_prefill_token_threshold", "0 leaves it unset");
  require_range(engine.max_num_seqs, 1, kMaxRunningRequests, "engine.max_num_seqs",
                "running requests");
  require_range(engine.num_speculative_tokens, 0, kMaxSpeculativeTokens,
                "engine.num_speculative_tokens", "draft tokens per request");
  require_range(engine.activation_bytes, 1, kMaxActivationBytes, "engine.activation_bytes",
                "2 for BF16");
  if (engine.allreduces_per_layer) {
    require_range(*engine.allreduces_per_layer, 0, kMaxAllreducesPerLayer,
                  "engine.allreduces_per_layer", "unset: one per block of each layer");
  }
  require_range(engine.extra_allreduces_per_forward, 0, kMaxExtraAllreduces,
                "engine.extra_allreduces_per_forward", "1 by default, for the input embedding");
}

}  // namespace tpnet
