#include "tpnet/io/hf_config.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

#include "../base/ascii_case.hpp"
#include "checkpoint_precision.hpp"
#include "tpnet/io/text_file.hpp"
#include "tpnet/model/compressed_attention.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/model/params.hpp"
#include "tpnet/model/weights.hpp"
#include "yaml_fields.hpp"

namespace tpnet {
namespace {

using namespace model_limits;

/// A JSON object and how errors name its keys ("text_config.hidden_size" for
/// the text model nested in a multimodal config).
struct Scope {
  YAML::Node map;
  std::string origin;
  std::string prefix;
};

using yaml::present;

YAML::Node child(const Scope& s, std::string_view key) {
  const YAML::Node& map = s.map;
  return map[std::string(key)];
}

bool has(const Scope& s, std::string_view key) { return present(child(s, key)); }

InputLocation at(const Scope& s, const YAML::Node& node, std::string_view key) {
  return yaml::where(node, s.origin, s.prefix + std::string(key));
}

/// Runs a yaml_fields reader, adding the scope's prefix to the key its errors name.
template <typename Read>
auto keyed(const Scope& s, Read read) {
  try {
    return read();
  } catch (const InputError& e) {
    if (s.prefix.empty()) throw;
    InputLocation where = e.where();
    where.key = s.prefix + where.key;
    throw InputError(e.detail(), where);
  }
}

/// JSON tells "8192" from 8192; yaml-cpp tags a quoted scalar "!".
void reject_string(const Scope& s, const YAML::Node& node, std::string_view key,
                   std::string_view expected) {
  if (node.IsScalar() && node.Tag() == "!") {
    throw InputError(fmt::format("expected {}, found the string \"{}\"", expected, node.Scalar()),
                     at(s, node, key));
  }
}

std::optional<long long> optional_int(const Scope& s, std::string_view key, long long lo,
                                      long long hi) {
  const YAML::Node node = child(s, key);
  if (!present(node)) return std::nullopt;
  reject_string(s, node, key, "a number");
  return keyed(s, [&] { return yaml::optional_integer(s.map, s.origin, key, lo, hi); });
}

[[noreturn]] void missing(const Scope& s, std::string_view key, std::string_view why) {
  throw InputError("required key is missing" + std::string(why), at(s, s.map, key));
}

int required_int(const Scope& s, std::string_view key, long long lo, long long hi,
                 std::string_view why = "") {
  const auto value = optional_int(s, key, lo, hi);
  if (!value) missing(s, key, why);
  return static_cast<int>(*value);
}

std::optional<std::string> optional_text(const Scope& s, std::string_view key) {
  return keyed(s, [&] { return yaml::optional_string(s.map, s.origin, key); });
}

std::optional<bool> optional_bool(const Scope& s, std::string_view key) {
  const YAML::Node node = child(s, key);
  if (!present(node)) return std::nullopt;
  if (node.IsScalar() && node.Tag() != "!") {
    if (node.Scalar() == "true") return true;
    if (node.Scalar() == "false") return false;
  }
  throw InputError("expected true or false", at(s, node, key));
}

using detail::lowercase;

YAML::Node load_json(std::string_view text, const std::string& origin) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte order mark
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    throw InputError("is empty; expected a Hugging Face config.json object",
                     InputLocation::in_file(origin));
  }
  if (text[first] != '{') {
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(first), '\n');
    throw InputError("is not JSON: a config.json holds one object, starting with '{'",
                     InputLocation::in_file(origin, static_cast<int>(line)));
  }
  yaml::reject_duplicate_keys(text, origin, yaml::Syntax::json);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw InputError("is not valid JSON: " + e.msg,
                     InputLocation::in_file(origin, e.mark.line + 1));
  }
  if (!root.IsMap()) {
    throw InputError("is not valid JSON: expected one object", InputLocation::in_file(origin));
  }
  return root;
}

/// "LlamaForCausalLM" or the model_type, for messages and the description.
std::string architecture(const YAML::Node& root) {
  const YAML::Node architectures = root["architectures"];
  if (present(architectures) && architectures.IsSequence() && architectures.size() > 0 &&
      architectures[0].IsScalar()) {
    return architectures[0].Scalar();
  }
  const YAML::Node type = root["model_type"];
  return present(type) && type.IsScalar() ? type.Scalar() : std::string();
}

/// The model's name when config.json has no _name_or_path: the folder of a
/// config.json, else the file's stem.
std::string name_from_origin(const std::string& origin) {
  const std::filesystem::path path(origin);
  if (path.filename() == "config.json") {
    std::string folder = path.parent_path().filename().string();
    if (!folder.empty() && folder != "." && folder != "..") return folder;
  }
  const std::string stem = path.stem().string();
  return stem.empty() ? "hf-config" : stem;
}

/// Counts layers by type from `layer_types` ("linear_attention",
/// "sliding_attention", "full_attention", ...).
struct LayerTypeCounts {
  bool listed = false;
  int linear = 0;
  int sliding = 0;
  int default_pattern = 0;  ///< the class default that placed the sliding layers; 0: none
};

/// transformers' sliding-window pattern for the config class of a
/// model_type whose config.json states neither `layer_types` nor
/// `sliding_window_pattern`: layer i is global when (i + 1) % n == 0, the
/// others slide; 0 where tpnet knows none (then every layer slides, as
/// Mistral's do). Read from transformers: Gemma2Config and GptOssConfig
/// alternate (n = 2, layer 0 slides); Gemma3TextConfig's
/// `sliding_window_pattern` defaults to 6, Cohere2Config's to 4 (commits in
/// docs/models.md).
int default_sliding_window_pattern(const std::string& type) {
  if (type == "gemma2" || type == "gpt_oss") return 2;
  if (type == "gemma3" || type == "gemma3_text") return 6;
  if (type == "cohere2") return 4;
  return 0;
}

