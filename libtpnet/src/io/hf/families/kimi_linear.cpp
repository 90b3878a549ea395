// Kimi Linear and Kimi K3 (kimi_linear; K3's kimi_k3 wraps it in text_config).
//
// linear_attn_config numbers (from 1) the layers of Kimi Delta Attention
// (kda_layers) and of MLA (full_attn_layers), every layer in exactly one.
// KDA keeps a fixed state per sequence as Gated DeltaNet does, num_heads
// heads of head_dim for keys and values alike, its decay gate low-rank
// (f_a/f_b of head_dim) and its output gate low-rank (g_a/g_b) or, with
// use_full_rank_gate, one g_proj, as vLLM's KimiDeltaAttention builds them. K3's MLA adds an
// output gate (mla_use_output_gate: g_proj, hidden -> heads x v_head_dim),
// and its routed experts work in routed_expert_hidden_size (a latent width,
// behind routed_expert_down_proj and _up_proj; vLLM's kimi_k3 model.py @
// ed51064c). Dense FFN in the first first_k_dense_replace layers.

#include <fmt/format.h>

#include "../family_rule.hpp"
#include "../hf_layers.hpp"

namespace tpnet::hf {

namespace kimi_linear_family {

using namespace model_limits;

void read(HfConfig& c, ModelArch& m) {
  // Routing, the MLA's missing RoPE, K3's latent norm and attention
  // residuals (per-layer vectors of hidden size): no weight shapes change.
  c.ignore({"moe_renormalize", "moe_router_activation_func", "num_expert_group", "topk_group",
            "topk_method", "use_grouped_topk", "routed_scaling_factor", "mla_use_nope",
            "latent_moe_use_norm", "attn_res_block_size", "activation_situ_beta",
            "activation_situ_linear_beta", "model_max_length"});
  const int n = layer_count(c);
  AttentionSpec mla = standard_attention(c, m.hidden_size);
  if (!read_latent_attention(c, mla)) c.missing("kv_lora_rank", " (the full layers' MLA)");
  mla.output_gate = c.flag("mla_use_output_gate").value_or(false);

  const HfObject config = c.object("linear_attn_config");
  const std::vector<int> kda = config.layer_numbers("kda_layers", n, 1);
  const std::vector<int> full = config.layer_numbers("full_attn_layers", n, 1);
  std::vector<int> kind(static_cast<std::size_t>(n), 0);
  for (const auto& [list, value] : {std::pair{&kda, 1}, std::pair{&full, 2}}) {
    for (const int i : *list) {
      if (kind[static_cast<std::size_t>(i)] != 0) {
        const char* key = value == 1 ? "kda_layers" : "full_attn_layers";
        throw InputError(fmt::format("layer {} is listed twice", i + 1),
                         config.at(config.node(key), key));
      }
      kind[static_cast<std::size_t>(i)] = value;
    }
  }
  for (int i = 0; i < n; ++i) {
    if (kind[static_cast<std::size_t>(i)] == 0) {
      throw InputError(fmt::format("layer {} is in neither kda_layers nor full_attn_layers", i + 1),
                       config.at(config.node("kda_layers"), "kda_layers"));
    }
  }
  LinearAttentionSpec delta;
  delta.kind = LinearKind::kimi_delta;
  delta.key_heads = delta.value_heads = config.required("num_heads", 1, kMaxHeads);
  delta.key_head_dim = delta.value_head_dim = config.required("head_dim", 1, kMaxWidth);
  delta.conv_kernel =
      static_cast<int>(config.integer("short_conv_kernel_size", 0, kMaxConvKernel).value_or(0));
  // The decay gate f is always h -> head_dim -> heads x head_dim;
  // use_full_rank_gate makes only the output gate one projection (g_proj).
  delta.gate_rank = delta.key_head_dim;
  delta.full_rank_output_gate = config.flag("use_full_rank_gate").value_or(false);
  (void)config.number("gate_lower_bound", -1e9, 1e9);

  const auto moe = read_moe(c);
  MoeSpec experts = moe ? moe->spec : MoeSpec{};
  if (moe && experts.expert_intermediate_size <= 0) {
    c.missing("moe_intermediate_size", " (the width of one expert)");
  }
  if (const auto latent = c.integer("routed_expert_hidden_size", 1, kMaxWidth)) {
    experts.latent_size = *latent;
    // vLLM builds routed_expert_down/up_proj with quant_config=None.
    experts.latent_unquantized = true;
  }
  const std::vector<bool> is_moe =
      moe ? moe_layers(c, n) : std::vector<bool>(static_cast<std::size_t>(n), false);
  const long long width =
      c.required("intermediate_size", 1, kMaxWidth, " (the width of the dense FFN)");
  m.layers = plan_of(n, [&](int i) {
    LayerSpec layer;
    if (kind[static_cast<std::size_t>(i)] == 1) {
      layer.mixer.kind = Mixer::linear_attention;
      layer.mixer.linear = delta;
    } else {
      layer.mixer.attention = mla;
    }
    layer.ffn = is_moe[static_cast<std::size_t>(i)] ? moe_ffn(experts) : dense_ffn(width);
    return layer;
  });
}

}  // namespace kimi_linear_family

extern const FamilyRule family_kimi_linear{"Kimi Linear / Kimi K3",
                                           {"kimi_linear", "kimi_k3"},
                                           kimi_linear_family::read,
                                           nullptr,
                                           {"KimiLinearForCausalLM"}};

}  // namespace tpnet::hf
