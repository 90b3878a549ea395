#include "hf_layers.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "../../base/ascii_case.hpp"

namespace tpnet::hf {

using namespace model_limits;

int layer_count(const HfConfig& c) {
  return c.required("num_hidden_layers", 1, kMaxLayers,
                    "; tpnet reads decoder-only transformer configs under transformers' key names");
}

AttentionSpec standard_attention(const HfConfig& c, long long hidden) {
  AttentionSpec a;
  a.q_heads = c.required("num_attention_heads", 1, kMaxHeads,
                         "; tpnet reads decoder-only transformer configs under transformers' key "
                         "names");
  a.kv_heads = static_cast<int>(c.integer("num_key_value_heads", 1, kMaxHeads).value_or(a.q_heads));
  if (a.kv_heads > a.q_heads) {
    throw InputError(fmt::format("must not exceed num_attention_heads ({})", a.q_heads),
                     c.at(c.node("num_key_value_heads"), "num_key_value_heads"));
  }
  const auto stated = c.integer("head_dim", 1, kMaxWidth);
  const auto alternative = c.integer("attention_head_dim", 1, kMaxWidth);
  a.head_dim = static_cast<int>(stated.value_or(alternative.value_or(hidden / a.q_heads)));
  // 64 heads in a hidden_size of 2 are 0 wide each (found by tests/fuzz), and
  // every per-head size (attention weights, KV cache) would be 0.
  if (a.head_dim < 1) {
    throw InputError(fmt::format("{} heads in a hidden_size of {} are 0 wide each; give head_dim",
                                 a.q_heads, hidden),
                     c.at(c.node("num_attention_heads"), "num_attention_heads"));
  }
  a.v_head_dim = a.head_dim;
  return a;
}

bool read_latent_attention(const HfObject& c, AttentionSpec& a) {
  if (!c.has("kv_lora_rank")) return false;
  MlaSpec& m = a.mla;
  m.kv_lora_rank = c.required("kv_lora_rank", 1, kMaxWidth);
  m.q_lora_rank = static_cast<int>(c.integer("q_lora_rank", 0, kMaxWidth).value_or(0));
  m.qk_rope_head_dim = c.required("qk_rope_head_dim", 0, kMaxWidth);
  m.qk_nope_head_dim = c.required("qk_nope_head_dim", 0, kMaxWidth);
  m.v_head_dim = c.required("v_head_dim", 1, kMaxWidth);
  if (m.qk_nope_head_dim + m.qk_rope_head_dim < 1) {
    throw InputError("is 0, and so is qk_rope_head_dim: a query/key head needs at least 1",
                     c.at(c.node("qk_nope_head_dim"), "qk_nope_head_dim"));
  }
  a.latent = true;
  a.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
  a.v_head_dim = m.v_head_dim;
  a.kv_heads = a.q_heads;
  return true;
}

SparseIndexer read_indexer(const HfObject& c) {
  SparseIndexer indexer;
  if (const auto top_k = c.integer("index_topk", 1, kMaxTokens)) {
    indexer.top_k = static_cast<int>(*top_k);
    indexer.heads = c.required("index_n_heads", 1, kMaxHeads);
    indexer.head_dim = c.required("index_head_dim", 1, kMaxWidth);
  }
  return indexer;
}

LinearAttentionSpec read_gated_deltanet(const HfObject& c) {
  LinearAttentionSpec s;
  s.kind = LinearKind::gated_deltanet;
  s.key_heads = c.required("linear_num_key_heads", 1, kMaxHeads);
  s.value_heads = c.required("linear_num_value_heads", 1, kMaxHeads);
  s.key_head_dim = c.required("linear_key_head_dim", 1, kMaxWidth);
  s.value_head_dim = c.required("linear_value_head_dim", 1, kMaxWidth);
  s.conv_kernel =
      static_cast<int>(c.integer("linear_conv_kernel_dim", 0, kMaxConvKernel).value_or(0));
  return s;
}

MambaSpec read_mamba(const HfObject& c) {
  MambaSpec s;
  s.heads = c.required("mamba_num_heads", 1, kMaxHeads);
  s.head_dim = c.required("mamba_head_dim", 1, kMaxWidth);
  s.state_size = c.required("ssm_state_size", 1, kMaxWidth);
  s.groups = c.required("n_groups", 1, kMaxHeads);
  s.conv_kernel = c.required("conv_kernel", 1, kMaxConvKernel);
  const std::string cache = detail::lowercase(c.text("mamba_ssm_cache_dtype").value_or(""));
  s.state_bytes = cache == "float32" ? 4 : 2;
  return s;
}

std::optional<MoeRead> read_moe(const HfObject& c) {
  std::string experts_key;
  for (const char* key :
       {"n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts"}) {
    if (c.has(key)) {
      experts_key = key;
      break;
    }
  }
  if (experts_key.empty()) return std::nullopt;
  const long long experts = *c.integer(experts_key, 0, kMaxExperts);
  if (experts <= 0) return std::nullopt;
  MoeRead out;
  MoeSpec& moe = out.spec;
  moe.routed_experts = static_cast<int>(experts);
  std::string top_k_key = "num_experts_per_tok";
  for (const char* key :
       {"num_experts_per_tok", "num_experts_per_token", "top_k_experts", "moe_topk", "moe_k"}) {
    if (c.has(key)) {
      top_k_key = key;
      break;
    }
  }
  moe.experts_per_token = c.required(top_k_key, 1, experts);
  if (const auto width = c.integer("moe_intermediate_size", 1, kMaxWidth)) {
    moe.expert_intermediate_size = *width;
  } else if (experts_key == "num_local_experts" && c.has("intermediate_size")) {
    moe.expert_intermediate_size = c.required("intermediate_size", 1, kMaxWidth);
    out.expert_is_intermediate = true;
  }
  // DeepSeek's n_shared_experts, Kimi-Linear's num_shared_experts, ERNIE's
  // moe_num_shared_experts.
  for (const char* key : {"n_shared_experts", "num_shared_experts", "moe_num_shared_experts"}) {
    if (c.has(key)) {
      moe.shared_experts = static_cast<int>(c.integer(key, 0, kMaxSharedExperts).value_or(0));
      break;
    }
  }
  for (const char* key :
       {"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size"}) {
    if (const auto shared = c.integer(key, 0, kMaxWidth); shared && *shared > 0) {
      moe.shared_expert_intermediate_size = *shared;
      moe.shared_experts = std::max(moe.shared_experts, 1);
      break;
    }
  }
  // A null moe_latent_size (Nemotron-3.5) is no latent.
  moe.latent_size = c.integer("moe_latent_size", 1, kMaxWidth).value_or(0);
  return out;
}

std::vector<bool> moe_layers(const HfObject& c, int layers) {
  std::vector<bool> moe(static_cast<std::size_t>(layers), true);
  const auto n = static_cast<std::size_t>(layers);
  if (c.has("moe_layer_freq") && c.node("moe_layer_freq")->is_array()) {
    moe = c.layer_flags("moe_layer_freq", layers, "0 (dense) or 1 (experts)");
    if (const auto dense = c.integer("first_k_dense_replace", 0, layers)) {
      for (std::size_t i = 0; i < std::min(n, static_cast<std::size_t>(*dense)); ++i)
        moe[i] = false;
    }
    return moe;
  }
  if (const auto dense = c.integer("first_k_dense_replace", 0, layers)) {
    // DeepSeek: after the first k, layer i has experts when i % moe_layer_freq == 0.
    const long long freq = c.integer("moe_layer_freq", 1, layers).value_or(1);
    for (int i = 0; i < layers; ++i) {
      moe[static_cast<std::size_t>(i)] = i >= *dense && i % freq == 0;
    }
    return moe;
  }
  if (c.has("moe_layer_start_index") || c.has("moe_layer_interval")) {
    // ERNIE-4.5: from moe_layer_start_index to moe_layer_end_index (inclusive;
    // absent or negative: the last layer), every moe_layer_interval-th by
    // (i + 1) % interval == 0, as vLLM's Ernie4_5_MoeModel places them.
    const long long start = c.integer("moe_layer_start_index", 0, kMaxLayers).value_or(0);
    long long end = layers - 1;
    if (const auto stated = c.integer("moe_layer_end_index", -1, kMaxLayers);
        stated && *stated >= 0) {
      end = std::min<long long>(*stated, layers - 1);
    }
    const long long interval = c.integer("moe_layer_interval", 1, kMaxLayers).value_or(1);
    for (int i = 0; i < layers; ++i) {
      moe[static_cast<std::size_t>(i)] = i >= start && i <= end && (i + 1) % interval == 0;
    }
    return moe;
  }
  // Qwen: mlp_only_layers and decoder_sparse_step.
  const long long step = c.integer("decoder_sparse_step", 1, kMaxLayers).value_or(1);
  for (int i = 0; i < layers; ++i) moe[static_cast<std::size_t>(i)] = (i + 1) % step == 0;
  if (c.has("mlp_only_layers")) {
    for (const int i : c.layer_numbers("mlp_only_layers", layers, 0)) {
      moe[static_cast<std::size_t>(i)] = false;
    }
  }
  return moe;
}

LayerKinds layer_kinds(const HfObject& c, int layers, int default_pattern,
                       const std::vector<std::pair<std::string_view, Mixer>>& extra) {
  LayerKinds out;
  out.mixers.assign(static_cast<std::size_t>(layers), Mixer::attention);
  if (c.has("layer_types")) {
    std::vector<std::string_view> names{"full_attention", "attention", "sliding_attention",
                                        "chunked_attention", "linear_attention"};
    std::vector<Mixer> kinds{Mixer::attention, Mixer::attention, Mixer::sliding_window,
                             Mixer::chunked_attention, Mixer::linear_attention};
    for (const auto& [name, mixer] : extra) {
      names.push_back(name);
      kinds.push_back(mixer);
    }
    out.listed = true;
    const std::vector<int> listed = c.layer_names("layer_types", layers, names);
    for (std::size_t i = 0; i < listed.size(); ++i) {
      out.mixers[i] = kinds[static_cast<std::size_t>(listed[i])];
    }
    // A config may give both (Qwen3.5): they must agree.
    const bool linear = std::find(out.mixers.begin(), out.mixers.end(), Mixer::linear_attention) !=
                        out.mixers.end();
    const auto interval = c.integer("full_attention_interval", 1, kMaxLayers);
    if (interval && linear) {
      for (int i = 0; i < layers; ++i) {
        const bool full = (i + 1) % *interval == 0;
        if (full != (out.mixers[static_cast<std::size_t>(i)] != Mixer::linear_attention)) {
          throw InputError(
              fmt::format("says every {}th layer is full attention, but layer_types says layer "
                          "{} is {}; give one of them",
                          *interval, i, full ? "linear" : "not linear"),
              c.at(c.node("full_attention_interval"), "full_attention_interval"));
        }
      }
    }
    return out;
  }
  if (const auto interval = c.integer("full_attention_interval", 1, kMaxLayers)) {
    // Qwen3-Next: every interval-th layer is full attention, the rest Gated DeltaNet.
    out.listed = true;
    for (int i = 0; i < layers; ++i) {
      out.mixers[static_cast<std::size_t>(i)] =
          (i + 1) % *interval != 0 ? Mixer::linear_attention : Mixer::attention;
    }
    return out;
  }
  if (c.has("sliding_window_pattern")) {
    const json::Value* pattern = c.node("sliding_window_pattern");
    out.listed = true;
    if (pattern->is_string()) {
      // EXAONE-4: "LLLG" repeats, L a local (sliding) layer, G a global one.
      const std::string& text = pattern->text();
      if (text.empty() || text.find_first_not_of("LG") != std::string::npos) {
        throw InputError("expected a string of L (sliding) and G (global) layers",
                         c.at(pattern, "sliding_window_pattern"));
      }
      for (int i = 0; i < layers; ++i) {
        if (text[static_cast<std::size_t>(i) % text.size()] == 'L') {
          out.mixers[static_cast<std::size_t>(i)] = Mixer::sliding_window;
        }
      }
    } else {
      // Gemma-3: every pattern-th layer is global, the others slide.
      const long long every = *c.integer("sliding_window_pattern", 1, kMaxLayers);
      for (int i = 0; i < layers; ++i) {
        if ((i + 1) % every != 0) out.mixers[static_cast<std::size_t>(i)] = Mixer::sliding_window;
      }
    }
    return out;
  }
  if (default_pattern > 0) {
    // The config.json leaves the pattern to its class's default.
    out.listed = true;
    out.from_default = true;
    for (int i = 0; i < layers; ++i) {
      if ((i + 1) % default_pattern != 0) {
        out.mixers[static_cast<std::size_t>(i)] = Mixer::sliding_window;
      }
    }
  }
  return out;
}

FfnSpec dense_ffn(long long width, bool gated) {
  FfnSpec f;
  f.kind = FfnKind::dense;
  f.width = width;
  f.gated = gated;
  return f;
}

FfnSpec moe_ffn(const MoeSpec& moe, bool gated) {
  FfnSpec f;
  f.kind = FfnKind::moe;
  f.moe = moe;
  f.gated = gated;
  return f;
}

LayerPlan plan_of(int layers, const std::function<LayerSpec(int)>& layer_at) {
  LayerPlan plan;
  for (int i = 0; i < layers; ++i) plan.append(layer_at(i));
  return plan;
}

int read_mtp_layers(const HfObject& c) {
  if (const auto n = c.integer("num_nextn_predict_layers", 0, kMaxMtpLayers)) {
    return static_cast<int>(*n);
  }
  if (const auto n = c.integer("mtp_num_hidden_layers", 0, kMaxMtpLayers)) {
    return static_cast<int>(*n);
  }
  if (const auto modules = c.integer("num_mtp_modules", 0, kMaxMtpLayers)) {
    const bool used = c.flag("use_mtp").value_or(true);
    const long long each = c.integer("mtp_transformer_layers", 1, kMaxMtpLayers).value_or(1);
    if (!used) return 0;
    return static_cast<int>(std::min<long long>(*modules * each, kMaxMtpLayers));
  }
  return 0;
}

int sliding_window(const HfObject& c, bool needed, std::string_view why) {
  const auto window = c.integer("sliding_window", 1, kMaxTokens);
  if (!window && needed) c.missing("sliding_window", why);
  return static_cast<int>(window.value_or(0));
}

}  // namespace tpnet::hf