LayerTypeCounts count_layer_types(const Scope& s, int layers, const std::string& family) {
  LayerTypeCounts counts;
  const YAML::Node types = child(s, "layer_types");
  if (present(types)) {
    if (!types.IsSequence())
      throw InputError("expected a list of layer types", at(s, types, "layer_types"));
    if (types.size() != static_cast<std::size_t>(layers)) {
      throw InputError(fmt::format("has {} entries; num_hidden_layers is {}", types.size(), layers),
                       at(s, types, "layer_types"));
    }
    counts.listed = true;
    for (const auto& type : types) {
      if (!type.IsScalar())
        throw InputError("expected a layer type name", at(s, type, "layer_types"));
      const std::string& name = type.Scalar();
      if (name == "linear_attention") {
        ++counts.linear;
      } else if (name == "sliding_attention") {
        ++counts.sliding;
      } else if (name != "full_attention" && name != "attention") {
        throw InputError("'" + name +
                             "' is a layer type tpnet does not model; it knows full_attention, "
                             "sliding_attention and linear_attention",
                         at(s, type, "layer_types"));
      }
    }
  } else if (const auto interval = optional_int(s, "full_attention_interval", 1, kMaxLayers)) {
    // Qwen3-Next: every interval-th layer is full attention, the rest Gated DeltaNet.
    for (int i = 0; i < layers; ++i) counts.linear += (i + 1) % *interval != 0 ? 1 : 0;
  } else if (const YAML::Node pattern = child(s, "sliding_window_pattern"); present(pattern)) {
    counts.listed = true;
    if (pattern.IsScalar() && pattern.Tag() == "!") {
      // EXAONE-4: "LLLG" repeats, L a local (sliding) layer, G a global one.
      const std::string& text = pattern.Scalar();
      if (text.empty() || text.find_first_not_of("LG") != std::string::npos) {
        throw InputError("expected a string of L (sliding) and G (global) layers",
                         at(s, pattern, "sliding_window_pattern"));
      }
      for (int i = 0; i < layers; ++i) {
        counts.sliding += text[static_cast<std::size_t>(i) % text.size()] == 'L' ? 1 : 0;
      }
    } else {
      // Gemma-3: every pattern-th layer is global, the others slide.
      const long long every = *optional_int(s, "sliding_window_pattern", 1, kMaxLayers);
      for (int i = 0; i < layers; ++i) counts.sliding += (i + 1) % every != 0 ? 1 : 0;
    }
  } else if (const int every = default_sliding_window_pattern(family); every > 0) {
    // The config.json leaves the pattern to its class's default.
    counts.listed = true;
    counts.default_pattern = every;
    for (int i = 0; i < layers; ++i) counts.sliding += (i + 1) % every != 0 ? 1 : 0;
  }
  return counts;
}

/// Qwen's MoE configs mark dense layers by mlp_only_layers and decoder_sparse_step.
int qwen_dense_layers(const Scope& s, int layers) {
  const long long step = optional_int(s, "decoder_sparse_step", 1, kMaxLayers).value_or(1);
  std::vector<bool> dense(static_cast<std::size_t>(layers), false);
  const YAML::Node only = child(s, "mlp_only_layers");
  if (present(only)) {
    if (!only.IsSequence()) {
      throw InputError("expected a list of layer numbers", at(s, only, "mlp_only_layers"));
    }
    for (const auto& item : only) {
      long long index = -1;
      if (item.IsScalar() && item.Tag() != "!") {
        try {
          index = item.as<long long>();
        } catch (const YAML::Exception&) {
          index = -1;
        }
      }
      if (index < 0 || index >= layers) {
        throw InputError(fmt::format("expected layer numbers 0 to {}", layers - 1),
                         at(s, item, "mlp_only_layers"));
      }
      dense[static_cast<std::size_t>(index)] = true;
    }
  }
  int count = 0;
  for (int i = 0; i < layers; ++i) {
    count += dense[static_cast<std::size_t>(i)] || (i + 1) % step != 0 ? 1 : 0;
  }
  return count;
}

/// ERNIE-4.5's MoE layers: from moe_layer_start_index to moe_layer_end_index
/// (inclusive; absent or negative: the last layer), every
/// moe_layer_interval-th by (i + 1) % interval == 0, as vLLM's
/// Ernie4_5_MoeModel places them; the other layers are dense.
int ernie_dense_layers(const Scope& s, int layers) {
  const long long start = optional_int(s, "moe_layer_start_index", 0, kMaxLayers).value_or(0);
  long long end = layers - 1;
  if (const YAML::Node node = child(s, "moe_layer_end_index"); present(node)) {
    reject_string(s, node, "moe_layer_end_index", "a number");
    const long long stated = keyed(s, [&] {
      return *yaml::optional_integer(s.map, s.origin, "moe_layer_end_index", -1, kMaxLayers);
    });
    if (stated >= 0) end = std::min<long long>(stated, layers - 1);
  }
  const long long interval = optional_int(s, "moe_layer_interval", 1, kMaxLayers).value_or(1);
  int dense = 0;
  for (int i = 0; i < layers; ++i) {
    const bool moe = i >= start && i <= end && (i + 1) % interval == 0;
    dense += moe ? 0 : 1;
  }
  return dense;
}

/// Multi-token-prediction layers under each family's key: DeepSeek's and
/// GLM's num_nextn_predict_layers, Qwen3.5's mtp_num_hidden_layers,
/// MiniMax's num_mtp_modules of mtp_transformer_layers each (when use_mtp
/// is not false).
int mtp_layers(const Scope& s) {
  if (const auto n = optional_int(s, "num_nextn_predict_layers", 0, kMaxMtpLayers)) {
    return static_cast<int>(*n);
  }
  if (const auto n = optional_int(s, "mtp_num_hidden_layers", 0, kMaxMtpLayers)) {
    return static_cast<int>(*n);
  }
  if (const auto modules = optional_int(s, "num_mtp_modules", 0, kMaxMtpLayers)) {
    if (!optional_bool(s, "use_mtp").value_or(true)) return 0;
    const long long each = optional_int(s, "mtp_transformer_layers", 1, kMaxMtpLayers).value_or(1);
    return static_cast<int>(std::min<long long>(*modules * each, kMaxMtpLayers));
  }
  return 0;
}

std::string model_type(const Scope& s, const Scope& top);

/// The model_types whose configs tpnet reads key by key (the families of
/// tests/data/hf and docs/models.md); any other is read under the common
/// names, with a warning.
bool known_model_type(const std::string& type) {
  static const char* const kKnown[] = {
      "llama",
      "llama4",
      "llama4_text",
      "mistral",
      "ministral3",
      "mixtral",
      "qwen2",
      "qwen2_moe",
      "qwen3",
      "qwen3_moe",
      "qwen3_next",
      "qwen3_5",
      "qwen3_5_text",
      "qwen3_5_moe",
      "qwen3_5_moe_text",
      "deepseek_v2",
      "deepseek_v3",
      "deepseek_v32",
      "deepseek_v4",
      "kimi_k2",
      "kimi_k25",
      "kimi_linear",
      "glm4_moe",
      "glm_moe_dsa",
      "gemma",
      "gemma2",
      "gemma3",
      "gemma3_text",
      "gemma4",
      "gemma4_text",
      "gpt_oss",
      "phi3",
      "olmo3",
      "exaone4",
      "nemotron_h",
      "nemotron-nas",
      "minimax_m2",
      "ernie4_5",
      "ernie4_5_moe",
      "mllama",
      "mllama_text_model",
      "cohere2",
  };
  return std::any_of(std::begin(kKnown), std::end(kKnown),
                     [&](const char* known) { return type == known; });
}

/// The scope's keys whose names match `wanted` and whose values say the
/// feature is there (a positive number, a non-empty list or object, true).
std::vector<std::string> stated_keys(const Scope& s, bool (*wanted)(const std::string&)) {
  std::vector<std::string> out;
  for (const auto& item : s.map) {
    const std::string key = item.first.Scalar();
    if (!wanted(lowercase(key))) continue;
    const YAML::Node& value = item.second;
    bool stated = false;
    if (value.IsSequence() || value.IsMap()) {
      stated = value.size() > 0;
    } else if (value.IsScalar() && value.Tag() != "!") {
      const std::string& text = value.Scalar();
      if (text == "true") {
        stated = true;
      } else {
        try {
          stated = std::stod(text) > 0.0;
        } catch (const std::exception&) {
          stated = false;
        }
      }
    }
    if (stated) out.push_back(s.prefix + key);
  }
  return out;
}

