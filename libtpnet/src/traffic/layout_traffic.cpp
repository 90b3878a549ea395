#include "tpnet/traffic/layout_traffic.hpp"

#include <algorithm>

#include "tpnet/model/layer_plan.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/collective.hpp"

namespace tpnet {

LayoutTraffic layout_traffic(const ModelArch& model, const EngineConfig& engine,
                             const ParallelLayout& layout, TokenCount tokens) {
  validate_layout(layout, model);
  const Bytes block = activation_block(model, engine, tokens);
  const bool expert_parallel = layout.ep > 1;
  const double factor = allreduce_sent_factor(layout.tp, engine.algorithm);
  const int steps_per_allreduce = allreduce_steps(layout.tp, engine.algorithm);
  // Each of the tp replicas of a group's tokens dispatches its share of them
  // to top-k experts, (ep-1)/ep of which live on other ranks; combine returns
  // as many bytes.
  const Bytes alltoall_phase = expert_parallel
                                   ? block / layout.tp *
                                         (first_moe(model.layers)->experts_per_token *
                                          static_cast<double>(layout.ep - 1) / layout.ep)
                                   : Bytes(0.0);
  // A stage boundary carries hidden states and residual (2 x block); each of
  // the tp ranks sends 1/tp of them and the next stage all-gathers them.
  const Bytes boundary_send = block * (2.0 / layout.tp);
  const Bytes boundary_gather = block * 2.0 * ring_sent_factor(Collective::all_gather, layout.tp);

  LayoutTraffic busiest;
  int all_allreduces = 0;
  int all_moe = 0;
  const auto ranges = stage_layers(model.num_layers(), layout.pp);
  for (std::size_t s = 0; s < ranges.size(); ++s) {
    const auto [start, end] = ranges[s];
    const int moe = expert_parallel ? tally_layers(model.layers, start, end).moe : 0;
    LayoutTraffic t;
    t.layout = layout;
    t.tokens = tokens;
    // With EP a MoE layer combines its experts by all-to-all, so only the
    // attention block's all-reduce remains in it.
    // At least none: --allreduces-per-layer 0 with EP must not go negative.
    t.allreduces = std::max(0, layer_allreduces(model, engine, start, end) - moe) +
                   (s == 0 ? engine.extra_allreduces_per_forward : 0);
    t.allreduce_bytes = block * (factor * t.allreduces);
    t.alltoall_phases = 2 * moe;
    t.alltoall_bytes = alltoall_phase * t.alltoall_phases;
    t.pp_boundaries = layout.pp - 1;
    const bool sends = s + 1 < ranges.size();
    const bool receives = s > 0;
    t.pp_bytes = (sends ? boundary_send : Bytes(0.0)) + (receives ? boundary_gather : Bytes(0.0));
    t.total_bytes = t.allreduce_bytes + t.alltoall_bytes + t.pp_bytes;
    t.messages = static_cast<long long>(t.allreduces) * steps_per_allreduce +
                 static_cast<long long>(t.alltoall_phases) * (layout.ep - 1) + (sends ? 1 : 0) +
                 (receives ? layout.tp - 1 : 0);
    all_allreduces += t.allreduces;
    all_moe += moe;
    if (s == 0 || t.total_bytes > busiest.total_bytes) busiest = t;
  }
  // The critical path runs through every stage: all their all-reduces, one
  // latency step per all-to-all phase, and per boundary a send and a ring
  // all-gather.
  busiest.sequential_steps =
      all_allreduces * steps_per_allreduce + 2 * all_moe + (layout.pp - 1) * layout.tp;
  return busiest;
}

Bytes layout_bytes_per_token(const ModelArch& model, const EngineConfig& engine,
                             const ParallelLayout& layout) {
  return layout_traffic(model, engine, layout, 1).total_bytes;
}

}  // namespace tpnet
