// The common decoder-only transformer, under transformers' shared key names:
// Llama, Mistral / Devstral / Ministral, Mixtral, Phi-3, OLMo, GLM-4.5
// (glm4_moe), ERNIE-4.5, Cohere2, EXAONE 4.x, MiMo-7B. Also reads any
// model_type no family claims, with a warning (hf_config.cpp).
//
// Per layer: the same attention (num_attention_heads, num_key_value_heads,
// head_dim), over every token or, by layer_types / sliding_window_pattern /
// the class default, a sliding window; a dense FFN of intermediate_size or,
// where the MoE placement keys say (first_k_dense_replace, moe_layer_freq,
// moe_layer_start_index ...), experts.

#include "../family_rule.hpp"
#include "../hf_layers.hpp"

namespace tpnet::hf {

namespace transformer_family {

/// transformers' sliding-window pattern for a config class whose config.json
/// states neither layer_types nor sliding_window_pattern: layer i is global
/// when (i + 1) % n == 0. Cohere2Config's sliding_window_pattern defaults to
/// 4 (configuration_cohere2.py @ 008e574391258935f3ecc3035c882e73bbcac419).
int default_pattern(const std::string& type) { return type == "cohere2" ? 4 : 0; }

void read(HfConfig& c, ModelArch& m) {
  // Routing details that change no weight's shape.
  c.ignore({"n_group", "topk_group", "topk_method", "scoring_func", "norm_topk_prob",
            "routed_scaling_factor", "ep_size", "use_qk_norm", "partial_rotary_factor",
            "max_window_layers", "mtp_share_layers", "_num_mtp_layers"});
  // LlamaConfig's tie_word_embeddings is False (configuration_llama.py @
  // 008e574391258935f3ecc3035c882e73bbcac419).
  if (c.model_type() == "llama") c.tie_default = false;
  DecoderOptions options;
  options.default_sliding_pattern = default_pattern(c.model_type());
  read_decoder(c, m, options);
}

}  // namespace transformer_family

extern const FamilyRule family_transformer{
    "decoder-only transformer (Llama, Mistral, Mixtral, Phi-3, OLMo, GLM-4.5, ERNIE-4.5, "
    "Cohere2, EXAONE 4)",
    {"llama", "mistral", "mistral3", "ministral", "ministral3", "mixtral", "phi3", "olmo2", "olmo3",
     "glm4_moe", "ernie4_5", "ernie4_5_moe", "cohere2", "exaone4", "exaone4_5", "exaone4_5_text",
     "mimo", "yi"},
    transformer_family::read};

const FamilyRule& common_transformer_rule() { return family_transformer; }

}  // namespace tpnet::hf
