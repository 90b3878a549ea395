// DeepSeek-V2/V3/V3.2, Kimi-K2 and GLM-5 (deepseek_v2, deepseek_v3,
// deepseek_v32, kimi_k2, kimi_k25, glm_moe_dsa).
//
// Multi-head latent attention in every layer (kv_lora_rank, q_lora_rank,
// qk_rope_head_dim, qk_nope_head_dim, v_head_dim), with DeepSeek Sparse
// Attention's indexer where index_topk is given. Dense FFNs in the first
// first_k_dense_replace layers, experts after them where moe_layer_freq
// says; GLM-5.x may list them instead (mlp_layer_types: dense / sparse, as
// transformers' GlmMoeDsaConfig reads it, configuration_glm_moe_dsa.py @
// 598881bc).

#include <fmt/format.h>

#include "../family_rule.hpp"
#include "../hf_layers.hpp"

namespace tpnet::hf {

namespace deepseek_family {

/// GLM-5.x's mlp_layer_types: "dense" or "sparse" (experts) per layer.
std::vector<bool> listed_moe_layers(const HfConfig& c, int layers) {
  std::vector<bool> out;
  for (const int kind : c.layer_names("mlp_layer_types", layers, {"dense", "sparse"})) {
    out.push_back(kind == 1);
  }
  return out;
}

void read(HfConfig& c, ModelArch& m) {
  c.ignore({"n_group", "topk_group", "topk_method", "scoring_func", "norm_topk_prob",
            "routed_scaling_factor", "ep_size", "aux_loss_alpha", "seq_aux", "qk_head_dim",
            "indexer_rope_interleave", "moe_router_dtype"});
  const int n = layer_count(c);
  AttentionSpec attention = standard_attention(c, m.hidden_size);
  if (!read_latent_attention(c, attention)) c.missing("kv_lora_rank", " (latent attention)");
  attention.indexer = read_indexer(c);
  const auto moe = read_moe(c);
  if (moe && moe->spec.expert_intermediate_size <= 0) {
    c.missing("moe_intermediate_size", " (the width of one expert)");
  }
  std::vector<bool> experts(static_cast<std::size_t>(n), false);
  if (moe && c.has("mlp_layer_types")) {
    // transformers' GlmMoeDsaConfig builds the list from these when it is absent.
    c.ignore({"first_k_dense_replace", "moe_layer_freq"});
    experts = listed_moe_layers(c, n);
  } else if (moe) {
    experts = moe_layers(c, n);
  }
  if (c.has("indexer_types")) {
    // GLM-5.2 marks layers "shared" whose indexer, a write-up says, reuses
    // the previous full layer's selection; no modelling code tpnet read says
    // so. Each layer keeps its own indexer here: its weights and FP8 keys
    // are then an upper bound.
    const std::vector<int> types = c.layer_names("indexer_types", n, {"full", "shared"});
    c.ignore({"index_topk_freq", "index_skip_topk_offset", "index_share_for_mtp_iteration",
              "index_topk_pattern"});
    const auto shared = std::count(types.begin(), types.end(), 1);
    if (shared > 0) {
      m.warnings.push_back(fmt::format(
          "{}: indexer_types marks {} of {} layers' sparse-attention indexer \"shared\"; tpnet "
          "gives every layer its own indexer, so the indexer's weights and its FP8 keys in the "
          "KV cache (about a tenth of it) are upper bounds",
          c.origin(), shared, n));
    }
  }
  const bool dense = std::find(experts.begin(), experts.end(), false) != experts.end();
  const long long width =
      dense ? c.required("intermediate_size", 1, model_limits::kMaxWidth,
                         " (the width of the dense FFN)")
            : c.integer("intermediate_size", 1, model_limits::kMaxWidth).value_or(0);
  m.layers = plan_of(n, [&](int i) {
    LayerSpec layer;
    layer.mixer.attention = attention;
    layer.ffn = experts[static_cast<std::size_t>(i)] ? moe_ffn(moe->spec) : dense_ffn(width);
    return layer;
  });
}

}  // namespace deepseek_family

extern const FamilyRule family_deepseek{
    "DeepSeek-V2/V3/V3.2, Kimi-K2, GLM-5",
    {"deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "kimi_k25", "glm_moe_dsa"},
    deepseek_family::read};

}  // namespace tpnet::hf
