#include "tpnet/usecase/plan_search.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "tpnet/base/limits.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"

namespace tpnet {
namespace {

/// The best way to connect `nodes` at `speed`: no switch for up to 3 nodes,
/// else the catalog plan with the fewest switches, then the least port
/// capacity bought (a cost proxy), then the least oversubscription.
std::optional<Fabric> best_fabric(const PlanSearchRequest& in, BitRate speed) {
  if (in.nodes <= 3) {
    for (const auto& option : switchless_options(in.node, in.nodes)) {
      if (option.link_rate >= speed) {
        return Fabric{fmt::format("{} ({} x {})", option.topology, option.cables, option.cable),
                      0,
                      BitRate(0.0),
                      {},
                      std::nullopt,
                      true};
      }
    }
  }
  std::vector<Fabric> candidates;
  for (const auto& sw : in.switches) {
    const SwitchAnswer answer = answer_for_switch(sw, in.node, in.nodes, speed);
    for (const auto& plan : answer.plans) {
      std::string text = fmt::format("{} x {}", plan.switches, sw.name);
      if (plan.isl) {
        text +=
            fmt::format(" joined by {} x {} ISL", plan.isl->cables(), rate_label(plan.isl->rate));
      }
      candidates.push_back(
          Fabric{text, plan.switches, sw.data_port_capacity() * plan.switches, {}, plan, true});
    }
  }
  if (candidates.empty()) return std::nullopt;
  std::stable_sort(candidates.begin(), candidates.end(), [](const Fabric& a, const Fabric& b) {
    if (a.switches != b.switches) return a.switches < b.switches;
    if (a.capacity != b.capacity) return a.capacity < b.capacity;
    return a.plan->oversubscription() < b.plan->oversubscription();
  });
  Fabric best = candidates.front();
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    if (candidates[i].switches == best.switches &&
        candidates[i].plan->switch_name != best.plan->switch_name) {
      best.alternatives.push_back(candidates[i].plan->switch_name);
    }
  }
  return best;
}

/// Every instance sits on one switch when the switches hold whole instances.
bool instances_local(const Fabric& fabric, int tp) {
  if (!fabric.plan || fabric.plan->units.empty()) return true;
  for (const auto& unit : fabric.plan->units) {
    if (unit.nodes % tp != 0) return false;
  }
  return true;
}

std::string describe_reason(const PlanOption& r, const PlanOption* best_same_speed_tp,
                            const PlanSearchReport& report) {
  if (!r.vllm_refusal.empty()) return r.vllm_refusal;
  if (!r.fits_memory) return fmt::format("TP{} does not fit: {}", r.tp, r.memory.fit_summary);
  if (!r.fabric) {
    return fmt::format("no catalog switch carries {} nodes at {}", r.instances * r.tp,
                       r.speed.name);
  }
  std::string text =
      fmt::format("{} x TP{} on {} at {}", r.instances, r.tp, r.fabric->description, r.speed.name);
  if (!r.fabric->alternatives.empty()) {
    text += " (or";
    for (std::size_t i = 0; i < r.fabric->alternatives.size(); ++i) {
      text += (i == 0 ? " " : ", ");
      text += r.fabric->alternatives[i];
    }
    text += ")";
  }
  // What the ranking weighs first: the fabric's cost.
  if (r.fabric->switches == 0) {
    text += ", no switch to buy";
  } else {
    text += fmt::format(", {} switch{} with {} of data ports bought", r.fabric->switches,
                        r.fabric->switches == 1 ? "" : "es", rate_label(r.fabric->capacity));
  }
  if (r.worst_extra_ttft.value() <= 0.0) {
    text += ": no TTFT loss against the fastest link";
  } else {
    text += fmt::format(": at most +{:.2f} s TTFT per request against {}",
                        r.worst_extra_ttft.value(), report.reference.name);
    if (r.worst_ttft_increase) text += fmt::format(" ({:+.1f}%)", *r.worst_ttft_increase * 100.0);
  }
  if (best_same_speed_tp != nullptr && best_same_speed_tp->tp < r.tp &&
      best_same_speed_tp->worst_extra_ttft.value() > 0.0) {
    const PlanOption& smaller = *best_same_speed_tp;
    if (r.worst_ttft_increase && smaller.worst_ttft_increase) {
      text += fmt::format("; TP{} loses {:.1f}x the share of TTFT that TP{} loses", r.tp,
                          *r.worst_ttft_increase / *smaller.worst_ttft_increase, smaller.tp);
    } else {
      text += fmt::format(
          "; TP{} sends {:.2f}x TP{}'s bytes with {:.0f}x less compute per node, so its share "
          "of TTFT grows faster (a measured `projection.ttft` quantifies it)",
          r.tp, r.worst_extra_ttft / smaller.worst_extra_ttft, smaller.tp,
          static_cast<double>(r.tp) / smaller.tp);
    }
  }
  if (r.instances > 1) {
    text += fmt::format("; {} instances keep serving if one fails", r.instances);
    if (r.fabric->switches > 1 && r.fabric->instances_stay_local) {
      text += ", and each sits on its own switch so no TP traffic crosses the ISL";
    }
  } else {
    text += "; one instance is a single point of failure";
  }
  if (!r.within_budget) text += "; exceeds the TTFT budget";
  return text;
}

}  // namespace

