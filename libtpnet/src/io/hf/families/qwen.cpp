// Qwen2 and Qwen3, dense and MoE (qwen2, qwen2_moe, qwen3, qwen3_moe).
//
// The common decoder, but for the sliding window: transformers'
// Qwen2Config/Qwen3Config default use_sliding_window to false and, when it
// is true, slide only the layers from max_window_layers on (default 28;
// configuration_qwen2.py @ caa3177646255d2cf73626315c8582722af4749c). MoE
// layers by mlp_only_layers and decoder_sparse_step; qwen2_moe's one shared
// expert of shared_expert_intermediate_size.

#include <fmt/format.h>

#include "../family_rule.hpp"
#include "../hf_layers.hpp"

namespace tpnet::hf {

namespace qwen_family {

void read(HfConfig& c, ModelArch& m) {
  c.ignore({"norm_topk_prob"});
  // Qwen2Config's tie_word_embeddings is False (configuration_qwen2.py @
  // 008e574391258935f3ecc3035c882e73bbcac419).
  if (c.model_type() == "qwen2") c.tie_default = false;
  const auto window = c.integer("sliding_window", 1, kMaxTokens);
  const auto use_window = c.flag("use_sliding_window");
  const bool listed = c.has("layer_types") || c.has("sliding_window_pattern");
  if (window && !use_window && !listed) {
    m.assumptions["use_sliding_window"] = fmt::format(
        "Not in config.json; false, the default of transformers' {} config: sliding_window {} "
        "is not used and every layer keeps every token.",
        c.model_type(), *window);
  }
  DecoderOptions options;
  options.window_without_pattern_slides = false;
  read_decoder(c, m, options);
  const int n = m.num_layers();
  const auto below = c.integer("max_window_layers", 0, model_limits::kMaxLayers);
  if (!window || !use_window.value_or(false) || listed) return;
  const int full = static_cast<int>(std::min<long long>(below.value_or(28), n));
  std::vector<LayerSpec> layers = m.layers.layers();
  for (int i = full; i < n; ++i) {
    LayerSpec& layer = layers[static_cast<std::size_t>(i)];
    if (layer.mixer.kind != Mixer::attention) continue;
    layer.mixer.kind = Mixer::sliding_window;
    layer.mixer.attention.window = static_cast<int>(*window);
  }
  m.layers = LayerPlan::of(layers);
  if (!below) {
    m.assumptions["max_window_layers"] = fmt::format(
        "Not in config.json; 28, the default of transformers' {} config: layers 0-27 keep "
        "every token, the {} from layer 28 on slide.",
        c.model_type(), std::max(0, n - full));
  }
}

}  // namespace qwen_family

extern const FamilyRule family_qwen{
    "Qwen2 / Qwen3", {"qwen2", "qwen2_moe", "qwen3", "qwen3_moe"}, qwen_family::read};

}  // namespace tpnet::hf
