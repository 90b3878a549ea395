// Deployment plans (`tpnet check` files) through parse_plan_yaml, then
// run_check: rows, layout summaries and budget verdicts. Relative model
// and baseline paths resolve against examples/, as the examples' plans do.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "tpnet/io/plan_yaml.hpp"
#include "tpnet/usecase/serving_plan.hpp"

namespace {

using namespace tpnet;
using namespace tpnet::fuzz;

void check_summary(const LayoutSummary& s) {
  within(s.layout.nodes(), 1.0, 1e6, "layout nodes");
  positive(s.per_token_bytes, "per_token_bytes");
  positive(s.bytes_ratio, "bytes_ratio");
  positive(s.compute_ratio, "compute_ratio");
  non_negative(s.steps_per_forward, "steps_per_forward");
  non_negative(s.prefill_forward_bytes, "prefill_forward_bytes");
  non_negative(static_cast<double>(s.prefill_messages), "prefill_messages");
  non_negative(static_cast<double>(s.decode_messages), "decode_messages");
  non_negative(s.weights_per_node(), "weights_per_node");
  non_negative(s.memory.fixed_bytes, "fixed memory");
  non_negative(s.memory.kv_cache_bytes, "kv cache");
  non_negative(s.decode_forward_bytes, "decode_forward_bytes");
  non_negative(s.decode_floor, "decode_floor");
}

void check_row(const CompareRow& r) {
  if (r.layout == nullptr || r.from == nullptr || r.to == nullptr || r.prompt == nullptr) {
    violated("a compare row pointing nowhere");
  }
  non_negative(r.prefill_bytes, "prefill_bytes");
  non_negative(r.comm_time_from, "comm_time_from");
  finite(r.extra_bound.value(), "extra_bound");  // negative when `to` is faster
  finite(r.extra_per_1k.value(), "extra_per_1k");
  non_negative(r.comm_per_1k, "comm_per_1k");
  finite(r.decode_slowdown, "decode_slowdown");
  if (r.ttft_increase) finite(*r.ttft_increase, "ttft_increase");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  contract(Origin::file, [&] {
    const ServingPlan plan =
        parse_plan_yaml(text_of(data, size), TPNET_SOURCE_DIR "/examples/fuzz-plan.yaml");
    const CompareRequest& request = plan.compare;
    for (const auto& l : request.from) positive(l.link.rate, "from link");
    for (const auto& l : request.to) positive(l.link.rate, "to link");
    for (const auto& s : request.prompts) {
      positive(static_cast<double>(s.prompt.total_tokens()), "scenario tokens");
      if (s.baseline_ttft) positive(*s.baseline_ttft, "baseline ttft");
    }
    if (request.memory_bandwidth) positive(*request.memory_bandwidth, "memory_bandwidth");
    contract(Origin::any, [&] {
      const CheckReport result = run_check(plan);
      for (const auto& s : result.compare.layouts) check_summary(s);
      for (const auto& r : result.rows) check_row(r);
      for (const auto& v : result.verdicts) {
        finite(v.value, "verdict value");
        finite(v.limit, "verdict limit");
        if (v.budget.empty()) violated("a verdict on no budget");
      }
    });
  });
  return 0;
}