namespace tpnet::hf {

std::string class_default(const HfConfig& c, std::string_view what) {
  return fmt::format("Not in config.json; {}, the default of transformers' {} config.", what,
                     c.model_type().empty() ? std::string("(none)") : c.model_type());
}

void read_decoder(HfConfig& c, ModelArch& m, const DecoderOptions& options) {
  const int n = layer_count(c);
  AttentionSpec attention = standard_attention(c, m.hidden_size);
  read_latent_attention(c, attention);
  attention.indexer = read_indexer(c);
  const auto moe = read_moe(c);
  const auto intermediate = c.integer("intermediate_size", 1, kMaxWidth);
  const std::vector<bool> experts =
      moe ? moe_layers(c, n) : std::vector<bool>(static_cast<std::size_t>(n), false);
  const bool dense_layers = std::find(experts.begin(), experts.end(), false) != experts.end();
  if (moe && moe->spec.expert_intermediate_size <= 0) {
    c.missing("moe_intermediate_size", " (the width of one expert)");
  }
  if (dense_layers && (!intermediate || (moe && moe->expert_is_intermediate))) {
    c.missing("intermediate_size", " (the width of the dense FFN)");
  }
  if (const auto chunk = c.integer("attention_chunk_size", 1, kMaxTokens)) {
    m.assumptions["attention_chunk_size"] = fmt::format(
        "Chunked local attention ({} tokens) in some layers is read as full attention: the KV "
        "cache per token is an upper bound.",
        *chunk);
  }
  LayerKinds kinds = layer_kinds(c, n, options.default_sliding_pattern);
  const bool linear = std::find(kinds.mixers.begin(), kinds.mixers.end(),
                                Mixer::linear_attention) != kinds.mixers.end();
  const LinearAttentionSpec deltanet = linear ? read_gated_deltanet(c) : LinearAttentionSpec{};
  const bool slides = std::find(kinds.mixers.begin(), kinds.mixers.end(), Mixer::sliding_window) !=
                      kinds.mixers.end();
  int window = 0;
  const bool use_window = c.flag("use_sliding_window").value_or(true);
  if (kinds.listed) {
    window = sliding_window(c, slides && !kinds.from_default && use_window,
                            " (layer_types lists sliding_attention layers)");
    if (slides && (window == 0 || !use_window)) {
      // A class default placed the windows but config.json states none: no window.
      for (auto& mixer : kinds.mixers) {
        if (mixer == Mixer::sliding_window) mixer = Mixer::attention;
      }
    }
  } else {
    window = sliding_window(c, false, "");
    if (window > 0 && options.window_without_pattern_slides && use_window) {
      for (auto& mixer : kinds.mixers) {
        if (mixer == Mixer::attention) mixer = Mixer::sliding_window;
      }
    }
  }
  const auto sliding = std::count(kinds.mixers.begin(), kinds.mixers.end(), Mixer::sliding_window);
  if (kinds.from_default && sliding > 0) {
    m.assumptions["sliding_window_pattern"] = fmt::format(
        "Neither layer_types nor sliding_window_pattern in config.json; {}, the default of "
        "transformers' {} config: layer i (from 0) is global when (i + 1) % {} == 0, so {} of "
        "{} layers slide and {} keep every token.",
        options.default_sliding_pattern, c.model_type(), options.default_sliding_pattern, sliding,
        n, n - sliding);
  }
  const FfnSpec dense =
      dense_ffn(intermediate && !(moe && moe->expert_is_intermediate) ? *intermediate : 0);
  m.layers = plan_of(n, [&](int i) {
    LayerSpec layer;
    layer.mixer.kind = kinds.mixers[static_cast<std::size_t>(i)];
    if (layer.mixer.kind == Mixer::linear_attention) {
      layer.mixer.linear = deltanet;
    } else {
      layer.mixer.attention = attention;
      if (layer.mixer.kind == Mixer::sliding_window) layer.mixer.attention.window = window;
    }
    layer.ffn = experts[static_cast<std::size_t>(i)] ? moe_ffn(moe->spec) : dense;
    return layer;
  });
}

}  // namespace tpnet::hf
