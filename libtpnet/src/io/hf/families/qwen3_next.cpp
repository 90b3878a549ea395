// Qwen3-Next and Qwen3.5 / Qwen3.6 (qwen3_next, qwen3_5*, qwen3_5_moe*).
//
// Gated DeltaNet layers with full-attention layers between them, by
// layer_types or every full_attention_interval-th. The attention's output
// is gated: q_proj gives a same-sized sigmoid gate beside the queries
// (attn_output_gate; absent, true, the config classes' default), as vLLM's
// Qwen3NextAttention builds it (qwen3_next.py @
// 6365b387890f7aa74b0fe65b81705d4730fcc763). qwen3_5_moe puts experts in
// every layer (vLLM's qwen3_5.py @ 36c110bd9a02c369eb906607a0503a583429ea22
// does not consult mlp_only_layers), qwen3_5 a dense FFN, qwen3_next
// follows mlp_only_layers and decoder_sparse_step; one shared expert of
// shared_expert_intermediate_size.

#include "../family_rule.hpp"
#include "../hf_layers.hpp"

namespace tpnet::hf {

namespace qwen3_next_family {

void read(HfConfig& c, ModelArch& m) {
  // No window (use_sliding_window false), routing and training details, the
  // MTP head's embeddings, the DeltaNet gate's activation: no shape changes.
  c.ignore({"use_sliding_window", "max_window_layers", "sliding_window", "norm_topk_prob",
            "mtp_use_dedicated_embeddings", "output_gate_type", "mamba_ssm_dtype",
            "partial_rotary_factor"});
  const int n = layer_count(c);
  AttentionSpec attention = standard_attention(c, m.hidden_size);
  if (const auto gate = c.flag("attn_output_gate")) {
    attention.output_gate = *gate;
  } else {
    attention.output_gate = true;
    m.assumptions["attn_output_gate"] =
        class_default(c, "true: q_proj also gives each head's sigmoid output gate");
  }
  const LayerKinds kinds = layer_kinds(c, n, 0);
  const bool linear = std::find(kinds.mixers.begin(), kinds.mixers.end(),
                                Mixer::linear_attention) != kinds.mixers.end();
  const LinearAttentionSpec deltanet = linear ? read_gated_deltanet(c) : LinearAttentionSpec{};
  const std::string& type = c.model_type();
  const bool every_layer_moe = type.rfind("qwen3_5_moe", 0) == 0;
  const auto moe = read_moe(c);
  if (moe && moe->spec.expert_intermediate_size <= 0) {
    c.missing("moe_intermediate_size", " (the width of one expert)");
  }
  std::vector<bool> experts(static_cast<std::size_t>(n), moe.has_value());
  if (moe && !every_layer_moe) {
    experts = moe_layers(c, n);
  } else {
    c.ignore({"mlp_only_layers", "decoder_sparse_step"});
  }
  const bool dense = std::find(experts.begin(), experts.end(), false) != experts.end();
  const long long width =
      dense ? c.required("intermediate_size", 1, model_limits::kMaxWidth,
                         " (the width of the dense FFN)")
            : c.integer("intermediate_size", 1, model_limits::kMaxWidth).value_or(0);
  m.layers = plan_of(n, [&](int i) {
    LayerSpec layer;
    layer.mixer.kind = kinds.mixers[static_cast<std::size_t>(i)];
    if (layer.mixer.kind == Mixer::linear_attention) {
      layer.mixer.linear = deltanet;
    } else {
      layer.mixer.attention = attention;
    }
    layer.ffn = experts[static_cast<std::size_t>(i)] ? moe_ffn(moe->spec) : dense_ffn(width);
    return layer;
  });
}

}  // namespace qwen3_next_family

extern const FamilyRule family_qwen3_next{
    "Qwen3-Next / Qwen3.5 / Qwen3.6",
    {"qwen3_next", "qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text"},
    qwen3_next_family::read,
    nullptr,
    {"Qwen3NextForCausalLM"}};

}  // namespace tpnet::hf
