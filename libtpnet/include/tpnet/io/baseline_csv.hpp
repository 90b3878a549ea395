#pragma once
/// Measured baselines: TTFT per prompt scenario at the `from` link, in the
/// columns of the GLM-5.3 study (examples/data/glm53_tp8_200g.csv).

#include <string>
#include <string_view>
#include <vector>
#include "tpnet/base/error.hpp"

#include "tpnet/usecase/penalty.hpp"

namespace tpnet {

/// Needs columns `requests`, `prompt_tokens_each`, `ttft_s`; `test` names the
/// row when present; other columns are ignored. `#` lines are comments.
std::vector<PrefillScenario> parse_baseline_csv(std::string_view text, const std::string& origin);

std::vector<PrefillScenario> load_baseline_csv(const std::string& path);

}  // namespace tpnet
