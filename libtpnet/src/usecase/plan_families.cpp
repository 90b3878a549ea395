#include "plan_families.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "tpnet/base/limits.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/kv_transfer.hpp"
#include "tpnet/traffic/layout_traffic.hpp"
#include "tpnet/traffic/transfer_time.hpp"

namespace tpnet::plan_detail {
namespace {

bool asked(const PlanSearchRequest& in, LayoutFamily family) {
  return std::find(in.families.begin(), in.families.end(), family) != in.families.end();
}

/// Every TP size plan tries: powers of two up to the largest an engine takes.
std::vector<int> tp_sizes(int nodes) {
  std::vector<int> out;
  for (int tp = 1; tp <= std::min(nodes, kMaxTp); tp *= 2) out.push_back(tp);
  return out;
}

/// What the busiest node of one instance sends on the critical path of a
/// prompt: the layout's collectives, and for xPyD the KV hand-off a prefill
/// rank sends beside its TP all-reduces.
Bytes prompt_bytes(const PlanSearchRequest& in, const PlanOption& r, TokenCount tokens) {
  EngineConfig engine = in.engine;
  engine.tensor_parallel_size = r.tp;
  if (!r.disaggregation) {
    return layout_bytes_per_token(in.model, engine, r.layout) * static_cast<double>(tokens);
  }
  const DisaggregationLayout& d = *r.disaggregation;
  const Bytes tp_bytes =
      d.prefill_tp > 1 ? bytes_per_prompt_token(in.model, engine) * static_cast<double>(tokens)
                       : Bytes(0.0);
  KvTransferSettings settings;
  settings.kv_dtype_bytes = in.memory.kv_cache_dtype_bytes;
  return tp_bytes +
         kv_transfer(in.model, d.prefill_tp, d.decode_tp, tokens, settings).per_prefill_rank;
}

/// The pools of an xPyD group each fit on their nodes; the report shown is
/// the pool that does not, else the decode pool's (its KV cache is what binds).
MemoryReport fit_memory(const PlanSearchRequest& in, const PlanOption& r) {
  const auto fit = [&](const ParallelLayout& layout) {
    EngineConfig engine = in.engine;
    engine.tensor_parallel_size = layout.tp;
    return analyze_memory(in.model, MemoryRequest{layout, engine, in.node, in.memory});
  };
  if (!r.disaggregation) return fit(r.layout);
  const MemoryReport prefill = fit(ParallelLayout{r.disaggregation->prefill_tp, 1, 1});
  MemoryReport decode = fit(ParallelLayout{r.disaggregation->decode_tp, 1, 1});
  return prefill.fits ? decode : prefill;
}

/// EP's all-to-all and xPyD's hand-off send between every pair of an
/// instance's nodes; a ring of cables joins each node to two others only.
std::string topology_refusal(const PlanOption& r, const Fabric& fabric) {
  if (fabric.topology != FabricTopology::ring || r.nodes_per_instance() <= 3) return {};
  if (r.family == LayoutFamily::ep) {
    return fmt::format(
        "{}: a ring of cables joins each node to two others, and EP's all-to-all sends between "
        "every pair of its {} nodes; it needs a switch",
        r.layout_name(), r.nodes_per_instance());
  }
  if (r.family == LayoutFamily::disaggregated) {
    return fmt::format(
        "{}: a ring of cables joins each node to two others, and the KV hand-off goes from any "
        "prefill node to any decode node of the {}; it needs a switch",
        r.layout_name(), r.nodes_per_instance());
  }
  return {};
}

std::string refusal_of_tp(const ModelArch& model, const PlanOption& r) {
  if (!r.disaggregation) return tp_refusal(model, r.layout.tp);
  std::string text = tp_refusal(model, r.disaggregation->prefill_tp);
  return text.empty() ? tp_refusal(model, r.disaggregation->decode_tp) : text;
}

}  // namespace

std::vector<PlanCandidate> beyond_tp_candidates(const PlanSearchRequest& in) {
  std::vector<PlanCandidate> out;
  const int nodes = in.nodes;
  const int layers = in.model.num_layers();
  if (asked(in, LayoutFamily::pp)) {
    for (const int tp : tp_sizes(nodes)) {
      for (int pp = 2; tp * pp <= nodes && pp <= layers; ++pp) {
        if (nodes % (tp * pp) == 0)
          out.push_back({LayoutFamily::pp, ParallelLayout{tp, pp, 1}, {}});
      }
    }
  }
  const MoeSpec* moe = first_moe(in.model.layers);
  if (asked(in, LayoutFamily::ep) && moe != nullptr) {
    for (const int tp : tp_sizes(nodes)) {
      for (int dp = 2; tp * dp <= nodes && tp * dp <= moe->routed_experts; ++dp) {
        if (nodes % (tp * dp) == 0) {
          out.push_back({LayoutFamily::ep, ParallelLayout{tp, 1, tp * dp}, {}});
        }
      }
    }
  }
  if (asked(in, LayoutFamily::disaggregated)) {
    for (const int tp : tp_sizes(nodes)) {
      for (int x = 1; (x + 1) * tp <= nodes; ++x) {
        for (int y = 1; (x + y) * tp <= nodes; ++y) {
          if (nodes % ((x + y) * tp) != 0 || std::gcd(x, y) != 1) continue;
          out.push_back({LayoutFamily::disaggregated, ParallelLayout{tp, 1, 1},
                         DisaggregationLayout{x, y, tp, tp}});
        }
      }
    }
  }
  return out;
}

Purchase plan_purchase(const PlanSearchRequest& in, const Fabric& fabric) {
  Purchase p;
  p.node = in.node.name;
  p.node_count = in.nodes;
  p.switch_name = fabric.switch_name;
  p.switch_count = fabric.switches;
  for (const auto& line : fabric.cables) p.cables.push_back({line.count, line.description});
  return p;
}

std::optional<ExpectLayout> expect_on(const PlanSearchRequest& in, const PlanOption& r,
                                      const FabricProfile& profile, std::string& refusal) {
  ExpectRequest ask;
  ask.model = in.model;
  ask.engine = in.engine;
  ask.node = in.node;
  ask.nodes = in.nodes;
  ask.fabric = profile;
  ask.memory = in.memory;
  const auto& first = in.workload.prompts.front();
  ask.prompt_tokens = first.prompt.tokens_each;
  ask.output_tokens = first.output_tokens.value_or(kDefaultOutputTokens);
  ask.concurrency = {1, kPlanExpectedRequests};
  const SingleLayoutExpectation expected = expect_single_layout(ask, r.layout, r.disaggregation);
  if (expected.refused && expected.refused->where().key == "fabric") {
    refusal = expected.refused->detail();
  }
  const auto& row = expected.row;
  if (row && row->fits && row->refusal.empty() && row->decode.size() == 2) return row;
  return std::nullopt;
}

void add_beyond_tp_options(const PlanSearchRequest& in, const PlanCandidate& candidate,
                           PlanSearchReport& report) {
  const ModelArch& model = in.model;
  for (const auto& speed : in.speeds) {
    std::vector<std::optional<Fabric>> fabrics;
    for (auto& f : fabrics_for_layout(in, candidate.nodes(), speed)) {
      fabrics.emplace_back(std::move(f));
    }
    if (fabrics.empty()) fabrics.emplace_back(std::nullopt);
    for (auto& fabric : fabrics) {
      PlanOption r;
      r.family = candidate.family;
      r.layout = candidate.layout;
      r.disaggregation = candidate.disaggregation;
      r.tp = candidate.disaggregation ? candidate.disaggregation->prefill_tp : candidate.layout.tp;
      r.instances = in.nodes / candidate.nodes();
      r.speed = speed;
      r.fabric = std::move(fabric);
      r.vllm_refusal = refusal_of_tp(model, r);
      if (!r.disaggregation) {
        try {
          validate_layout(r.layout, model);
        } catch (const InputError& e) {
          r.layout_refusal = e.detail();
        }
      }
      if (r.fabric && r.layout_refusal.empty()) r.layout_refusal = topology_refusal(r, *r.fabric);
      if (r.layout_refusal.empty()) {
        r.memory = fit_memory(in, r);
        r.fits_memory = r.memory.fits;
      }
      const FabricProfile profile =
          r.fabric && r.fabric->profile
              ? *r.fabric->profile
              : priced_profile(in.fabric_catalog, FabricTopology::switched, speed, in.collective,
                               in.node, in.calibration);
      double sum = 0.0;
      if (r.layout_refusal.empty()) {
        r.per_token_bytes =
            prompt_bytes(in, r, kDefaultChunkTokens) / static_cast<double>(kDefaultChunkTokens);
        for (const auto& prompt : in.workload.prompts) {
          const Bytes bytes = prompt_bytes(in, r, prompt.prompt.total_tokens());
          const Seconds extra = extra_transfer_time(bytes, report.reference.rate, speed.rate);
          sum += extra.value();
          if (extra > r.worst_extra_ttft || r.worst_prompt.empty()) r.worst_prompt = prompt.name;
          r.worst_extra_ttft = std::max(r.worst_extra_ttft, extra);
        }
      }
      r.mean_extra_ttft = Seconds(sum / static_cast<double>(in.workload.prompts.size()));
      if (r.layout_refusal.empty() && r.fits_memory && r.vllm_refusal.empty()) {
        r.expected = expect_on(in, r, profile, r.layout_refusal);
        // The same layout's expectation on the reference fabric: what the
        // slower link costs its first prompt.
        if (r.expected && report.reference_profile) {
          std::string ignored;
          if (const auto reference = expect_on(in, r, *report.reference_profile, ignored)) {
            r.worst_predicted_extra_ttft =
                Seconds(r.expected->ttft_s.typical - reference->ttft_s.typical);
          }
        }
      }
      const Seconds held =
          std::max(r.worst_extra_ttft, r.worst_predicted_extra_ttft.value_or(Seconds(0.0)));
      r.within_budget = !in.ttft_budget || held <= *in.ttft_budget;
      r.usable = r.vllm_refusal.empty() && r.layout_refusal.empty() && r.fits_memory &&
                 r.fabric.has_value() && r.within_budget;
      if (in.prices) {
        if (r.fabric) {
          r.cost = price_purchase(plan_purchase(in, *r.fabric), *in.prices, in.today);
        } else {
          r.cost =
              price_purchase(Purchase{in.node.name, in.nodes, {}, 0, {}}, *in.prices, in.today);
          r.cost->complete = false;
          r.cost->unpriced.emplace_back("a fabric (no catalog switch carries the nodes)");
        }
      }
      report.options.push_back(std::move(r));
    }
  }
}

std::string describe_beyond_tp(const PlanOption& r, const PlanSearchReport& report) {
  if (!r.vllm_refusal.empty()) return r.vllm_refusal;
  if (!r.layout_refusal.empty()) return r.layout_refusal;
  if (!r.fits_memory)
    return fmt::format("{} does not fit: {}", r.layout_name(), r.memory.fit_summary);
  if (!r.fabric) {
    return fmt::format("no catalog switch carries {} nodes at {}", r.nodes_per_instance(),
                       r.speed.name);
  }
  std::string text =
      fmt::format("{} on {} at {}", r.layout_name(), r.fabric->description, r.speed.name);
  if (r.expected) {
    const ExpectLayout& e = *r.expected;
    text += fmt::format(
        ": expected TTFT {:.2f} s, {:.1f} tok/s a request alone, {:.0f} tok/s at {} requests",
        e.ttft_s.typical, e.decode.front().per_request.typical, e.decode.back().aggregate.typical,
        kPlanExpectedRequests);
  } else {
    text += ": nothing expected (the model lacks a shape the pricing needs)";
  }
  if (r.worst_extra_ttft.value() > 0.0) {
    text += fmt::format("; at most +{:.2f} s TTFT per request against {}",
                        r.worst_extra_ttft.value(), report.reference.name);
  }
  if (r.worst_predicted_extra_ttft && r.fabric->profile && report.reference_profile &&
      r.fabric->profile->name != report.reference_profile->name) {
    text +=
        fmt::format("; expected {:+.2f} s on {} against {}", r.worst_predicted_extra_ttft->value(),
                    r.fabric->profile->name, report.reference_profile->name);
  }
  switch (r.family) {
    case LayoutFamily::pp:
      text += "; stages hand activations on, each request's forwards cross every stage";
      break;
    case LayoutFamily::ep:
      text += fmt::format("; DP{} attention, experts over {} nodes: not validated on Spark",
                          r.layout.data_parallel(), r.layout.ep);
      break;
    case LayoutFamily::disaggregated:
      text +=
          "; decode never waits for a prefill, each prompt's KV cache crosses the fabric: not "
          "validated on Spark";
      break;
    case LayoutFamily::tp:
      break;
  }
  if (!r.within_budget) text += "; exceeds the TTFT budget";
  return text;
}

}  // namespace tpnet::plan_detail
