#pragma once
/// A model's architecture: what decides the bytes a tensor-parallel forward
/// pass sends (hidden size, layers, vocabulary) and the weights each node
/// reads (parameters, bits per weight).

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tpnet {

/// How attention is built; it decides KV cache shapes and whether every
/// layer is a full-attention layer. Traffic per layer does not depend on it.
enum class AttentionKind {
  mha,             ///< multi-head attention, one KV head per query head
  gqa,             ///< grouped-query attention
  mla,             ///< multi-head latent attention (DeepSeek)
  sparse,          ///< sparse attention over a selected top-k of earlier tokens (DSA)
  hybrid_linear,   ///< linear-attention (e.g. Gated DeltaNet) layers mixed with full attention
  sliding_window,  ///< sliding-window layers mixed with full attention
};

[[nodiscard]] std::string_view to_string(AttentionKind kind);

/// Mixture-of-experts fields; absent for dense models.
struct MoeSpec {
  int routed_experts = 0;
  int experts_per_token = 0;
  int shared_experts = 0;
};

struct ModelArch {
  std::string name;         ///< catalog name, e.g. "glm-5.3"
  std::string description;  ///< one line for listings
  std::string source;       ///< where the numbers come from

  long long hidden_size = 0;
  int num_layers = 0;
  long long vocab_size = 0;
  int num_attention_heads = 0;
  int num_kv_heads = 0;
  AttentionKind attention = AttentionKind::gqa;
  std::optional<int> sparse_attention_top_k;

  double total_params = 0.0;   ///< all weights
  double active_params = 0.0;  ///< weights read per token (= total for dense models)
  double bits_per_weight = 16.0;

  std::optional<MoeSpec> moe;

  /// Values not stated by the model's source, with why they were chosen.
  std::map<std::string, std::string> assumptions;
};

}  // namespace tpnet
