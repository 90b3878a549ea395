#pragma once
// The GLM-5.3 study's serving plan as a `tpnet check` file (docs/plan.md),
// shared by the tests that read it and those that run it.

#include <string>

namespace tpnet::test {

/// Where the plan claims to live: its baseline path resolves against it.
inline const std::string kPlanOrigin = std::string(TPNET_SOURCE_DIR) + "/examples/test-plan.yaml";

inline constexpr const char* kPlan = R"(model: glm-5.3
layout: {tp: 8}
engine: {num_speculative_tokens: 4}
links: {from: 200G, to: 100G}
workload:
  baseline: data/glm53_tp8_200g.csv
budgets:
  max_extra_ttft: 10s
  max_ttft_increase: 25%
  max_decode_slowdown: 10%
)";

/// `text` with the first `from` replaced by `to`.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace tpnet::test
