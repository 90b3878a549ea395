#include "tpnet/model.hpp"

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
  }
  return "unknown";
}

}  // namespace tpnet
