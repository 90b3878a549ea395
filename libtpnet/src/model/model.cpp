#include "tpnet/model/model.hpp"

namespace tpnet {

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
    case WeightPart::latent_projections:
      return "latent_projections";
  }
  return "unknown";
}

std::vector<std::string> ModelArch::doubts() const {
  std::vector<std::string> out = warnings;
  if (!precision_doubt.empty()) out.push_back(precision_doubt);
  return out;
}

double ModelArch::bits_of(WeightPart part) const {
  const auto it = part_bits.find(part);
  return it == part_bits.end() ? bits_per_weight : it->second;
}

}  // namespace tpnet
