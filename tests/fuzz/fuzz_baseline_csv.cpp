// Measured baselines (the GLM-5.3 study's CSV) through parse_baseline_csv,
// then the prefill penalty of GLM-5.3 TP8 from 200G to 100G against them.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/io/baseline_csv.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/usecase/penalty.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpnet;
  using namespace tpnet::fuzz;
  static const ModelArch model = builtin_model("glm-5.3");
  contract(Origin::file, [&] {
    const std::vector<PrefillScenario> scenarios =
        parse_baseline_csv(text_of(data, size), "fuzz/baseline.csv");
    if (scenarios.empty()) violated("no scenarios and no error");
    for (const auto& s : scenarios) {
      within(static_cast<double>(s.prompt.requests), 1.0, 1e6, "requests");
      within(static_cast<double>(s.prompt.tokens_each), 1.0, 1099511627776.0, "tokens each");
      if (s.baseline_ttft) positive(*s.baseline_ttft, "ttft_s");
    }
    contract(Origin::any, [&] {
      const EngineConfig engine;
      const Link from = parse_link("200G", InputLocation::for_key("--from"));
      const Link to = parse_link("100G", InputLocation::for_key("--to"));
      const PenaltyReport r = analyze_penalty(model, engine, from, to, scenarios);
      for (const auto& s : r.scenarios) {
        positive(s.prefill_bytes_per_node, "prefill_bytes_per_node");
        positive(static_cast<double>(s.prefill_forwards), "prefill_forwards");
        non_negative(s.comm_time_from, "comm_time_from");
        non_negative(s.nominal_bound, "extra_ttft_bound");
        if (s.network_share) within(*s.network_share, 0.0, 1.0, "network_share");
        if (s.ttft_increase_bound) non_negative(*s.ttft_increase_bound, "ttft_increase_bound");
        if (s.ttft_bound_at_to) positive(*s.ttft_bound_at_to, "ttft_bound_at_to");
      }
    });
  });
  return 0;
}
