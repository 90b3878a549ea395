#include "tpnet/model/layer.hpp"

namespace tpnet {

std::string_view to_string(Mixer mixer) {
  switch (mixer) {
    case Mixer::attention:
      return "attention";
    case Mixer::sliding_window:
      return "sliding_window";
    case Mixer::chunked_attention:
      return "chunked_attention";
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

std::string_view to_string(LinearKind kind) {
  switch (kind) {
    case LinearKind::gated_deltanet:
      return "gated_deltanet";
    case LinearKind::kimi_delta:
      return "kimi_delta";
    case LinearKind::lightning:
      return "lightning";
  }
  return "gated_deltanet";
}

}  // namespace tpnet