PlanSearchReport search_plans(const PlanSearchRequest& in) {
  const ModelArch& model = in.model;
  if (in.nodes < 2 || in.nodes > kMaxClusterNodes) {
    throw InputError(
        fmt::format("{} is not allowed; plan 2 to {} nodes", in.nodes, kMaxClusterNodes),
        InputLocation::for_key("nodes"));
  }
  if (in.speeds.empty())
    throw InputError("give at least one speed", InputLocation::for_key("speeds"));
  if (in.workload.prompts.empty()) {
    throw InputError("the workload has no prompts", InputLocation::for_key("workload"));
  }
  PlanSearchReport report;
  report.reference =
      *std::max_element(in.speeds.begin(), in.speeds.end(),
                        [](const Link& a, const Link& b) { return a.rate < b.rate; });
  // The measured TTFT is taken as measured on the fastest speed considered.
  if (in.baseline) {
    report.baseline =
        TtftBaseline{in.baseline->layout, in.baseline->ttft, in.baseline->prompt, report.reference};
  }

  std::vector<std::optional<Fabric>> fabrics;
  for (const auto& speed : in.speeds) fabrics.push_back(best_fabric(in, speed.rate));

  // Up to the largest TP any engine takes: 4,096 nodes are 4 x TP1024, not TP4096.
  for (int tp = 1; tp <= std::min(in.nodes, kMaxTp); tp *= 2) {
    if (in.nodes % tp != 0) continue;
    report.layouts_tried.push_back(tp);
    EngineConfig engine = in.engine;
    engine.tensor_parallel_size = tp;
    const MemoryReport mem =
        analyze_memory(model, MemoryRequest{ParallelLayout{tp, 1, 1}, engine, in.node, in.memory});
    const Bytes per_token = tp > 1 ? bytes_per_prompt_token(model, engine) : Bytes(0.0);

    // The projection, when a baseline is given: compute divides over the TP nodes.
    std::optional<Seconds> compute_per_token;
    if (report.baseline) {
      compute_per_token = compute_node_seconds_per_token(model, in.engine, *report.baseline) / tp;
    }

    for (std::size_t s = 0; s < in.speeds.size(); ++s) {
      PlanOption r;
      r.instances = in.nodes / tp;
      r.tp = tp;
      r.speed = in.speeds[s];
      r.memory = mem;
      r.fits_memory = mem.fits;
      r.vllm_refusal = tp_refusal(model, tp);
      r.fabric = fabrics[s];
      if (r.fabric) r.fabric->instances_stay_local = instances_local(*r.fabric, tp);
      r.per_token_bytes = per_token;
      double sum = 0.0;
      for (const auto& prompt : in.workload.prompts) {
        const Bytes bytes = per_token * static_cast<double>(prompt.prompt.total_tokens());
        const Seconds extra = extra_transfer_time(bytes, report.reference.rate, r.speed.rate);
        sum += extra.value();
        r.worst_extra_ttft = std::max(r.worst_extra_ttft, extra);
        if (compute_per_token) {
          const Seconds ttft =
              *compute_per_token * static_cast<double>(prompt.prompt.total_tokens()) +
              bytes / report.reference.rate;
          const double increase = extra / ttft;
          r.worst_ttft_increase = std::max(r.worst_ttft_increase.value_or(0.0), increase);
        }
      }
      r.mean_extra_ttft = Seconds(sum / static_cast<double>(in.workload.prompts.size()));
      r.within_budget = !in.ttft_budget || r.worst_extra_ttft <= *in.ttft_budget;
      r.usable = r.vllm_refusal.empty() && r.fits_memory && r.fabric.has_value() && r.within_budget;
      report.options.push_back(std::move(r));
    }
  }

  // Usable first; then the cheapest fabric (fewer switches, less port
  // capacity bought); then less TTFT loss; then more instances (a failure
  // takes out less); then the faster link.
  std::stable_sort(report.options.begin(), report.options.end(),
                   [](const PlanOption& a, const PlanOption& b) {
                     if (a.usable != b.usable) return a.usable;
                     const int sa = a.fabric ? a.fabric->switches : 1 << 20;
                     const int sb = b.fabric ? b.fabric->switches : 1 << 20;
                     if (sa != sb) return sa < sb;
                     const BitRate ca = a.fabric ? a.fabric->capacity : BitRate(0.0);
                     const BitRate cb = b.fabric ? b.fabric->capacity : BitRate(0.0);
                     if (ca != cb) return ca < cb;
                     if (a.worst_extra_ttft != b.worst_extra_ttft) {
                       return a.worst_extra_ttft < b.worst_extra_ttft;
                     }
                     if (a.instances != b.instances) return a.instances > b.instances;
                     return a.speed.rate > b.speed.rate;
                   });
  for (std::size_t i = 0; i < report.options.size(); ++i) {
    PlanOption& r = report.options[i];
    r.rank = static_cast<int>(i) + 1;
    // Compare with the smallest TP that fits at the same speed.
    const PlanOption* smaller = nullptr;
    for (const auto& other : report.options) {
      if (other.speed.name == r.speed.name && other.fits_memory && other.vllm_refusal.empty() &&
          other.tp < r.tp && (smaller == nullptr || other.tp > smaller->tp)) {
        smaller = &other;
      }
    }
    r.reason = describe_reason(r, smaller, report);
  }
  if (std::none_of(report.options.begin(), report.options.end(),
                   [](const PlanOption& r) { return r.usable; })) {
    report.warnings.emplace_back(
        "no layout fits in memory, has a switch plan and meets the budget");
  }
  return report;
}

}  // namespace tpnet
