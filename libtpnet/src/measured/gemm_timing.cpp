#include "tpnet/measured/gemm_timing.hpp"

namespace tpnet {

Seconds GemmRun::forward_time() const {
  Seconds total(0.0);
  for (const auto& g : gemms) total += g.median * static_cast<double>(g.count);
  return total;
}

Seconds GemmRun::per_prompt_token() const {
  return forward_time() / static_cast<double>(chunk_tokens);
}

}  // namespace tpnet