bool moe_key(const std::string& key) {
  return (key.find("expert") != std::string::npos && key.find("dtype") == std::string::npos) ||
         key == "moe_k" || key == "moe_topk";
}

bool linear_or_ssm_key(const std::string& key) {
  if (key.find("dtype") != std::string::npos) return false;
  return key.rfind("mamba_", 0) == 0 || key.rfind("ssm_", 0) == 0 || key == "linear_attn_config" ||
         key == "layers_block_type" || key == "attn_type_list";
}

std::string listed(const std::vector<std::string>& keys) {
  std::string out;
  for (const auto& key : keys) out += (out.empty() ? "" : ", ") + key;
  return out;
}

/// A config whose MoE, hybrid or family keys tpnet does not read would
/// otherwise be read as a plain dense transformer with exit 0: warn naming
/// the keys and what was assumed instead.
void warn_unread_keys(const Scope& s, const Scope& top, ModelArch& m, const std::string& type,
                      const std::string& arch, const std::string& origin) {
  const LayerTally t = tally_layers(m);
  if (!m.moe) {
    if (const auto keys = stated_keys(s, moe_key); !keys.empty()) {
      m.warnings.push_back(fmt::format(
          "{}: {} describe mixture-of-experts layers, but none of the experts keys tpnet reads "
          "(n_routed_experts, num_experts, num_local_experts, moe_num_experts) is there: the "
          "model is read as dense, every layer a gated FFN of intermediate_size",
          origin, listed(keys)));
    }
  }
  if (t.linear == 0 && t.mamba == 0) {
    std::vector<std::string> keys = stated_keys(s, linear_or_ssm_key);
    // MiniMax's attn_type_list of all 1s is softmax attention everywhere.
    keys.erase(std::remove_if(keys.begin(), keys.end(),
                              [&](const std::string& key) {
                                if (key != s.prefix + "attn_type_list") return false;
                                const YAML::Node list = child(s, "attn_type_list");
                                return std::all_of(list.begin(), list.end(), [](const auto& n) {
                                  return n.IsScalar() && n.Scalar() == "1";
                                });
                              }),
               keys.end());
    if (!keys.empty()) {
      m.warnings.push_back(fmt::format(
          "{}: {} describe linear-attention or state-space layers tpnet does not read: every "
          "layer is read as attention, which overstates the KV cache and misplaces the weights",
          origin, listed(keys)));
    }
  }
  const std::string outer = model_type(top, top);
  if (!known_model_type(type) && !known_model_type(outer)) {
    m.warnings.push_back(fmt::format(
        "{}: model_type '{}'{} is not a family tpnet knows; read under transformers' common key "
        "names as a decoder-only transformer ({} layers: {} attention, {} dense FFN, {} MoE)",
        origin, type.empty() ? std::string("(none)") : type,
        arch.empty() ? std::string() : " (" + arch + ")", t.layers,
        t.attention + t.sliding + t.linear + t.mamba, t.dense, t.moe));
  }
}

/// Keys that shape the layers in a way tpnet's layers (one attention shape
/// and one FFN each) cannot hold. Refused, naming the key and why, rather
/// than read as uniform layers with wrong counts (docs/models.md, "What is
/// refused").
void refuse_unmodelled_layers(const Scope& s) {
  struct Refusal {
    const char* key;
    const char* why;
  };
  static const Refusal refusals[] = {
      {"hybrid_layer_pattern", "per-layer block kinds are not modelled"},
  };
  for (const Refusal& r : refusals) {
    if (has(s, r.key)) {
      throw InputError(std::string("tpnet cannot model this architecture yet: ") + r.why,
                       at(s, child(s, r.key), r.key));
    }
  }
  // Gemma-4's global layers: another head size and KV head count.
  if (const auto global = optional_int(s, "global_head_dim", 1, kMaxWidth)) {
    const auto head = optional_int(s, "head_dim", 1, kMaxWidth);
    if (!head || *head != *global) {
      throw InputError(
          "tpnet cannot model this architecture yet: its global layers have their own head size "
          "and KV heads (global_head_dim, num_global_key_value_heads) while tpnet's layers share "
          "one attention shape",
          at(s, child(s, "global_head_dim"), "global_head_dim"));
    }
  }
}

/// DeepSeek-V4 (model_type deepseek_v4): its compressed attention, one
/// layer at a time by compress_ratios (docs/formulas.md s.8.1; vLLM's
/// deepseek_v4.py reads the list the same way: its first num_hidden_layers
/// entries are the layers, a longer list's rest the MTP layers'). A ratio of
/// 0 or 1 keeps the window alone; vLLM runs ratios 4 and 128 only.
void read_compressed_attention(const Scope& s, ModelArch& m) {
  const YAML::Node ratios = child(s, "compress_ratios");
  CompressedAttentionSpec a;
  a.head_dim = required_int(s, "head_dim", 1, kMaxWidth, " (the compressed attention's head)");
  a.q_lora_rank = required_int(s, "q_lora_rank", 1, kMaxWidth);
  a.qk_rope_head_dim = required_int(s, "qk_rope_head_dim", 0, a.head_dim);
  a.o_lora_rank = required_int(s, "o_lora_rank", 1, kMaxWidth);
  a.o_groups = required_int(s, "o_groups", 1, m.num_attention_heads);
  a.hc_mult = static_cast<int>(optional_int(s, "hc_mult", 1, kMaxHeads).value_or(0));
  if (m.num_attention_heads % a.o_groups != 0) {
    throw InputError(fmt::format("{} output groups do not divide the {} attention heads",
                                 a.o_groups, m.num_attention_heads),
                     at(s, child(s, "o_groups"), "o_groups"));
  }
  const auto listed = static_cast<long long>(ratios.IsSequence() ? ratios.size() : 0);
  if (!ratios.IsSequence() || (listed != m.num_layers && listed != m.num_layers + m.mtp_layers)) {
    throw InputError(fmt::format("expected a list of one ratio per layer: {} (num_hidden_layers), "
                                 "or {} with the MTP layers",
                                 m.num_layers, m.num_layers + m.mtp_layers),
                     at(s, ratios, "compress_ratios"));
  }
  for (int i = 0; i < m.num_layers; ++i) {
    const YAML::Node item = ratios[static_cast<std::size_t>(i)];
    int ratio = -1;
    if (item.IsScalar() && item.Tag() != "!") {
      try {
        ratio = item.as<int>();
      } catch (const YAML::Exception&) {
        ratio = -1;
      }
    }
    if (ratio != 0 && ratio != 1 && ratio != 4 && ratio != 128) {
      throw InputError(
          "expected compress ratios 0 or 1 (the window alone), 4 or 128, the ratios "
          "vLLM's DeepSeek-V4 attention runs",
          at(s, item, "compress_ratios"));
    }
    a.compress_ratios.push_back(ratio);
  }
  if (m.sliding_window <= 0) missing(s, "sliding_window", " (every layer's window)");
  set_compressed_attention_layers(m, a);
  m.head_dim = a.head_dim;
  m.compressed_attention = a;
  m.attention = AttentionKind::compressed;
}

