// Llama 4 (llama4, llama4_text).
//
// Experts of intermediate_size with one shared expert as wide (Llama4TextMoe)
// in every interleave_moe_layer_step-th layer, the others dense of
// intermediate_size_mlp. Attention is chunked on the layers that use RoPE
// (attention_chunk_size tokens: a token sees its own chunk) and global on
// the NoPE layers: no_rope_layers (1 = RoPE), or when empty a NoPE layer
// every no_rope_layer_interval-th (default 4), as transformers'
// Llama4TextConfig builds them and vLLM's Llama4Attention
// (use_chunked_local_attn = not nope and attention_chunk_size) runs them.

#include <fmt/format.h>

#include "../family_rule.hpp"
#include "../hf_layers.hpp"

namespace tpnet::hf {

namespace llama4_family {

using namespace model_limits;

/// Whether layer i uses RoPE (and so chunked attention).
std::vector<bool> rope_layers(HfConfig& c, ModelArch& m, int layers) {
  std::vector<bool> rope(static_cast<std::size_t>(layers), true);
  const json::Value* listed = c.node("no_rope_layers");
  if (listed != nullptr && listed->is_array() && listed->size() > 0) {
    if (listed->size() < static_cast<std::size_t>(layers)) {
      throw InputError(
          fmt::format("has {} entries; the model has {} layers", listed->size(), layers),
          c.at(listed, "no_rope_layers"));
    }
    for (int i = 0; i < layers; ++i) {
      const json::Value& item = listed->items()[static_cast<std::size_t>(i)];
      if (!item.is_number() || (item.text() != "0" && item.text() != "1")) {
        throw InputError("expected 1 (RoPE) or 0 (NoPE) per layer", c.at(&item, "no_rope_layers"));
      }
      rope[static_cast<std::size_t>(i)] = item.text() == "1";
    }
    return rope;
  }
  const auto stated = c.integer("no_rope_layer_interval", 1, kMaxLayers);
  const long long every = stated.value_or(4);
  if (!stated) {
    m.assumptions["no_rope_layer_interval"] = class_default(
        c, "4: every 4th layer is a global NoPE layer, the others attend within their chunk");
  }
  for (int i = 0; i < layers; ++i) rope[static_cast<std::size_t>(i)] = (i + 1) % every != 0;
  return rope;
}

void read(HfConfig& c, ModelArch& m) {
  c.ignore({"use_qk_norm", "attn_temperature_tuning", "floor_scale", "attn_scale",
            "router_jitter_noise", "for_llm_compressor"});
  c.tie_default = false;  // Llama4TextConfig (configuration_llama4.py @ 008e5743)
  const int n = layer_count(c);
  const AttentionSpec attention = standard_attention(c, m.hidden_size);
  const auto moe = read_moe(c);
  if (!moe) c.missing("num_local_experts", " (Llama 4's experts)");
  MoeSpec experts = moe->spec;
  experts.expert_intermediate_size =
      c.required("intermediate_size", 1, kMaxWidth, " (the width of one expert)");
  experts.shared_experts = 1;
  const long long step = c.integer("interleave_moe_layer_step", 1, n).value_or(1);
  const bool dense_layers = step > 1;
  const long long dense_width =
      dense_layers ? c.required("intermediate_size_mlp", 1, kMaxWidth,
                                " (the width of the dense layers between MoE layers)")
                   : c.integer("intermediate_size_mlp", 1, kMaxWidth).value_or(0);
  const auto chunk = c.integer("attention_chunk_size", 1, kMaxTokens);
  const std::vector<bool> rope = rope_layers(c, m, n);
  m.layers = plan_of(n, [&](int i) {
    LayerSpec layer;
    layer.mixer.attention = attention;
    if (chunk && rope[static_cast<std::size_t>(i)]) {
      layer.mixer.kind = Mixer::chunked_attention;
      layer.mixer.attention.window = static_cast<int>(*chunk);
    }
    layer.ffn = (i + 1) % step == 0 ? moe_ffn(experts) : dense_ffn(dense_width);
    return layer;
  });
}

}  // namespace llama4_family

extern const FamilyRule family_llama4{"Llama 4",
                                      {"llama4", "llama4_text"},
                                      llama4_family::read,
                                      nullptr,
                                      {"Llama4ForCausalLM", "Llama4ForConditionalGeneration"}};

}  // namespace tpnet::hf
