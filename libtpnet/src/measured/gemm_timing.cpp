#include "tpnet/measured/gemm_timing.hpp"

#include <algorithm>

namespace tpnet {

std::string_view to_string(ExpertTiming timing) {
  switch (timing) {
    case ExpertTiming::none:
      return "none";
    case ExpertTiming::separate:
      return "separate";
    case ExpertTiming::grouped:
      return "grouped";
  }
  return "none";
}

Seconds GemmRun::forward_time() const {
  Seconds total(0.0);
  for (const auto& g : gemms) {
    if (g.routing != ExpertRouting::skewed) total += g.median * static_cast<double>(g.count);
  }
  return total;
}

Seconds GemmRun::per_prompt_token() const {
  return forward_time() / static_cast<double>(chunk_tokens);
}

std::optional<Seconds> GemmRun::skewed_forward_time() const {
  bool any = false;
  Seconds total(0.0);
  for (const auto& g : gemms) {
    if (g.routing == ExpertRouting::skewed) {
      any = true;
      total += g.median * static_cast<double>(g.count);
      continue;
    }
    // A uniform row counts only where no skewed row replaces it.
    const bool replaced = g.routing == ExpertRouting::uniform &&
                          std::any_of(gemms.begin(), gemms.end(), [&](const GemmTiming& s) {
                            return s.routing == ExpertRouting::skewed && s.name == g.name;
                          });
    if (!replaced) total += g.median * static_cast<double>(g.count);
  }
  if (!any) return std::nullopt;
  return total;
}

ExpertTiming GemmRun::experts() const {
  ExpertTiming timing = ExpertTiming::none;
  for (const auto& g : gemms) {
    if (g.routing != ExpertRouting::none) return ExpertTiming::grouped;
    if (is_routed_expert_gemm_name(g.name)) timing = ExpertTiming::separate;
  }
  return timing;
}

}  // namespace tpnet