/// DeepSeek-V4's `expert_dtype: fp4` beside an fp8 quantization_config: the
/// routed experts are MXFP4 (vLLM's DeepseekV4FP8Config picks Mxfp4MoEMethod),
/// 4 bits and an 8-bit scale per 32 values, the rest FP8 blocks.
void read_expert_dtype(const Scope& s, ModelArch& m) {
  const auto dtype = optional_text(s, "expert_dtype");
  if (!dtype || m.part_bits.count(WeightPart::routed_experts) > 0) return;
  const std::string name = lowercase(*dtype);
  if (name == "fp4") {
    m.part_bits[WeightPart::routed_experts] = 4.25;
    m.assumptions["expert_dtype"] =
        "expert_dtype fp4: routed experts in MXFP4, 4.25 bits per weight (4 bits and an 8-bit "
        "scale per 32), as vLLM's DeepseekV4FP8Config loads them.";
  } else if (name != "fp8") {
    throw InputError("'" + *dtype +
                         "' is not an expert dtype vLLM's DeepSeek-V4 loads; use fp4 "
                         "or fp8",
                     at(s, child(s, "expert_dtype"), "expert_dtype"));
  }
}

/// Nemotron-H: each layer one block, by hybrid_override_pattern (M Mamba-2,
/// * attention, - MLP, E MoE), with its Mamba-2 shapes and squared-ReLU FFNs.
void read_block_pattern(const Scope& s, ModelArch& m) {
  const YAML::Node node = child(s, "hybrid_override_pattern");
  const std::string& pattern = node.Scalar();
  if (static_cast<long long>(pattern.size()) != m.num_layers) {
    throw InputError(
        fmt::format("has {} layers, num_hidden_layers says {}", pattern.size(), m.num_layers),
        at(s, node, "hybrid_override_pattern"));
  }
  m.layers = layers_from_block_pattern(pattern, at(s, node, "hybrid_override_pattern"));
  const LayerTally kinds = tally_layers(m.layers, 0, static_cast<int>(m.layers.size()));
  if (kinds.moe > 0 && !m.moe) {
    missing(s, "n_routed_experts", " (hybrid_override_pattern has MoE layers, E)");
  }
  const bool mamba = kinds.mamba > 0;
  const int dense = kinds.dense;
  if (m.moe) m.moe->first_dense_layers = dense;
  if (dense > 0 && m.intermediate_size == 0) {
    missing(s, "intermediate_size", " (the width of the MLP layers, -)");
  }
  if (mamba) {
    MambaSpec spec;
    spec.heads = required_int(s, "mamba_num_heads", 1, kMaxHeads);
    spec.head_dim = required_int(s, "mamba_head_dim", 1, kMaxWidth);
    spec.state_size = required_int(s, "ssm_state_size", 1, kMaxWidth);
    spec.groups = required_int(s, "n_groups", 1, kMaxHeads);
    spec.conv_kernel = required_int(s, "conv_kernel", 1, kMaxConvKernel);
    const std::string cache = lowercase(optional_text(s, "mamba_ssm_cache_dtype").value_or(""));
    spec.state_bytes = cache == "float32" ? 4 : 2;
    m.mamba = spec;
  }
  const std::string act = lowercase(optional_text(s, "mlp_hidden_act").value_or("relu2"));
  m.gated_ffn = act != "relu2" && act != "relu";
  if (const auto latent = optional_int(s, "moe_latent_size", 1, kMaxWidth); latent && m.moe) {
    m.moe->latent_size = *latent;
  }
}

/// A list of layer numbers under `key` in `scope`, each `base` to
/// `base` + layers - 1, returned from 0.
std::vector<int> layer_numbers(const Scope& scope, std::string_view key, int layers, int base) {
  const YAML::Node list = child(scope, key);
  if (!present(list)) missing(scope, key, "");
  if (!list.IsSequence())
    throw InputError("expected a list of layer numbers", at(scope, list, key));
  std::vector<int> out;
  for (const auto& item : list) {
    long long index = -1;
    if (item.IsScalar() && item.Tag() != "!") {
      try {
        index = item.as<long long>();
      } catch (const YAML::Exception&) {
        index = -1;
      }
    }
    if (index < base || index >= static_cast<long long>(layers) + base) {
      throw InputError(fmt::format("expected layer numbers {} to {}", base, layers - 1 + base),
                       at(scope, item, key));
    }
    out.push_back(static_cast<int>(index - base));
  }
  return out;
}

/// The FFN of layer i by the MoE counts read so far: the leading
/// first_dense_layers dense, the rest MoE (the convention of layer_plan).
FfnKind ffn_at(const ModelArch& m, int i) {
  if (!m.moe) return FfnKind::dense;
  return i < m.moe->first_dense_layers ? FfnKind::dense : FfnKind::moe;
}

/// Kimi-Linear: linear_attn_config numbers (from 1) the layers of Kimi Delta
/// Attention (kda_layers) and of MLA (full_attn_layers). KDA keeps a fixed
/// state per sequence as Gated DeltaNet does, with num_heads heads of
/// head_dim for keys and values alike and its gates low-rank (f_a/f_b and
/// g_a/g_b of head_dim), as vLLM's KimiDeltaAttention builds them.
void read_kimi_linear(const Scope& s, ModelArch& m) {
  const YAML::Node node = child(s, "linear_attn_config");
  if (!node.IsMap()) throw InputError("expected a JSON object", at(s, node, "linear_attn_config"));
  const Scope config{node, s.origin, s.prefix + "linear_attn_config."};
  const std::vector<int> kda = layer_numbers(config, "kda_layers", m.num_layers, 1);
  const std::vector<int> full = layer_numbers(config, "full_attn_layers", m.num_layers, 1);
  std::vector<int> kind(static_cast<std::size_t>(m.num_layers), 0);
  for (const auto& [list, value] : {std::pair{&kda, 1}, std::pair{&full, 2}}) {
    for (const int i : *list) {
      if (kind[static_cast<std::size_t>(i)] != 0) {
        throw InputError(fmt::format("layer {} is listed twice", i + 1),
                         at(config, child(config, value == 1 ? "kda_layers" : "full_attn_layers"),
                            value == 1 ? "kda_layers" : "full_attn_layers"));
      }
      kind[static_cast<std::size_t>(i)] = value;
    }
  }
  for (int i = 0; i < m.num_layers; ++i) {
    if (kind[static_cast<std::size_t>(i)] == 0) {
      throw InputError(fmt::format("layer {} is in neither kda_layers nor full_attn_layers", i + 1),
                       at(config, child(config, "kda_layers"), "kda_layers"));
    }
  }
  LinearAttentionSpec spec;
  spec.key_heads = spec.value_heads = required_int(config, "num_heads", 1, kMaxHeads);
  spec.key_head_dim = spec.value_head_dim = required_int(config, "head_dim", 1, kMaxWidth);
  spec.conv_kernel = static_cast<int>(
      optional_int(config, "short_conv_kernel_size", 0, kMaxConvKernel).value_or(0));
  spec.gate_rank = spec.key_head_dim;
  m.linear_attention = spec;
  m.linear_attention_layers = static_cast<int>(kda.size());
  m.layers.clear();
  for (int i = 0; i < m.num_layers; ++i) {
    LayerSpec layer;
    layer.mixer =
        kind[static_cast<std::size_t>(i)] == 1 ? Mixer::linear_attention : Mixer::attention;
    layer.ffn = ffn_at(m, i);
    m.layers.push_back(layer);
  }
}

