// Gemma 1-4 (gemma, gemma2, gemma3, gemma3_text, gemma4, gemma4_text).
//
// Sliding-window layers with global layers between them: by layer_types,
// else sliding_window_pattern, else the class default (Gemma2Config every
// 2nd global, Gemma3TextConfig every 6th; configuration_gemma2.py @
// 008e574391258935f3ecc3035c882e73bbcac419, configuration_gemma3.py @
// 008f5c8c29be84d4721dc6d1e0fcd72300580be4). Google's Gemma 3 files leave
// out what the class defaults (heads 8, KV heads 4, head_dim 256, vocabulary
// 262,208, tied embeddings).
//
// Gemma 4 (transformers' modeling_gemma4.py @ 0246b4f3, vLLM's gemma4.py @
// 001cabc1): global layers have their own head size (global_head_dim) and,
// with attention_k_eq_v, their own KV heads (num_global_key_value_heads)
// and no v_proj (K serves as V; both are cached). The last
// num_kv_shared_layers layers reuse an earlier layer's K and V (no k/v
// projections, no cache of their own), their MLP twice as wide with
// use_double_wide_mlp. With enable_moe_block every layer has a dense MLP
// beside its experts (the model card's "1 shared"): one shared expert of
// intermediate_size. hidden_size_per_layer_input adds per-layer inputs.

#include <fmt/format.h>

#include "../family_rule.hpp"
#include "../hf_layers.hpp"

namespace tpnet::hf {

namespace gemma_family {

using namespace model_limits;

int default_pattern(const std::string& type) {
  if (type == "gemma2") return 2;
  if (type == "gemma3" || type == "gemma3_text") return 6;
  return 0;
}

/// A shape Gemma 3's config.json may leave to its class.
int with_default(HfConfig& c, ModelArch& m, std::string_view key, long long hi, int fallback) {
  if (const auto value = c.integer(key, 1, hi)) return static_cast<int>(*value);
  m.assumptions[std::string(key)] = class_default(c, std::to_string(fallback));
  return fallback;
}

void read(HfConfig& c, ModelArch& m) {
  c.ignore({"query_pre_attn_scalar", "final_logit_softcapping", "attn_logit_softcapping",
            "cache_implementation", "use_bidirectional_attention", "expert_intermediate_size"});
  const std::string& type = c.model_type();
  const bool gemma3 = type == "gemma3" || type == "gemma3_text";
  const bool gemma4 = type.rfind("gemma4", 0) == 0;
  c.tie_default = true;
  if (type == "gemma" || type == "gemma2") c.vocab_default = 256000;
  if (gemma3) c.vocab_default = 262208;
  const int n = layer_count(c);
  AttentionSpec local;
  if (gemma3) {
    local.q_heads = with_default(c, m, "num_attention_heads", kMaxHeads, 8);
    local.kv_heads = with_default(c, m, "num_key_value_heads", kMaxHeads, 4);
    local.head_dim = local.v_head_dim = with_default(c, m, "head_dim", kMaxWidth, 256);
  } else {
    local = standard_attention(c, m.hidden_size);
  }
  LayerKinds kinds = layer_kinds(c, n, default_pattern(type));
  int window = 0;
  if (gemma3 && !c.has("sliding_window")) {
    window = 4096;
    m.assumptions["sliding_window"] = class_default(c, "4096 tokens");
  } else {
    window = sliding_window(c, false, "");
  }
  if (window == 0 || !c.flag("use_sliding_window").value_or(true)) {
    for (auto& mixer : kinds.mixers) mixer = Mixer::attention;
  } else if (kinds.from_default) {
    const auto sliding =
        std::count(kinds.mixers.begin(), kinds.mixers.end(), Mixer::sliding_window);
    m.assumptions["sliding_window_pattern"] = fmt::format(
        "Neither layer_types nor sliding_window_pattern in config.json; {}, the default of "
        "transformers' {} config: layer i (from 0) is global when (i + 1) % {} == 0, so {} of "
        "{} layers slide and {} keep every token.",
        default_pattern(type), type, default_pattern(type), sliding, n, n - sliding);
  }
  local.window = window;
  AttentionSpec global = local;
  global.window = 0;
  if (gemma4) {
    const bool k_is_v = c.flag("attention_k_eq_v").value_or(false);
    global.head_dim = global.v_head_dim =
        static_cast<int>(c.integer("global_head_dim", 1, kMaxWidth).value_or(local.head_dim));
    if (k_is_v) {
      global.kv_heads = static_cast<int>(
          c.integer("num_global_key_value_heads", 1, global.q_heads).value_or(local.kv_heads));
      global.shared_kv = true;
    } else {
      c.ignore({"num_global_key_value_heads"});
    }
  }
  const long long width = c.required("intermediate_size", 1, kMaxWidth);
  const int shared_kv_layers =
      gemma4 ? static_cast<int>(c.integer("num_kv_shared_layers", 0, n).value_or(0)) : 0;
  const bool double_wide = gemma4 && c.flag("use_double_wide_mlp").value_or(false);
  std::optional<MoeSpec> moe;
  if (gemma4 && c.flag("enable_moe_block").value_or(false)) {
    const auto read = read_moe(c);
    if (!read) c.missing("num_experts", " (enable_moe_block is true)");
    moe = read->spec;
    if (moe->expert_intermediate_size <= 0) {
      c.missing("moe_intermediate_size", " (the width of one expert)");
    }
    moe->shared_experts = 1;
    moe->shared_expert_intermediate_size = width;
  } else if (gemma4) {
    c.ignore({"num_experts", "top_k_experts", "moe_intermediate_size"});
  }
  if (gemma4) {
    if (const auto per_layer = c.integer("hidden_size_per_layer_input", 0, kMaxWidth);
        per_layer && *per_layer > 0) {
      m.per_layer_input_width = *per_layer;
      m.per_layer_input_vocab = c.required("vocab_size_per_layer_input", 1, kMaxVocab);
    } else {
      c.ignore({"vocab_size_per_layer_input"});
    }
  }
  m.layers = plan_of(n, [&](int i) {
    LayerSpec layer;
    layer.mixer.kind = kinds.mixers[static_cast<std::size_t>(i)];
    layer.mixer.attention = layer.mixer.kind == Mixer::sliding_window ? local : global;
    const bool borrows = i >= n - shared_kv_layers;
    layer.mixer.attention.borrowed_kv = borrows;
    layer.ffn = moe ? moe_ffn(*moe) : dense_ffn(borrows && double_wide ? 2 * width : width);
    return layer;
  });
}

}  // namespace gemma_family

extern const FamilyRule family_gemma{
    "Gemma 1-4",
    {"gemma", "gemma2", "gemma3", "gemma3_text", "gemma4", "gemma4_text"},
    gemma_family::read,
    nullptr,
    {"Gemma3ForCausalLM", "Gemma3ForConditionalGeneration", "Gemma4ForConditionalGeneration"}};

}  // namespace tpnet::hf
