// MiMo-V2 (mimo_v2; MiMo-V2-Flash, V2.5, V2.5-Pro), as vLLM's
// mimo_v2_flash.py @ 91cf2f13 builds it: hybrid_layer_pattern marks each
// layer sliding-window (1) or full attention (0). The sliding layers have
// their own shapes (swa_num_attention_heads, swa_num_key_value_heads,
// swa_head_dim, swa_v_head_dim) and window (sliding_window_size); both kinds
// have values narrower than keys, which vLLM pads to the key's size in the
// KV cache. moe_layer_freq lists one 0/1 per layer: the dense layers'
// FFN is intermediate_size, the experts' moe_intermediate_size.

#include <fmt/format.h>

#include "../family_rule.hpp"
#include "../hf_layers.hpp"

namespace tpnet::hf {

namespace mimo_family {

using namespace model_limits;

void read(HfConfig& c, ModelArch& m) {
  c.ignore({"n_group", "topk_group", "topk_method", "scoring_func", "norm_topk_prob",
            "routed_scaling_factor", "attention_value_scale", "attention_projection_layout",
            "add_full_attention_sink_bias", "add_swa_attention_sink_bias", "swa_rope_theta",
            "hybrid_block_size", "partial_rotary_factor", "vision_model_type",
            "attention_chunk_size", "sliding_window"});
  const int n = layer_count(c);
  AttentionSpec full = standard_attention(c, m.hidden_size);
  full.v_head_dim = static_cast<int>(c.integer("v_head_dim", 1, kMaxWidth).value_or(full.head_dim));
  full.cache_pads_v = true;
  AttentionSpec local = full;
  local.q_heads =
      static_cast<int>(c.integer("swa_num_attention_heads", 1, kMaxHeads).value_or(full.q_heads));
  local.kv_heads = static_cast<int>(
      c.integer("swa_num_key_value_heads", 1, local.q_heads).value_or(full.kv_heads));
  local.head_dim =
      static_cast<int>(c.integer("swa_head_dim", 1, kMaxWidth).value_or(full.head_dim));
  local.v_head_dim =
      static_cast<int>(c.integer("swa_v_head_dim", 1, kMaxWidth).value_or(local.head_dim));
  std::vector<bool> sliding(static_cast<std::size_t>(n), false);
  if (c.has("hybrid_layer_pattern")) {
    sliding = c.layer_flags("hybrid_layer_pattern", n, "0 (full attention) or 1 (sliding window)");
    local.window = c.required("sliding_window_size", 1, kMaxTokens,
                              " (the window of hybrid_layer_pattern's sliding layers)");
  }
  const auto moe = read_moe(c);
  if (moe && moe->spec.expert_intermediate_size <= 0) {
    c.missing("moe_intermediate_size", " (the width of one expert)");
  }
  const std::vector<bool> experts =
      moe ? moe_layers(c, n) : std::vector<bool>(static_cast<std::size_t>(n), false);
  const long long width = c.required("intermediate_size", 1, kMaxWidth);
  m.layers = plan_of(n, [&](int i) {
    LayerSpec layer;
    const bool window = sliding[static_cast<std::size_t>(i)];
    layer.mixer.kind = window ? Mixer::sliding_window : Mixer::attention;
    layer.mixer.attention = window ? local : full;
    layer.ffn = experts[static_cast<std::size_t>(i)] ? moe_ffn(moe->spec) : dense_ffn(width);
    return layer;
  });
}

}  // namespace mimo_family

extern const FamilyRule family_mimo{"MiMo-V2",
                                    {"mimo_v2", "mimo_v2_flash"},
                                    mimo_family::read,
                                    nullptr,
                                    {"MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM"}};

}  // namespace tpnet::hf