/// mllama (Llama-3.2-Vision): the layers in cross_attention_layers (from 0)
/// attend to the vision encoder's tokens instead of the text's.
void read_cross_attention(const Scope& s, ModelArch& m) {
  const std::vector<int> cross = layer_numbers(s, "cross_attention_layers", m.num_layers, 0);
  if (cross.empty()) return;
  m.layers.clear();
  for (int i = 0; i < m.num_layers; ++i) m.layers.push_back({Mixer::attention, ffn_at(m, i)});
  for (const int i : cross) m.layers[static_cast<std::size_t>(i)].mixer = Mixer::cross_attention;
  m.assumptions["cross_attention_layers"] = fmt::format(
      "{} of {} layers attend to the image tokens (cross_attention_layers): like vLLM, their K "
      "and V are kept per image, not per text token, so they add nothing to the KV cache per "
      "token, and the image tokens' cache is not counted.",
      cross.size(), m.num_layers);
}

/// DeciLM's FFN width for a multiplier: 2/3 of ffn_mult x hidden, rounded up
/// to a multiple of 256 (transformers' _ffn_mult_to_intermediate_size).
long long decilm_ffn_width(double ffn_mult, long long hidden) {
  const auto width = static_cast<long long>(2.0 * ffn_mult * static_cast<double>(hidden) / 3.0);
  return (width + 255) / 256 * 256;
}

/// DeciLM / Nemotron-NAS: block_configs gives each layer its attention (or
/// none) and its FFN width (or none).
void read_block_configs(const Scope& s, ModelArch& m) {
  const YAML::Node blocks = child(s, "block_configs");
  if (!blocks.IsSequence() || static_cast<long long>(blocks.size()) != m.num_layers) {
    throw InputError(fmt::format("expected a list of {} layers (num_hidden_layers)", m.num_layers),
                     at(s, blocks, "block_configs"));
  }
  std::optional<long long> group;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const Scope layer{blocks[i], s.origin, fmt::format("{}block_configs[{}].", s.prefix, i)};
    if (!layer.map.IsMap())
      throw InputError("expected a JSON object", at(s, blocks[i], "block_configs"));
    const Scope attention{child(layer, "attention"), s.origin, layer.prefix + "attention."};
    const Scope ffn{child(layer, "ffn"), s.origin, layer.prefix + "ffn."};
    if (!attention.map.IsMap() || !ffn.map.IsMap()) {
      throw InputError("expected attention and ffn objects", at(layer, layer.map, ""));
    }
    const auto unmodelled = [&](const Scope& part, const char* key, const char* why) {
      if (optional_bool(part, key).value_or(false)) {
        throw InputError(std::string("tpnet cannot model this architecture yet: ") + why,
                         at(part, child(part, key), key));
      }
    };
    unmodelled(attention, "replace_with_linear",
               "an attention block replaced by one linear layer is not among the mixers tpnet "
               "models");
    unmodelled(ffn, "replace_with_linear",
               "an FFN replaced by one linear layer is not among the FFNs tpnet models");
    if (has(attention, "window_length")) {
      throw InputError(
          "tpnet cannot model this architecture yet: a per-layer attention window in "
          "block_configs",
          at(attention, child(attention, "window_length"), "window_length"));
    }
    LayerSpec spec;
    if (optional_bool(attention, "no_op").value_or(false)) {
      spec.mixer = Mixer::none;
    } else {
      const long long g = required_int(attention, "n_heads_in_group", 1, m.num_attention_heads);
      if (m.num_attention_heads % g != 0) {
        throw InputError(
            fmt::format("{} does not divide the {} attention heads", g, m.num_attention_heads),
            at(attention, child(attention, "n_heads_in_group"), "n_heads_in_group"));
      }
      if (group && *group != g) {
        throw InputError(
            "tpnet cannot model this architecture yet: its attention layers have different KV "
            "heads, and tpnet's share one attention shape",
            at(attention, child(attention, "n_heads_in_group"), "n_heads_in_group"));
      }
      group = g;
    }
    if (optional_bool(ffn, "no_op").value_or(false)) {
      spec.ffn = FfnKind::none;
    } else {
      const YAML::Node mult = child(ffn, "ffn_mult");
      if (!present(mult)) missing(ffn, "ffn_mult", " (the layer's FFN width)");
      reject_string(ffn, mult, "ffn_mult", "a number");
      const double value = keyed(
          ffn, [&] { return yaml::required_number(ffn.map, ffn.origin, "ffn_mult", 0.0, 1e4); });
      if (!(value > 0.0)) throw InputError("must be positive", at(ffn, mult, "ffn_mult"));
      spec.ffn_width = decilm_ffn_width(value, m.hidden_size);
    }
    m.layers.push_back(spec);
  }
  if (group) m.num_kv_heads = static_cast<int>(m.num_attention_heads / *group);
}

/// A quantization a checkpoint's folder or file name announces ("NVFP4" in
/// nvidia/Qwen3-235B-A22B-NVFP4), or "" when it names none.
std::string quantization_in_name(const std::string& origin) {
  const std::filesystem::path path(origin);
  std::string name = path.filename() == "config.json" ? path.parent_path().filename().string()
                                                      : path.filename().string();
  const std::string upper = detail::uppercase(name);
  // Word-like tokens only: "FP8" in "-FP8-dynamic", not inside another word.
  const auto is_sep = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) == 0; };
  for (const char* token :
       {"NVFP4", "MXFP4", "FP4", "FP8", "AWQ", "GPTQ", "INT4", "INT8", "W4A16", "W8A8", "W4A8"}) {
    const std::string t(token);
    for (std::size_t at = upper.find(t); at != std::string::npos; at = upper.find(t, at + 1)) {
      const bool starts = at == 0 || is_sep(upper[at - 1]);
      const bool ends = at + t.size() == upper.size() || is_sep(upper[at + t.size()]);
      if (starts && ends) return name.substr(at, t.size());
    }
  }
  return "";
}

/// The model_type of the language model: text_config's, else the top level's.
std::string model_type(const Scope& s, const Scope& top) {
  for (const Scope* scope : {&s, &top}) {
    const YAML::Node type = child(*scope, "model_type");
    if (present(type) && type.IsScalar()) return lowercase(type.Scalar());
  }
  return "";
}

