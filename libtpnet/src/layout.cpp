#include "tpnet/layout.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "tpnet/collective.hpp"
#include "tpnet/params.hpp"
#include "tpnet/traffic.hpp"

namespace tpnet {

std::string ParallelLayout::name() const {
  std::string out = fmt::format("TP{}", tp);
  if (pp > 1) out += fmt::format("xPP{}", pp);
  if (ep > 1) out += fmt::format("xEP{}", ep);
  return out;
}

namespace {

int moe_layers(const ModelArch& model) {
  if (!model.moe) return 0;
  return std::max(0, model.num_layers - model.moe->first_dense_layers);
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

}  // namespace

void validate_layout(const ParallelLayout& layout, const ModelArch& model) {
  auto fail = [](const std::string& flag, const std::string& message) {
    throw InputError(message, InputLocation::for_key(flag));
  };
  if (layout.tp < 1 || layout.tp > 1024)
    fail("--tp", fmt::format("{} is not allowed; use 1 to 1024", layout.tp));
  if (layout.pp < 1 || layout.pp > model.num_layers) {
    fail("--pp", fmt::format("{} is not allowed; use 1 to {} ({} has {} layers)", layout.pp,
                             model.num_layers, model.name, model.num_layers));
  }
  if (layout.ep < 1 || layout.ep > 4096)
    fail("--ep", fmt::format("{} is not allowed; use 1 to 4096", layout.ep));
  if (layout.ep > 1) {
    if (!model.moe) {
      fail("--ep", fmt::format("{} is dense: expert parallelism needs a mixture-of-experts model",
                               model.name));
    }
    if (layout.ep % layout.tp != 0) {
      fail("--ep", fmt::format("EP{} is not a multiple of TP{}; EP spans TP x data-parallel ranks",
                               layout.ep, layout.tp));
    }
    if (layout.ep > model.moe->routed_experts) {
      fail("--ep", fmt::format("EP{} exceeds {}'s {} routed experts", layout.ep, model.name,
                               model.moe->routed_experts));
    }
  }
  if (layout.nodes() < 2) {
    fail("--tp", "a layout of one node sends nothing over the network; use 2 or more nodes");
  }
}

LayoutTraffic layout_traffic(const ModelArch& model, const EngineConfig& engine,
                             const ParallelLayout& layout, TokenCount tokens) {
  validate_layout(layout, model);
  LayoutTraffic out;
  out.layout = layout;
  out.tokens = tokens;
  const Bytes block = activation_block(model, engine, tokens);
  const bool expert_parallel = layout.ep > 1;

  // The first stage holds the embedding all-reduce and at least as many
  // layers as any other stage: it is the busiest node.
  const int stage_layers = ceil_div(model.num_layers, layout.pp);
  const int stage_moe = expert_parallel ? ceil_div(moe_layers(model), layout.pp) : 0;
  const int all_moe = expert_parallel ? moe_layers(model) : 0;
  // With EP a MoE layer combines its experts by all-to-all, so only the
  // attention block's all-reduce remains in it.
  out.allreduces = stage_layers * engine.allreduces_per_layer - std::min(stage_moe, stage_layers) +
                   engine.extra_allreduces_per_forward;
  const double factor = allreduce_sent_factor(layout.tp, engine.algorithm);
  out.allreduce_bytes = block * (factor * out.allreduces);
  const int steps_per_allreduce = allreduce_steps(layout.tp, engine.algorithm);

  if (expert_parallel) {
    // Each of the tp replicas of a group's tokens dispatches its share of them
    // to top-k experts, (ep-1)/ep of which live on other ranks; combine returns
    // as many bytes.
    const double remote = static_cast<double>(layout.ep - 1) / layout.ep;
    const Bytes phase = block / layout.tp * (model.moe->experts_per_token * remote);
    out.alltoall_phases = 2 * stage_moe;
    out.alltoall_bytes = phase * out.alltoall_phases;
  }
  if (layout.pp > 1) {
    out.pp_boundaries = layout.pp - 1;
    out.pp_bytes = block;  // the busiest stage sends its output activations once
  }
  out.total_bytes = out.allreduce_bytes + out.alltoall_bytes + out.pp_bytes;

  const int all_allreduces = model.num_layers * engine.allreduces_per_layer - all_moe +
                             engine.extra_allreduces_per_forward;
  out.sequential_steps = all_allreduces * steps_per_allreduce + 2 * all_moe + out.pp_boundaries;
  out.messages = static_cast<long long>(out.allreduces) * steps_per_allreduce +
                 static_cast<long long>(out.alltoall_phases) * (layout.ep - 1) +
                 (layout.pp > 1 ? 1 : 0);
  return out;
}

Bytes layout_bytes_per_token(const ModelArch& model, const EngineConfig& engine,
                             const ParallelLayout& layout) {
  return layout_traffic(model, engine, layout, 1).total_bytes;
}

Bytes weights_per_node(const ModelArch& model, const ParallelLayout& layout) {
  const double total = model.total_params * model.bits_per_weight / 8.0;
  const double dense_split = static_cast<double>(layout.tp) * layout.pp;
  if (layout.ep <= 1 || !model.moe) return Bytes(total / dense_split);
  // Experts spread over ep x pp ranks while attention and dense parts are
  // replicated in each data-parallel group. The expert share comes from the
  // architecture; without the shapes, keep the conservative dense split.
  const ParamEstimate estimate = estimate_params(model);
  if (!estimate.complete() || estimate.total_params() <= 0.0) return Bytes(total / dense_split);
  const double experts = estimate.total.routed_experts / estimate.total_params();
  return Bytes(total * ((1.0 - experts) / dense_split +
                        experts / (static_cast<double>(layout.ep) * layout.pp)));
}

}  // namespace tpnet
