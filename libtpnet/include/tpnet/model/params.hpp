#pragma once
/// Parameter counts from a model's shapes: totals, what one token reads, and
/// where the weights sit. Formulas and their checks against published totals:
/// docs/formulas.md s.8.

#include <string>
#include <vector>

#include "tpnet/model/model.hpp"

namespace tpnet {

/// Parameters by part of the model. Norm weights, biases, per-head scalars
/// (DeltaNet's A and dt bias, attention sinks) and MoE score-correction biases
/// are left out: together they are below 0.1% of every catalog model.
struct ParamParts {
  double embedding = 0.0;       ///< input embedding table, V x h
  double lm_head = 0.0;         ///< output head, V x h (in totals 0 when tied to the embedding)
  double attention = 0.0;       ///< attention projections of every layer: GQA/MHA, MLA, the
                                ///< DSA indexer and linear-attention (Gated DeltaNet) layers
  double dense_ffn = 0.0;       ///< dense gated FFNs, 3 x h x intermediate each
  double routed_experts = 0.0;  ///< routed experts of every MoE layer
  double shared_experts = 0.0;  ///< shared (always-on) experts
  double router = 0.0;          ///< expert gates, h x experts per MoE layer
  /// a latent MoE's down and up projections, 2 x h x latent per MoE layer
  double latent_projections = 0.0;

  [[nodiscard]] double sum() const {
    return embedding + lm_head + attention + dense_ffn + routed_experts + shared_experts + router +
           latent_projections;
  }
  /// The parameters of one part.
  [[nodiscard]] double of(WeightPart part) const;
};

struct ParamEstimate {
  /// Every weight of the main model; multi-token-prediction layers are apart
  /// (mtp), as model cards state totals (DeepSeek-V3: 671B, 685B with MTP).
  ParamParts total;
  /// Weights one token reads: routed experts scaled by experts_per_token /
  /// routed_experts, the LM head (even when tied), not the input embedding
  /// table (a token reads one row of it).
  ParamParts active;
  double mtp = 0.0;         ///< all MTP layers; they share the embedding and head
  double mtp_active = 0.0;  ///< what one token reads in them
  /// Keys the estimate needed but the model lacks ("intermediate_size",
  /// "moe.expert_intermediate_size", "mla", "linear_attention"); the parts
  /// they feed are counted as 0.
  std::vector<std::string> missing;

  [[nodiscard]] double total_params() const { return total.sum(); }
  [[nodiscard]] double active_params() const { return active.sum(); }
  [[nodiscard]] double total_with_mtp() const { return total.sum() + mtp; }
  [[nodiscard]] bool complete() const { return missing.empty(); }
};

/// Counts parameters from the shapes in `model` (never from its stated
/// total_params). Gated FFNs count 3 x h x intermediate; see docs/formulas.md s.8.
[[nodiscard]] ParamEstimate estimate_params(const ModelArch& model);

/// Parameters of one layer's mixer in a model of width `hidden`: attention
/// of any span (GQA/MHA with its gate, MLA, the DSA indexer, DeepSeek-V4's
/// compressed attention), a linear mixer or Mamba-2; 0 for no mixer and for
/// shapes the model does not state.
[[nodiscard]] double mixer_params(long long hidden, const MixerSpec& mixer);

/// One Mamba-2 mixer's weights (0 without its shapes): in_proj h -> 2
/// d_inner + 2 groups x state + heads, the convolution (with bias) over
/// d_inner + 2 groups x state, A, D and dt bias per head, the gated norm, and
/// out_proj d_inner -> h.
[[nodiscard]] double mamba_params(long long hidden, const MambaSpec& mamba);

/// One layer's FFN weights by part: the dense FFN, or a MoE layer's routed
/// experts (all of them, and what one token reads), shared experts and router.
struct FfnParams {
  double dense = 0.0;
  double routed = 0.0;
  double routed_active = 0.0;
  double shared = 0.0;
  double router = 0.0;
  double latent = 0.0;  ///< a latent MoE's down and up projections
};
[[nodiscard]] FfnParams ffn_params(long long hidden, const FfnSpec& ffn);

}  // namespace tpnet