/// transformers' tie_word_embeddings default for the config class of a
/// model_type; nullopt where tpnet's table has none. A config.json leaves
/// the key out when it holds the default (save_pretrained writes the
/// difference from the defaults), so Google's Gemma 3 files never state it.
/// Read from transformers' configuration_<type>.py: GemmaConfig, Gemma2Config,
/// Gemma3TextConfig true (Gemma3Config passes it on to PretrainedConfig,
/// whose default is true); LlamaConfig, Llama4Config, Llama4TextConfig,
/// Qwen2Config false (commits in docs/models.md).
std::optional<bool> default_tie_word_embeddings(const std::string& type) {
  if (type == "gemma" || type == "gemma2" || type == "gemma3" || type == "gemma3_text") {
    return true;
  }
  if (type == "llama" || type == "llama4" || type == "llama4_text" || type == "qwen2") {
    return false;
  }
  return std::nullopt;
}

/// transformers' vocab_size default where a family's configs leave it out
/// (Google's Gemma configs do); 0 when tpnet knows none.
long long default_vocab_size(const std::string& type) {
  if (type == "gemma" || type == "gemma2") return 256000;
  if (type == "gemma3" || type == "gemma3_text") return 262208;
  return 0;
}

double dtype_bits(const Scope& s, const std::string& key, const std::string& dtype) {
  const std::string t = lowercase(dtype);
  if (t == "bfloat16" || t == "float16" || t == "bf16" || t == "fp16" || t == "half") return 16;
  if (t == "float32" || t == "fp32" || t == "float") return 32;
  if (t.rfind("float8", 0) == 0 || t == "fp8") return 8;
  throw InputError("'" + dtype + "' is not a dtype tpnet knows; use bfloat16, float16 or float32",
                   at(s, child(s, key), key));
}

}  // namespace

