// The workload presets for `tpnet plan --workload` (tpnet/workload/workload.hpp,
// docs/formulas.md s.15): chat, rag and long-docs with their prompt mixes.

#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/workload/workload.hpp"

using namespace tpnet;

TEST_CASE("the presets are chat 1k, rag 8k and 4x8k, long-docs 32k and 64k", "[plan]") {
  const std::vector<Workload>& presets = workload_presets();
  REQUIRE(presets.size() == 3);
  CHECK(presets[0].name == "chat");
  CHECK(presets[1].name == "rag");
  CHECK(presets[2].name == "long-docs");
  auto totals = [](const Workload& w) {
    std::vector<TokenCount> out;
    for (const auto& p : w.prompts) out.push_back(p.prompt.total_tokens());
    return out;
  };
  CHECK(totals(presets[0]) == std::vector<TokenCount>{1024});
  // rag's second prompt is four requests at once: 4 x 8,192 = 32,768 tokens.
  CHECK(totals(presets[1]) == std::vector<TokenCount>{8192, 32768});
  CHECK(presets[1].prompts[1].prompt.requests == 4);
  CHECK(totals(presets[2]) == std::vector<TokenCount>{32768, 65536});
  for (const auto& w : presets) {
    INFO(w.name);
    CHECK_FALSE(w.description.empty());
    for (const auto& p : w.prompts) CHECK_FALSE(p.baseline_ttft);
  }
}
