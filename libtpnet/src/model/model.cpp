#include "tpnet/model/model.hpp"

namespace tpnet {

std::string_view to_string(AttentionKind kind) {
  switch (kind) {
    case AttentionKind::mha:
      return "mha";
    case AttentionKind::gqa:
      return "gqa";
    case AttentionKind::mla:
      return "mla";
    case AttentionKind::sparse:
      return "sparse";
    case AttentionKind::hybrid_linear:
      return "hybrid-linear";
    case AttentionKind::sliding_window:
      return "sliding-window";
    case AttentionKind::compressed:
      return "compressed";
  }
  return "unknown";
}

std::string_view to_string(TablePlacement placement) {
  switch (placement) {
    case TablePlacement::gpu:
      return "gpu";
    case TablePlacement::host:
      return "host";
    case TablePlacement::disk:
      return "disk";
  }
  return "gpu";
}

std::string_view to_string(Mixer mixer) {
  switch (mixer) {
    case Mixer::attention:
      return "attention";
    case Mixer::sliding_window:
      return "sliding_window";
    case Mixer::linear_attention:
      return "linear_attention";
    case Mixer::mamba:
      return "mamba";
    case Mixer::cross_attention:
      return "cross_attention";
    case Mixer::none:
      return "none";
  }
  return "none";
}

std::string_view to_string(FfnKind ffn) {
  switch (ffn) {
    case FfnKind::dense:
      return "dense";
    case FfnKind::moe:
      return "moe";
    case FfnKind::none:
      return "none";
  }
  return "none";
}

std::string_view to_string(WeightPart part) {
  switch (part) {
    case WeightPart::embedding:
      return "embedding";
    case WeightPart::lm_head:
      return "lm_head";
    case WeightPart::attention:
      return "attention";
    case WeightPart::dense_ffn:
      return "dense_ffn";
    case WeightPart::routed_experts:
      return "routed_experts";
    case WeightPart::shared_experts:
      return "shared_experts";
    case WeightPart::router:
      return "router";
  }
  return "unknown";
}

double ModelArch::bits_of(WeightPart part) const {
  const auto it = part_bits.find(part);
  return it == part_bits.end() ? bits_per_weight : it->second;
}

long long effective_head_dim(const ModelArch& model) {
  if (model.head_dim > 0) return model.head_dim;
  if (model.mla) return model.mla->qk_nope_head_dim + model.mla->qk_rope_head_dim;
  if (model.num_attention_heads <= 0) return 0;
  return model.hidden_size / model.num_attention_heads;
}

}  // namespace tpnet