ModelArch parse_hf_config(std::string_view json_text, const std::string& origin,
                          const std::optional<std::string>& hf_quant_text,
                          const std::string& hf_quant_origin) {
  const YAML::Node root = load_json(json_text, origin);
  const Scope top{root, origin, ""};
  const std::string arch = architecture(root);
  const std::string unknown =
      (arch.empty() ? std::string() : " (architecture " + arch + ")") +
      "; tpnet reads decoder-only transformer configs under transformers' key names";

  const YAML::Node text_config = root["text_config"];
  if (present(text_config) && !text_config.IsMap()) {
    throw InputError("expected a JSON object", at(top, text_config, "text_config"));
  }
  // Multimodal configs nest the language model; its keys win, the top level fills in.
  const Scope s = present(text_config) ? Scope{text_config, origin, "text_config."} : top;
  auto text_anywhere = [&](std::string_view key) -> std::optional<std::string> {
    if (auto value = optional_text(s, key); value && !value->empty()) return value;
    if (auto value = optional_text(top, key); value && !value->empty()) return value;
    return std::nullopt;
  };

  ModelArch m;
  const std::string type = model_type(s, top);
  m.hidden_size = required_int(s, "hidden_size", 1, kMaxHidden, unknown);
  m.num_layers = required_int(s, "num_hidden_layers", 1, kMaxLayers, unknown);
  refuse_unmodelled_layers(s);
  if (const long long vocab = default_vocab_size(type); vocab > 0 && !has(s, "vocab_size")) {
    m.vocab_size = vocab;
    m.assumptions["vocab_size"] =
        fmt::format("Not in config.json; {}, the default of transformers' {} config.", vocab, type);
  } else {
    m.vocab_size = required_int(s, "vocab_size", 1, kMaxVocab, unknown);
  }
  m.num_attention_heads = required_int(s, "num_attention_heads", 1, kMaxHeads, unknown);
  m.num_kv_heads = static_cast<int>(
      optional_int(s, "num_key_value_heads", 1, kMaxHeads).value_or(m.num_attention_heads));
  if (m.num_kv_heads > m.num_attention_heads) {
    throw InputError(fmt::format("must not exceed num_attention_heads ({})", m.num_attention_heads),
                     at(s, child(s, "num_key_value_heads"), "num_key_value_heads"));
  }
  m.head_dim = static_cast<int>(
      optional_int(s, "head_dim", 1, kMaxWidth)
          .value_or(optional_int(s, "attention_head_dim", 1, kMaxWidth).value_or(0)));
  const auto intermediate = optional_int(s, "intermediate_size", 1, kMaxWidth);

  // Mixture of experts, under each family's names.
  std::string experts_key;
  for (const char* key :
       {"n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts"}) {
    if (has(s, key)) {
      experts_key = key;
      break;
    }
  }
  const long long experts = experts_key.empty() ? 0 : *optional_int(s, experts_key, 0, kMaxExperts);
  bool ffn_is_expert = false;  // Mixtral style: intermediate_size is the expert's width
  // Llama-4: experts of intermediate_size with one shared expert as wide, in
  // every interleave_moe_layer_step-th layer; the others dense, of
  // intermediate_size_mlp.
  const bool llama4 = type.rfind("llama4", 0) == 0 || has(s, "interleave_moe_layer_step");
  long long dense_width = 0;
  if (experts > 0) {
    MoeSpec moe;
    moe.routed_experts = static_cast<int>(experts);
    std::string top_k_key = "num_experts_per_tok";
    for (const char* key :
         {"num_experts_per_tok", "num_experts_per_token", "top_k_experts", "moe_topk", "moe_k"}) {
      if (has(s, key)) {
        top_k_key = key;
        break;
      }
    }
    moe.experts_per_token = required_int(s, top_k_key, 1, experts);
    if (llama4) {
      moe.expert_intermediate_size =
          required_int(s, "intermediate_size", 1, kMaxWidth, " (the width of one expert)");
      ffn_is_expert = true;
      const long long step =
          optional_int(s, "interleave_moe_layer_step", 1, m.num_layers).value_or(1);
      int moe_layers = 0;
      for (int i = 0; i < m.num_layers; ++i) moe_layers += (i + 1) % step == 0 ? 1 : 0;
      moe.first_dense_layers = m.num_layers - moe_layers;
      if (moe.first_dense_layers > 0) {
        dense_width = required_int(s, "intermediate_size_mlp", 1, kMaxWidth,
                                   " (the width of the dense layers between MoE layers)");
      }
    } else if (const auto width = optional_int(s, "moe_intermediate_size", 1, kMaxWidth)) {
      moe.expert_intermediate_size = *width;
    } else if (experts_key == "num_local_experts" && intermediate) {
      moe.expert_intermediate_size = *intermediate;
      ffn_is_expert = true;
    } else {
      missing(s, "moe_intermediate_size", " (the width of one expert)");
    }
    // DeepSeek's n_shared_experts, Kimi-Linear's num_shared_experts, ERNIE's
    // moe_num_shared_experts.
    std::optional<long long> shared_count;
    for (const char* key : {"n_shared_experts", "num_shared_experts", "moe_num_shared_experts"}) {
      if (has(s, key)) {
        shared_count = optional_int(s, key, 0, kMaxSharedExperts);
        break;
      }
    }
    moe.shared_experts = static_cast<int>(shared_count.value_or(llama4 ? 1 : 0));
    for (const char* key :
         {"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size"}) {
      if (const auto shared = optional_int(s, key, 0, kMaxWidth); shared && *shared > 0) {
        moe.shared_expert_intermediate_size = *shared;
        moe.shared_experts = std::max(moe.shared_experts, 1);
        break;
      }
    }
    if (llama4) {
      // counted above
    } else if (const auto dense = optional_int(s, "first_k_dense_replace", 0, m.num_layers)) {
      // DeepSeek: after the first k, layer i has experts when i % moe_layer_freq == 0.
      const long long freq = optional_int(s, "moe_layer_freq", 1, m.num_layers).value_or(1);
      int dense_layers = static_cast<int>(*dense);
      for (int i = static_cast<int>(*dense); i < m.num_layers; ++i) {
        dense_layers += i % freq != 0 ? 1 : 0;
      }
      moe.first_dense_layers = dense_layers;
    } else if (has(s, "moe_layer_start_index")) {
      moe.first_dense_layers = ernie_dense_layers(s, m.num_layers);
    } else {
      moe.first_dense_layers = qwen_dense_layers(s, m.num_layers);
    }
    m.moe = moe;
  }
  if (intermediate && !ffn_is_expert) m.intermediate_size = *intermediate;
  if (dense_width > 0) m.intermediate_size = dense_width;
  if (const auto chunk = optional_int(s, "attention_chunk_size", 1, kMaxTokens)) {
    m.assumptions["attention_chunk_size"] = fmt::format(
        "Chunked local attention ({} tokens) in some layers is read as full attention: the KV "
        "cache per token is an upper bound.",
        *chunk);
  }
  const bool block_pattern = has(s, "hybrid_override_pattern");
  if (block_pattern) {
    read_block_pattern(s, m);
  } else if (has(s, "block_configs")) {
    read_block_configs(s, m);
  } else if ((!m.moe || m.moe->first_dense_layers > 0) && m.intermediate_size == 0) {
    missing(s, "intermediate_size", " (the width of the dense FFN)");
  }

  // Multi-head latent attention.
  if (has(s, "kv_lora_rank")) {
    MlaSpec mla;
    mla.kv_lora_rank = required_int(s, "kv_lora_rank", 1, kMaxWidth);
    mla.q_lora_rank = static_cast<int>(optional_int(s, "q_lora_rank", 0, kMaxWidth).value_or(0));
    mla.qk_rope_head_dim = required_int(s, "qk_rope_head_dim", 0, kMaxWidth);
    mla.qk_nope_head_dim = required_int(s, "qk_nope_head_dim", 0, kMaxWidth);
    mla.v_head_dim = required_int(s, "v_head_dim", 1, kMaxWidth);
    m.mla = mla;
  }
  // 64 heads in a hidden_size of 2 are 0 wide each (found by tests/fuzz), and
  // every per-head size (attention weights, KV cache) would be 0.
  if (effective_head_dim(m) < 1) {
    if (m.mla) {
      throw InputError("is 0, and so is qk_rope_head_dim: a query/key head needs at least 1",
                       at(s, child(s, "qk_nope_head_dim"), "qk_nope_head_dim"));
    }
    throw InputError(fmt::format("{} heads in a hidden_size of {} are 0 wide each; give head_dim",
                                 m.num_attention_heads, m.hidden_size),
                     at(s, child(s, "num_attention_heads"), "num_attention_heads"));
  }
  m.mtp_layers = mtp_layers(s);

  // DeepSeek Sparse Attention's indexer.
  if (const auto top_k = optional_int(s, "index_topk", 1, kMaxTokens)) {
    m.sparse_attention_top_k = static_cast<int>(*top_k);
    m.sparse_attention_index_heads = required_int(s, "index_n_heads", 1, kMaxHeads);
    m.sparse_attention_index_head_dim = required_int(s, "index_head_dim", 1, kMaxWidth);
  }

  // Hybrid layers: linear attention and sliding windows.
  const LayerTypeCounts counts = count_layer_types(s, m.num_layers, type);
  m.linear_attention_layers = counts.linear;
  if (has(s, "linear_attn_config") && !block_pattern && m.layers.empty()) {
    read_kimi_linear(s, m);
  } else if (has(s, "cross_attention_layers") && !block_pattern && m.layers.empty()) {
    read_cross_attention(s, m);
  }
  if (counts.linear > 0) {
    LinearAttentionSpec linear;
    linear.key_heads = required_int(s, "linear_num_key_heads", 1, kMaxHeads);
    linear.value_heads = required_int(s, "linear_num_value_heads", 1, kMaxHeads);
    linear.key_head_dim = required_int(s, "linear_key_head_dim", 1, kMaxWidth);
    linear.value_head_dim = required_int(s, "linear_value_head_dim", 1, kMaxWidth);
    linear.conv_kernel =
        static_cast<int>(optional_int(s, "linear_conv_kernel_dim", 0, kMaxConvKernel).value_or(0));
    m.linear_attention = linear;
  }
  const auto window = optional_int(s, "sliding_window", 1, kMaxTokens);
  // Qwen2/Qwen3 (and their MoE) configs default use_sliding_window to false
  // and, when it is true, slide only the layers from max_window_layers on
  // (transformers' configuration_qwen2.py/qwen3.py; commits in docs/models.md).
  const bool qwen_window =
      type == "qwen2" || type == "qwen2_moe" || type == "qwen3" || type == "qwen3_moe";
  const auto use_window = optional_bool(s, "use_sliding_window");
  if (window && !use_window && qwen_window && !counts.listed) {
    m.assumptions["use_sliding_window"] = fmt::format(
        "Not in config.json; false, the default of transformers' {} config: sliding_window {} "
        "is not used and every layer keeps every token.",
        type, *window);
  }
  if (window && use_window.value_or(!qwen_window || counts.listed)) {
    m.sliding_window = static_cast<int>(*window);
    m.sliding_window_layers = counts.listed ? counts.sliding : m.num_layers - counts.linear;
    if (qwen_window && !counts.listed) {
      const auto below = optional_int(s, "max_window_layers", 0, kMaxLayers);
      const int full = static_cast<int>(std::min<long long>(below.value_or(28), m.num_layers));
      m.sliding_window_layers = std::max(0, m.num_layers - counts.linear - full);
      if (!below) {
        m.assumptions["max_window_layers"] = fmt::format(
            "Not in config.json; 28, the default of transformers' {} config: layers 0-27 keep "
            "every token, the {} from layer 28 on slide.",
            type, m.sliding_window_layers);
      }
    }
    if (counts.default_pattern > 0) {
      m.assumptions["sliding_window_pattern"] = fmt::format(
          "Neither layer_types nor sliding_window_pattern in config.json; {}, the default of "
          "transformers' {} config: layer i (from 0) is global when (i + 1) % {} == 0, so {} of "
          "{} layers slide and {} keep every token.",
          counts.default_pattern, type, counts.default_pattern, m.sliding_window_layers,
          m.num_layers, m.num_layers - m.sliding_window_layers);
    }
  } else if (counts.sliding > 0 && counts.default_pattern == 0) {
    missing(s, "sliding_window", " (layer_types lists sliding_attention layers)");
  }

  if (m.sparse_attention_top_k) {
    m.attention = AttentionKind::sparse;
  } else if (m.mla) {
    m.attention = AttentionKind::mla;
  } else if (m.linear_attention_layers > 0) {
    m.attention = AttentionKind::hybrid_linear;
  } else if (m.sliding_window_layers > 0) {
    m.attention = AttentionKind::sliding_window;
  } else {
    m.attention = m.num_kv_heads == m.num_attention_heads ? AttentionKind::mha : AttentionKind::gqa;
  }
  const bool compressed = has(s, "compress_ratios");
  if (compressed) read_compressed_attention(s, m);

  // Embeddings: as the config says; absent, the default of transformers'
  // config class for the model_type (an assumption, marked), else untied.
  if (auto tied = optional_bool(s, "tie_word_embeddings")) {
    m.tie_word_embeddings = *tied;
  } else if (auto tied_top = optional_bool(top, "tie_word_embeddings")) {
    m.tie_word_embeddings = *tied_top;
  } else if (const auto tied_default = default_tie_word_embeddings(type)) {
    m.tie_word_embeddings = *tied_default;
    m.assumptions["tie_word_embeddings"] =
        fmt::format("Not in config.json; {}, the default of transformers' {} config.",
                    *tied_default ? "true (the LM head is the input embedding table)"
                                  : "false (a separate LM head)",
                    type);
  } else {
    m.tie_word_embeddings = false;
    m.assumptions["tie_word_embeddings"] = fmt::format(
        "Not in config.json; taken as false (a separate LM head), the default of the Llama, "
        "Llama 4 and Qwen2 configs in transformers. tpnet has no default for model_type '{}' "
        "(transformers' PretrainedConfig defaults to true): state it if the checkpoint ties "
        "its LM head to the embeddings.",
        type.empty() ? std::string("(none)") : type);
  }

  warn_unread_keys(s, top, m, type, arch, origin);

  // Names and provenance.
  m.name = text_anywhere("_name_or_path").value_or(name_from_origin(origin));
  m.description =
      "imported from a Hugging Face config.json" + (arch.empty() ? "" : " (" + arch + ")");
  m.source = origin + " (Hugging Face config.json; parameter counts estimated from the shapes)";

  // Precision: the checkpoint's quantization, else its dtype.
  const bool dtype_in_s = has(s, "torch_dtype") || has(s, "dtype");
  const Scope& dtype_scope = dtype_in_s ? s : top;
  const std::string dtype_key = has(dtype_scope, "torch_dtype") ? "torch_dtype" : "dtype";
  double base_bits = 16.0;
  if (auto dtype = optional_text(dtype_scope, dtype_key)) {
    m.torch_dtype = *dtype;
    base_bits = dtype_bits(dtype_scope, dtype_key, *dtype);
  }
  const ParamEstimate estimate = estimate_params(m);
  if (!estimate.complete()) {
    // Every shape the estimate reads is required above; this is a guard.
    throw InputError("cannot estimate parameters without " + estimate.missing.front(),
                     InputLocation::in_file(origin));
  }
  m.total_params = estimate.total_params();
  m.active_params = estimate.active_params();
  m.assumptions["total_params"] =
      "config.json states no parameter count; estimated from the shapes (docs/formulas.md s.8), "
      "MTP layers excluded.";
  m.assumptions["active_params"] =
      "Estimated from the shapes (docs/formulas.md s.8): what one token reads, LM head included, "
      "input embedding table excluded.";

  const Scope* quant_scope = has(s, "quantization_config") ? &s : &top;
  const YAML::Node quant = child(*quant_scope, "quantization_config");
  std::optional<detail::CheckpointPrecision> precision;
  if (hf_quant_text) {
    // modelopt's own file describes the checkpoint in full (its exclusions,
    // a mixed-precision map); config.json's quantization_config only echoes it.
    precision =
        detail::precision_from_hf_quant_config(*hf_quant_text, hf_quant_origin, base_bits, m);
  } else if (present(quant)) {
    if (!quant.IsMap()) {
      throw InputError("expected a JSON object", at(*quant_scope, quant, "quantization_config"));
    }
    precision = detail::precision_from_quantization_config(
        quant, origin, quant_scope->prefix + "quantization_config.", base_bits, m);
  }
  if (precision) {
    m.quantization = precision->quantization;
    m.bits_per_weight = precision->bits;
    m.part_bits = precision->part_bits;
    if (compressed && !hf_quant_text) read_expert_dtype(s, m);
    if (precision->mtp_unquantized) m.mtp_bits_per_weight = base_bits;
    m.assumptions["bits_per_weight"] = precision->why + ".";
    if (precision->quantization == "mixed") {
      // A per-module map has no one format: every part carries its own bits,
      // and the headline figure is their mean over the whole model.
      m.bits_per_weight = effective_bits_per_weight(m);
      m.assumptions["bits_per_weight"] = fmt::format(
          "{}; {:.3f} bits per weight over the whole model.", precision->why, m.bits_per_weight);
    }
    if (!precision->warnings.empty()) {
      std::string all;
      for (const auto& w : precision->warnings) all += (all.empty() ? "" : "; ") + w;
      m.assumptions["quantization"] = all + ".";
    }
  } else {
    m.bits_per_weight = base_bits;
    m.assumptions["bits_per_weight"] =
        m.torch_dtype.empty()
            ? "Neither quantization_config nor torch_dtype in config.json; assumed 16-bit weights."
            : fmt::format("torch_dtype {}: {:g} bits per weight.", m.torch_dtype, base_bits);
    if (const std::string named = quantization_in_name(origin); !named.empty()) {
      m.warnings.push_back(fmt::format(
          "{}: the checkpoint's name says {}, but neither config.json's quantization_config nor "
          "an hf_quant_config.json beside it states a quantization, so its weights are read at "
          "{:g} bits; copy the checkpoint's hf_quant_config.json beside config.json, or give "
          "`model.quantization` or `model.bits_per_weight`",
          origin, named, base_bits));
    }
  }
  return m;
}

ModelArch load_hf_config(const std::string& path) {
  std::error_code ec;
  std::string file = path;
  if (std::filesystem::is_directory(path, ec)) {
    file = (std::filesystem::path(path) / "config.json").string();
    if (!std::filesystem::exists(file, ec)) {
      throw InputError("is a folder without a config.json; give a model YAML or a config.json",
                       InputLocation::in_file(path));
    }
  }
  // modelopt checkpoints describe their quantization in a file beside config.json.
  const std::filesystem::path quant =
      std::filesystem::path(file).parent_path() / "hf_quant_config.json";
  std::optional<std::string> quant_text;
  if (std::filesystem::is_regular_file(quant, ec)) quant_text = read_text_file(quant.string());
  return parse_hf_config(read_text_file(file), file, quant_text, quant.string());
}

bool is_hf_config_path(std::string_view path) {
  if (path.ends_with(".json")) return true;
  std::error_code ec;
  return std::filesystem::is_regular_file(std::filesystem::path(path) / "config.json", ec);
}

}  // namespace tpnet
