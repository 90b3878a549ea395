#include "tpnet/traffic/layout_traffic.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "tpnet/model/layer_plan.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/collective.hpp"
#include "tpnet/traffic/expert_alltoall.hpp"

namespace tpnet {

LayoutTraffic layout_traffic(const ModelArch& model, const EngineConfig& engine,
                             const ParallelLayout& layout, TokenCount tokens) {
  validate_layout(layout, model);
  const Bytes block = activation_block(model, engine, tokens);
  const bool expert_parallel = layout.ep > 1;
  const double factor = allreduce_sent_factor(layout.tp, engine.algorithm);
  const int steps_per_allreduce = allreduce_steps(layout.tp, engine.algorithm);
  // One MoE layer's dispatch and combine by the engine's all-to-all
  // backend (s.31): bytes and messages per node, and whether the layer keeps
  // its TP all-reduce (EP inside one TP group, no all-to-all).
  const std::optional<ExpertAllToAll> alltoall =
      expert_parallel
          ? std::optional<ExpertAllToAll>(expert_alltoall(
                model, engine, layout, ExpertAllToAllSettings{}, static_cast<double>(tokens)))
          : std::nullopt;
  const Bytes alltoall_per_layer =
      alltoall ? alltoall->dispatch_sent + alltoall->combine_sent + alltoall->tp_allgather_sent
               : Bytes(0.0);
  const bool tp_gather_after_combine = alltoall && alltoall->tp_allgather_sent.count() > 0.0;
  // A node's messages of one MoE layer: both phases' sends, then the TP
  // all-gather's ring steps.
  const long long alltoall_messages = alltoall ? 2 * std::llround(alltoall->messages_per_phase) +
                                                     (tp_gather_after_combine ? layout.tp - 1 : 0)
                                               : 0;
  // A layer's latency steps on the critical path: a ring's ranks - 1 per
  // phase, one round per DeepEP phase, then the TP all-gather's tp - 1.
  const int alltoall_phase_steps = !alltoall || alltoall->ranks <= 1 ? 0
                                   : alltoall->backend == AllToAllBackend::allgather_reducescatter
                                       ? alltoall->ranks - 1
                                       : 1;
  const int alltoall_steps =
      2 * alltoall_phase_steps + (tp_gather_after_combine ? layout.tp - 1 : 0);
  const bool moe_drops_allreduce = alltoall && !alltoall->keeps_tp_allreduce;
  // A stage boundary carries hidden states and residual (2 x block); each of
  // the tp ranks sends 1/tp of them and the next stage all-gathers them.
  const Bytes boundary_send = block * (2.0 / layout.tp);
  const Bytes boundary_gather = block * 2.0 * ring_sent_factor(Collective::all_gather, layout.tp);

  LayoutTraffic busiest;
  int all_allreduces = 0;
  long long all_alltoall_steps = 0;
  const auto ranges = stage_layers(model.num_layers(), layout.pp);
  for (std::size_t s = 0; s < ranges.size(); ++s) {
    const auto [start, end] = ranges[s];
    const int moe = expert_parallel ? tally_layers(model.layers, start, end).moe : 0;
    const int moe_combined = moe_drops_allreduce ? moe : 0;
    LayoutTraffic t;
    t.layout = layout;
    t.tokens = tokens;
    // Where the all-to-all's combine sums the experts, only the attention
    // block's all-reduce remains in an MoE layer; at least none (an
    // allreduces_per_layer of 0 with EP must not go negative).
    t.allreduces = std::max(0, layer_allreduces(model, engine, start, end) - moe_combined) +
                   (s == 0 ? engine.extra_allreduces_per_forward : 0);
    t.allreduce_bytes = block * (factor * t.allreduces);
    t.alltoall_phases = 2 * moe;
    t.alltoall_bytes = alltoall_per_layer * static_cast<double>(moe);
    t.pp_boundaries = layout.pp - 1;
    const bool sends = s + 1 < ranges.size();
    const bool receives = s > 0;
    t.pp_bytes = (sends ? boundary_send : Bytes(0.0)) + (receives ? boundary_gather : Bytes(0.0));
    t.total_bytes = t.allreduce_bytes + t.alltoall_bytes + t.pp_bytes;
    t.messages = static_cast<long long>(t.allreduces) * steps_per_allreduce +
                 static_cast<long long>(moe) * alltoall_messages + (sends ? 1 : 0) +
                 (receives ? layout.tp - 1 : 0);
    all_allreduces += t.allreduces;
    all_alltoall_steps += static_cast<long long>(moe) * alltoall_steps;
    if (s == 0 || t.total_bytes > busiest.total_bytes) busiest = t;
  }
  // The critical path runs through every stage: all their all-reduces, the
  // all-to-alls' steps, and per boundary a send and a ring all-gather.
  busiest.sequential_steps =
      static_cast<int>(static_cast<long long>(all_allreduces) * steps_per_allreduce +
                       all_alltoall_steps + static_cast<long long>(layout.pp - 1) * layout.tp);
  return busiest;
}

Bytes layout_bytes_per_token(const ModelArch& model, const EngineConfig& engine,
                             const ParallelLayout& layout) {
  return layout_traffic(model, engine, layout, 1).total_bytes;
}

}  // namespace tpnet
