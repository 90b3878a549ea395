#include "compare_inputs.hpp"

#include "tpnet/base/error.hpp"
#include "tpnet/base/quantity.hpp"

namespace tpnet::cli {

std::vector<ParallelLayout> grid_layouts(const std::vector<int>& tps, const std::vector<int>& pps,
                                         const std::vector<int>& eps) {
  std::vector<ParallelLayout> layouts;
  layouts.reserve(tps.size() * pps.size() * eps.size());
  for (int pp : pps) {
    for (int ep : eps) {
      for (int tp : tps) layouts.push_back(ParallelLayout{tp, pp, ep});
    }
  }
  return layouts;
}

std::vector<PrefillScenario> prompt_scenarios(const std::vector<std::string>& prompts) {
  std::vector<PrefillScenario> scenarios;
  scenarios.reserve(prompts.size());
  for (const auto& text : prompts) {
    scenarios.push_back(
        PrefillScenario{text, parse_prompt(text, InputLocation::for_key("--prompt")), {}});
  }
  return scenarios;
}

void add_retired_reserved_memory_option(CLI::App* app, std::string& value) {
  app->add_option("--reserved-memory", value,
                  "No longer read (refused): NCCL's buffers come from --nccl-tuned, "
                  "--nccl-channels and --nccl-buffsize")
      ->group("");
}

void refuse_reserved_memory(const std::string& value) {
  if (value.empty()) return;
  throw InputError(
      "is no longer read: NCCL's buffers come from the node's measured footprint "
      "(--nccl-channels and --nccl-buffsize, or --nccl-tuned for the node's tuned pair, "
      "nccl_memory.tuned in its file) and the OS share from the node's reserved_memory",
      InputLocation::for_key("--reserved-memory"));
}

}  // namespace tpnet::cli
