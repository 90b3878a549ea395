// gpt-oss (gpt_oss): the common decoder with num_local_experts experts of
// intermediate_size in every layer, sliding-window and full-attention
// layers alternating (layer_types; absent, GptOssConfig's
// "sliding_attention" if bool((i + 1) % 2), configuration_gpt_oss.py @
// 828a27fd326e49d4a1c4b08210bfd32c107facc9). Its attention sinks and the
// experts' clamped SwiGLU change no weight's shape.

#include "../family_rule.hpp"
#include "../hf_layers.hpp"

namespace tpnet::hf {

namespace gpt_oss_family {

void read(HfConfig& c, ModelArch& m) {
  c.ignore({"swiglu_limit", "experts_per_token"});
  DecoderOptions options;
  options.default_sliding_pattern = 2;
  read_decoder(c, m, options);
}

}  // namespace gpt_oss_family

extern const FamilyRule family_gpt_oss{"gpt-oss", {"gpt_oss"}, gpt_oss_family::read};

}  // namespace tpnet::hf
