// DeciLM / Nemotron-NAS (nemotron-nas, deci; Llama-3.3-Nemotron-Super-49B):
// block_configs gives each layer its attention (or none, no_op) with its
// own KV heads (heads / n_heads_in_group) and window (window_length), and
// its FFN (or none) with its own width: 2/3 of ffn_mult x hidden, rounded up
// to a multiple of 256 (transformers' _ffn_mult_to_intermediate_size).

#include <fmt/format.h>

#include "../family_rule.hpp"
#include "../hf_layers.hpp"

namespace tpnet::hf {

namespace decilm_family {

using namespace model_limits;

long long ffn_width(double ffn_mult, long long hidden) {
  const auto width = static_cast<long long>(2.0 * ffn_mult * static_cast<double>(hidden) / 3.0);
  return (width + 255) / 256 * 256;
}

void refuse_linear(const HfObject& part, const char* why) {
  if (part.flag("replace_with_linear").value_or(false)) {
    throw InputError(std::string("tpnet cannot model this architecture yet: ") + why,
                     part.at(part.node("replace_with_linear"), "replace_with_linear"));
  }
}

void read(HfConfig& c, ModelArch& m) {
  c.ignore({"num_key_value_heads", "intermediate_size", "pretraining_tp"});
  const int n = layer_count(c);
  const AttentionSpec base = standard_attention(c, m.hidden_size);
  const json::Value* blocks = c.node("block_configs");
  if (blocks == nullptr || !blocks->is_array() || static_cast<long long>(blocks->size()) != n) {
    throw InputError(fmt::format("expected a list of {} layers (num_hidden_layers)", n),
                     c.at(blocks, "block_configs"));
  }
  std::vector<LayerSpec> layers;
  for (std::size_t i = 0; i < blocks->size(); ++i) {
    const json::Value& block = blocks->items()[i];
    if (!block.is_object())
      throw InputError("expected a JSON object", c.at(&block, "block_configs"));
    const HfObject layer(&block, c.origin(), fmt::format("{}block_configs[{}].", c.prefix(), i),
                         nullptr);
    const HfObject attention = layer.object("attention");
    const HfObject ffn = layer.object("ffn");
    refuse_linear(attention,
                  "an attention block replaced by one linear layer is not among the mixers tpnet "
                  "models");
    refuse_linear(ffn, "an FFN replaced by one linear layer is not among the FFNs tpnet models");
    LayerSpec spec;
    spec.mixer.attention = base;
    if (attention.flag("no_op").value_or(false)) {
      spec.mixer.kind = Mixer::none;
    } else {
      const int group = attention.required("n_heads_in_group", 1, base.q_heads);
      if (base.q_heads % group != 0) {
        throw InputError(
            fmt::format("{} does not divide the {} attention heads", group, base.q_heads),
            attention.at(attention.node("n_heads_in_group"), "n_heads_in_group"));
      }
      spec.mixer.attention.kv_heads = base.q_heads / group;
      if (const auto window = attention.integer("window_length", 1, kMaxTokens)) {
        spec.mixer.kind = Mixer::sliding_window;
        spec.mixer.attention.window = static_cast<int>(*window);
      }
    }
    if (ffn.flag("no_op").value_or(false)) {
      spec.ffn.kind = FfnKind::none;
    } else {
      const auto mult = ffn.number("ffn_mult", 0.0, 1e4);
      if (!mult) ffn.missing("ffn_mult", " (the layer's FFN width)");
      if (!(*mult > 0.0))
        throw InputError("must be positive", ffn.at(ffn.node("ffn_mult"), "ffn_mult"));
      spec.ffn = dense_ffn(ffn_width(*mult, m.hidden_size));
    }
    layers.push_back(spec);
  }
  m.layers = LayerPlan::of(layers);
}

}  // namespace decilm_family

extern const FamilyRule family_decilm{"DeciLM / Nemotron-NAS",
                                      {"nemotron-nas", "deci", "decilm"},
                                      decilm_family::read,
                                      nullptr,
                                      {"DeciLMForCausalLM"}};

}  // namespace tpnet::hf
