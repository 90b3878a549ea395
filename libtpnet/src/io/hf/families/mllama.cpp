// Llama-3.2-Vision (mllama, mllama_text_model): the common dense decoder
// whose cross_attention_layers (numbered from 0) attend to the vision
// encoder's tokens instead of the text's. Like vLLM, their K and V are kept
// per image, not per text token: they add nothing to the KV cache per
// token, and the image tokens' cache is not counted.

#include <fmt/format.h>

#include "../family_rule.hpp"
#include "../hf_layers.hpp"

namespace tpnet::hf {

namespace mllama_family {

void read(HfConfig& c, ModelArch& m) {
  read_decoder(c, m);
  const int n = m.num_layers();
  const std::vector<int> cross = c.layer_numbers("cross_attention_layers", n, 0);
  if (cross.empty()) return;
  std::vector<LayerSpec> layers = m.layers.layers();
  for (const int i : cross) layers[static_cast<std::size_t>(i)].mixer.kind = Mixer::cross_attention;
  m.layers = LayerPlan::of(layers);
  m.assumptions["cross_attention_layers"] = fmt::format(
      "{} of {} layers attend to the image tokens (cross_attention_layers): like vLLM, their K "
      "and V are kept per image, not per text token, so they add nothing to the KV cache per "
      "token, and the image tokens' cache is not counted.",
      cross.size(), n);
}

}  // namespace mllama_family

extern const FamilyRule family_mllama{
    "Llama-3.2-Vision", {"mllama", "mllama_text_model"}, mllama_family::read};

}  // namespace tpnet::hf
