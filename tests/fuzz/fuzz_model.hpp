#pragma once
// What the model readers (model YAML, config.json) hand on: a ModelArch
// within model_limits, and the analyses that consume one (parameter
// estimate, bytes per token, the prefill penalty) with finite results.

#include <string>

#include "fuzz_check.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/model/params.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/usecase/bytes_report.hpp"
#include "tpnet/usecase/penalty.hpp"
#include "tpnet/workload/prefill_scenario.hpp"
namespace tpnet::fuzz {

/// One layer's shapes within model_limits; every attention head at least 1 wide.
inline void check_layer(const LayerSpec& layer, int layers) {
  namespace lim = model_limits;
  const MixerSpec& mixer = layer.mixer;
  if (is_attention(mixer.kind)) {
    const AttentionSpec& a = mixer.attention;
    within(a.q_heads, 1.0, lim::kMaxHeads, "attention heads");
    within(a.kv_heads, 1.0, lim::kMaxHeads, "KV heads");
    within(a.head_dim, 1.0, lim::kMaxWidth, "head_dim");
    within(a.v_head_dim, 1.0, lim::kMaxWidth, "v_head_dim");
    within(a.window, 0.0, kMaxTokens, "window");
    within(a.indexer.top_k, 0.0, kMaxTokens, "sparse top-k");
  } else if (mixer.kind == Mixer::linear_attention) {
    within(mixer.linear.value_heads, 0.0, lim::kMaxHeads, "linear value heads");
  } else if (mixer.kind == Mixer::mamba) {
    within(mixer.mamba.heads, 0.0, lim::kMaxHeads, "Mamba heads");
  }
  const FfnSpec& ffn = layer.ffn;
  within(static_cast<double>(ffn.width), 0.0, lim::kMaxWidth, "FFN width");
  if (ffn.kind == FfnKind::moe) {
    within(ffn.moe.routed_experts, 0.0, lim::kMaxExperts, "moe.routed_experts");
    within(ffn.moe.experts_per_token, 0.0, ffn.moe.routed_experts, "moe.experts_per_token");
    within(ffn.moe.shared_experts, 0.0, lim::kMaxExperts, "moe.shared_experts");
  }
  (void)layers;
}

inline void check_model(const ModelArch& m) {
  namespace lim = model_limits;
  if (m.name.empty()) violated("model without a name");
  within(static_cast<double>(m.hidden_size), 1.0, lim::kMaxHidden, "hidden_size");
  within(m.num_layers(), 1.0, lim::kMaxLayers, "num_layers");
  within(static_cast<double>(m.vocab_size), 0.0, lim::kMaxVocab, "vocab_size");
  within(m.total_params, 0.0, lim::kMaxParams, "total_params");
  within(m.active_params, 0.0, lim::kMaxParams, "active_params");
  positive(m.bits_per_weight, "bits_per_weight");
  within(m.mtp_layers, 0.0, lim::kMaxMtpLayers, "mtp_layers");
  for (const LayerRun& run : m.layers.runs()) {
    within(run.count, 1.0, m.num_layers(), "run length");
    check_layer(run.layer, m.num_layers());
  }
}

inline void check_parts(const ParamParts& p, std::string_view what) {
  non_negative(p.embedding, what);
  non_negative(p.lm_head, what);
  non_negative(p.attention, what);
  non_negative(p.dense_ffn, what);
  non_negative(p.routed_experts, what);
  non_negative(p.shared_experts, what);
  non_negative(p.latent_projections, what);
  non_negative(p.router, what);
  non_negative(p.sum(), what);
}

/// The analyses a model feeds; InputErrors from them (a TP the model cannot
/// run) are fine, non-finite results are not.
inline void analyze_model(const ModelArch& m) {
  const ParamEstimate e = estimate_params(m);
  check_parts(e.total, "estimated total parameters");
  check_parts(e.active, "estimated active parameters");
  non_negative(e.mtp, "estimated MTP parameters");
  non_negative(e.mtp_active, "estimated active MTP parameters");
  if (e.active_params() > e.total_params() + e.total.lm_head + 1.0) {
    violated("more active than total parameters");
  }

  contract(Origin::any, [&] {
    EngineConfig engine;
    engine.tensor_parallel_size = 8;
    const Link link = parse_link("200G", InputLocation::for_key("--link"));
    const BytesReport r =
        analyze_bytes(m, engine, link, CollectiveSettings{}, Seconds::microseconds(50.0));
    positive(r.per_token_bytes, "per_token_bytes");
    non_negative(r.chunk_forward_bytes, "chunk_forward_bytes");
    non_negative(r.chunk_allreduce_transfer, "chunk_allreduce_transfer");
    non_negative(r.chunk_allreduce_latency, "chunk_allreduce_latency");
    non_negative(r.bytes_in_fixed_overhead, "bytes_in_fixed_overhead");
    for (const auto& s : r.tp_scaling) {
      positive(s.per_token_bytes, "tp_scaling per_token_bytes");
      positive(s.bytes_vs_reference, "bytes_vs_reference");
      positive(s.compute_vs_reference, "compute_vs_reference");
    }
    const Link to = parse_link("100G", InputLocation::for_key("--to"));
    const PenaltyReport p = analyze_penalty(m, engine, link, to, study_scenarios());
    positive(p.per_token_bytes, "penalty per_token_bytes");
    non_negative(p.extra_per_1k_tokens, "extra_per_1k_tokens");
    for (const auto& s : p.scenarios) {
      positive(s.prefill_bytes_per_node, "prefill_bytes_per_node");
      non_negative(s.comm_time_from, "comm_time_from");
      non_negative(s.nominal_bound, "extra_ttft_bound");
      if (s.network_share) within(*s.network_share, 0.0, 1.0, "network_share");
      if (s.ttft_increase_bound) non_negative(*s.ttft_increase_bound, "ttft_increase_bound");
      if (s.ttft_bound_at_to) positive(*s.ttft_bound_at_to, "ttft_bound_at_to");
    }
  });
}

}  // namespace tpnet::fuzz
