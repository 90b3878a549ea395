#include "tpnet/workload/workload.hpp"

#include "tpnet/base/quantity.hpp"

namespace tpnet {

const std::vector<Workload>& workload_presets() {
  static const std::vector<Workload> presets{
      {"chat", "short conversational prompts", {{"1k", PromptSpec{1, 1024}, {}}}},
      {"rag",
       "retrieval-augmented prompts, one alone and four at once",
       {{"8k", PromptSpec{1, 8192}, {}}, {"4x8k", PromptSpec{4, 8192}, {}}}},
      {"long-docs",
       "long documents and agent contexts",
       {{"32k", PromptSpec{1, 32768}, {}}, {"64k", PromptSpec{1, 65536}, {}}}},
  };
  return presets;
}

}  // namespace tpnet
