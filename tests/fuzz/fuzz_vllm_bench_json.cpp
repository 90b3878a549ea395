// `vllm bench serve` result JSON through parse_vllm_bench_json, grouped into
// sweeps by their own config keys and under a given name, then the capacity
// analysis of them.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_capacity.hpp"
#include "fuzz_check.hpp"
#include "tpnet/io/sweep_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpnet;
  using namespace tpnet::fuzz;
  contract(Origin::file, [&] {
    const std::vector<BenchResult> results =
        parse_vllm_bench_json(text_of(data, size), "fuzz/bench.json");
    for (const auto& r : results) {
      check_point(r.point, r.axis);
      if (r.tp) within(*r.tp, 1.0, 1e6, "tp key");
      if (r.tps_from.empty()) violated("a decode rate from nowhere");
    }
    for (const std::optional<std::string>& name :
         {std::optional<std::string>{}, std::optional<std::string>{"TP4"}}) {
      contract(Origin::any, [&] {
        const SweepSet set = sweeps_from_bench(results, name);
        check_sweeps(set);
        analyze_sweeps(set);
      });
    }
  });
  return 0;
}
