#include "tpnet/io/hf_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

#include "../base/ascii_case.hpp"
#include "checkpoint_precision.hpp"
#include "hf/family_rule.hpp"
#include "hf/hf_layers.hpp"
#include "hf/hf_reader.hpp"
#include "json_value.hpp"
#include "tpnet/io/text_file.hpp"
#include "tpnet/model/params.hpp"
#include "tpnet/model/quantization.hpp"
#include "tpnet/model/weights.hpp"

namespace tpnet {

namespace hf {

const FamilyRule* family_rule_for(std::string_view type) {
  for (const FamilyRule* rule : family_rules()) {
    if (std::find(rule->model_types.begin(), rule->model_types.end(), type) !=
        rule->model_types.end()) {
      return rule;
    }
  }
  return nullptr;
}

const FamilyRule* family_rule_for_architecture(std::string_view name) {
  for (const FamilyRule* rule : family_rules()) {
    if (std::find(rule->architectures.begin(), rule->architectures.end(), name) !=
        rule->architectures.end()) {
      return rule;
    }
  }
  return nullptr;
}

}  // namespace hf

namespace {

using namespace model_limits;
using detail::lowercase;
using hf::HfConfig;

json::Value load_json(std::string_view text, const std::string& origin) {
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
  return json::parse(text, origin);
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

double dtype_bits(const hf::HfObject& s, const std::string& key, const std::string& dtype) {
  const std::string t = lowercase(dtype);
  if (t == "bfloat16" || t == "float16" || t == "bf16" || t == "fp16" || t == "half") return 16;
  if (t == "float32" || t == "fp32" || t == "float") return 32;
  if (t.rfind("float8", 0) == 0 || t == "fp8") return 8;
  throw InputError("'" + dtype + "' is not a dtype tpnet knows; use bfloat16, float16 or float32",
                   s.at(s.node(key), key));
}

/// Keys every transformers config may carry that shape no weight: the
/// generation defaults and bookkeeping PretrainedConfig writes, names,
/// versions and the multimodal wrapper's parts.
bool bookkeeping_key(const std::string& key) {
  static const char* const kKeys[] = {"architectures",
                                      "auto_map",
                                      "model_type",
                                      "_name_or_path",
                                      "transformers_version",
                                      "torch_dtype",
                                      "dtype",
                                      "quantization_config",
                                      "tie_word_embeddings",
                                      "text_config",
                                      "use_cache",
                                      "initializer_range",
                                      "max_position_embeddings",
                                      "pretraining_tp",
                                      "top_k",
                                      "top_p",
                                      "typical_p",
                                      "temperature",
                                      "num_beams",
                                      "num_beam_groups",
                                      "max_length",
                                      "min_length",
                                      "length_penalty",
                                      "repetition_penalty",
                                      "no_repeat_ngram_size",
                                      "encoder_no_repeat_ngram_size",
                                      "diversity_penalty",
                                      "num_return_sequences",
                                      "do_sample",
                                      "early_stopping",
                                      "chunk_size_feed_forward",
                                      "cross_attention_hidden_size",
                                      "add_cross_attention",
                                      "pruned_heads",
                                      "id2label",
                                      "label2id",
                                      "task_specific_params",
                                      "tie_encoder_decoder",
                                      "torchscript",
                                      "use_bfloat16",
                                      "tf_legacy_loss",
                                      "return_dict",
                                      "return_dict_in_generate",
                                      "output_attentions",
                                      "output_hidden_states",
                                      "output_scores",
                                      "remove_invalid_values",
                                      "exponential_decay_length_penalty",
                                      "prefix",
                                      "problem_type",
                                      "finetuning_task",
                                      "tokenizer_class",
                                      "is_decoder",
                                      "is_encoder_decoder",
                                      "num_logits_to_keep",
                                      "ignore_index",
                                      "mtp_loss_scaling_factor",
                                      "model_max_length",
                                      "initial_context_length"};
  return std::any_of(std::begin(kKeys), std::end(kKeys), [&](const char* k) { return key == k; });
}

bool contains_any(const std::string& key, std::initializer_list<std::string_view> words) {
  return std::any_of(words.begin(), words.end(),
                     [&](std::string_view w) { return key.find(w) != std::string::npos; });
}

/// Whether a key's name says it tunes numerics, positions, training or
/// another modality rather than a weight's shape.
bool numerics_key(const std::string& key) {
  return key.front() == '_' ||
         contains_any(key, {"token_id", "token_index", "_token",      "norm",       "eps",
                            "rope",     "rotary",      "dropout",     "bias",       "softcap",
                            "sink",     "scaling",     "scale",       "dtype",      "theta",
                            "vision",   "image",       "audio",       "video",      "aux_loss",
                            "jitter",   "z_loss",      "multiplier",  "activation", "penalty",
                            "suppress", "bad_words",   "placeholder", "projector",  "spatial",
                            "grid",     "reward",      "mm_",         "processor",  "position"}) ||
         key.ends_with("_act");
}

/// Whether a key's name suggests a shape: heads, widths, layer kinds, experts.
bool shape_key(const std::string& key) {
  return contains_any(
      key,
      {"head",     "layer",  "expert",    "moe",    "latent", "window",  "intermediate", "rank",
       "kv",       "attn",   "attention", "mamba",  "ssm",    "linear",  "conv",         "ffn",
       "mlp",      "shared", "hidden",    "group",  "block",  "pattern", "dim",          "width",
       "state",    "chunk",  "swa",       "global", "local",  "sparse",  "topk",         "top_k",
       "hybrid",   "mtp",    "nextn",     "embed",  "size",   "num_",    "n_",           "index",
       "compress", "gate",   "lora",      "proj"});
}

/// A value that says a feature is there: a positive number, true, a
/// non-empty list or object.
bool states_something(const json::Value& value) {
  if (value.is_array() || value.is_object()) return value.size() > 0;
  if (value.is_bool()) return value.text() == "true";
  const auto number = value.number();
  return number && *number > 0.0;
}

/// A list with one entry per layer, or a string with one letter per layer.
bool per_layer_list(const json::Value& value, int layers, int mtp) {
  if (layers < 2) return false;
  std::size_t size = 0;
  if (value.is_array()) {
    if (!std::all_of(value.items().begin(), value.items().end(),
                     [](const json::Value& v) { return !v.is_array() && !v.is_object(); })) {
      return false;
    }
    size = value.size();
  } else if (value.is_string()) {
    size = value.text().size();
  }
  return size == static_cast<std::size_t>(layers) ||
         (mtp > 0 && size == static_cast<std::size_t>(layers) + static_cast<std::size_t>(mtp));
}

/// What a family rule left unread, against "never a silent guess": a
/// per-layer list that may shape the layers is refused; any other key whose
/// name suggests a shape and whose value says the feature is there is named
/// in a warning every command shows.
void check_unread_keys(const HfConfig& c, ModelArch& m, std::string_view family, bool known) {
  std::vector<std::string> warned;
  for (const std::string& key : c.unread_keys()) {
    const std::string name = lowercase(key);
    if (bookkeeping_key(key) || numerics_key(name) || !shape_key(name)) continue;
    const json::Value& value = *c.map().find(key);
    if (value.is_null()) continue;
    if (per_layer_list(value, m.num_layers(), m.mtp_layers)) {
      throw InputError(
          fmt::format("is a per-layer list tpnet's {} reading does not understand: its layers may "
                      "differ in ways tpnet cannot see, so it refuses rather than read them as "
                      "uniform (describe the layers in a model YAML file with `layers:` runs)",
                      known ? family : "common decoder"),
          c.at(&value, key));
    }
    if (states_something(value)) warned.push_back(c.prefix() + key);
  }
  if (warned.empty()) return;
  std::string keys;
  for (const auto& key : warned) keys += (keys.empty() ? "" : ", ") + key;
  const LayerTally t = tally_layers(m.layers);
  m.warnings.push_back(fmt::format(
      "{}: {} may shape the architecture, but tpnet's {} reading does not read {}: the model is "
      "read without {} ({} layers: {} attention, {} linear or Mamba, {} dense FFN, {} MoE); check "
      "its totals against the model card",
      c.origin(), keys, known ? family : "common decoder", warned.size() == 1 ? "it" : "them",
      warned.size() == 1 ? "it" : "them", t.layers, t.attention + t.sliding + t.chunked + t.cross,
      t.linear + t.mamba, t.dense, t.moe));
}

}  // namespace

ModelArch parse_hf_config(std::string_view json_text, const std::string& origin,
                          const std::optional<std::string>& hf_quant_text,
                          const std::string& hf_quant_origin) {
  const json::Value root = load_json(json_text, origin);
  HfConfig c(root, origin);
  const hf::HfObject& top = c.top();
  const std::string unknown =
      (c.architecture().empty() ? std::string() : " (architecture " + c.architecture() + ")") +
      "; tpnet reads decoder-only transformer configs under transformers' key names";

  ModelArch m;
  m.hidden_size = c.required("hidden_size", 1, kMaxHidden, unknown);

  // The family's rule reads the layers; a model_type no family claims is
  // read as the common decoder, and said so.
  const hf::FamilyRule* rule = hf::family_rule_for(c.model_type());
  if (rule == nullptr) rule = hf::family_rule_for(c.outer_model_type());
  if (rule == nullptr && c.model_type().empty()) {
    rule = hf::family_rule_for_architecture(c.architecture());
  }
  const bool known = rule != nullptr;
  if (!known) rule = &hf::common_transformer_rule();
  rule->read(c, m);
  if (!known) {
    const LayerTally t = tally_layers(m.layers);
    m.warnings.push_back(fmt::format(
        "{}: model_type '{}'{} is not a family tpnet knows; read under transformers' common key "
        "names as a decoder-only transformer ({} layers: {} attention, {} dense FFN, {} MoE)",
        origin, c.model_type().empty() ? std::string("(none)") : c.model_type(),
        c.architecture().empty() || c.architecture() == c.model_type()
            ? std::string()
            : " (" + c.architecture() + ")",
        t.layers, t.attention + t.sliding + t.chunked + t.linear + t.mamba, t.dense, t.moe));
  }

  if (c.vocab_default && !c.has("vocab_size")) {
    m.vocab_size = *c.vocab_default;
    m.assumptions["vocab_size"] =
        fmt::format("Not in config.json; {}, the default of transformers' {} config.", m.vocab_size,
                    c.model_type());
  } else {
    m.vocab_size = c.required("vocab_size", 1, kMaxVocab, unknown);
  }
  m.mtp_layers = hf::read_mtp_layers(c);

  // Embeddings: as the config says; absent, the default of transformers'
  // config class for the model_type (an assumption, marked), else untied.
  if (auto tied = c.flag("tie_word_embeddings")) {
    m.tie_word_embeddings = *tied;
  } else if (auto tied_top = top.flag("tie_word_embeddings")) {
    m.tie_word_embeddings = *tied_top;
  } else if (const auto tied_default = c.tie_default) {
    m.tie_word_embeddings = *tied_default;
    m.assumptions["tie_word_embeddings"] =
        fmt::format("Not in config.json; {}, the default of transformers' {} config.",
                    *tied_default ? "true (the LM head is the input embedding table)"
                                  : "false (a separate LM head)",
                    c.model_type());
  } else {
    m.tie_word_embeddings = false;
    m.assumptions["tie_word_embeddings"] = fmt::format(
        "Not in config.json; taken as false (a separate LM head), the default of the Llama, "
        "Llama 4 and Qwen2 configs in transformers. tpnet has no default for model_type '{}' "
        "(transformers' PretrainedConfig defaults to true): state it if the checkpoint ties "
        "its LM head to the embeddings.",
        c.model_type().empty() ? std::string("(none)") : c.model_type());
  }

  // Names and provenance.
  std::optional<std::string> name = c.text("_name_or_path");
  if (!name || name->empty()) name = top.text("_name_or_path");
  m.name = name && !name->empty() ? *name : name_from_origin(origin);
  m.description = "imported from a Hugging Face config.json" +
                  (c.architecture().empty() ? "" : " (" + c.architecture() + ")");
  m.source = origin + " (Hugging Face config.json; parameter counts estimated from the shapes)";

  // Precision: the checkpoint's quantization, else its dtype.
  const bool dtype_in_s = c.has("torch_dtype") || c.has("dtype");
  const hf::HfObject& dtype_scope = dtype_in_s ? static_cast<const hf::HfObject&>(c) : top;
  const std::string dtype_key = dtype_scope.has("torch_dtype") ? "torch_dtype" : "dtype";
  double base_bits = 16.0;
  if (auto dtype = dtype_scope.text(dtype_key)) {
    m.torch_dtype = *dtype;
    base_bits = dtype_bits(dtype_scope, dtype_key, *dtype);
  }
  (void)c.text("torch_dtype");
  (void)c.text("dtype");
  const ParamEstimate estimate = estimate_params(m);
  if (!estimate.complete()) {
    // Every shape the estimate reads is required by the rules; this is a guard.
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

  const hf::HfObject& quant_scope =
      c.has("quantization_config") ? static_cast<const hf::HfObject&>(c) : top;
  const json::Value* quant = quant_scope.node("quantization_config");
  std::optional<detail::CheckpointPrecision> precision;
  if (hf_quant_text) {
    // modelopt's own file describes the checkpoint in full (its exclusions,
    // a mixed-precision map); config.json's quantization_config only echoes it.
    precision =
        detail::precision_from_hf_quant_config(*hf_quant_text, hf_quant_origin, base_bits, m);
  } else if (quant != nullptr) {
    if (!quant->is_object()) {
      throw InputError("expected a JSON object", quant_scope.at(quant, "quantization_config"));
    }
    precision = detail::precision_from_quantization_config(
        *quant, origin, quant_scope.prefix() + "quantization_config.", base_bits, m);
  }
  if (precision) {
    m.quantization = precision->quantization;
    m.bits_per_weight = precision->bits;
    m.part_bits = precision->part_bits;
    if (rule->after_precision != nullptr) rule->after_precision(c, m, hf_quant_text.has_value());
    keep_unquantized_parts(m, base_bits);
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
      m.precision_doubt = fmt::format(
          "{}: the checkpoint's name says {}, but neither config.json's quantization_config nor "
          "an hf_quant_config.json beside it states a quantization, so its weights are read at "
          "{:g} bits; copy the checkpoint's hf_quant_config.json beside config.json, or give "
          "`model.quantization` or `model.bits_per_weight`",
          origin, named, base_bits);
    }
  }
  check_unread_keys(c, m, rule->family, known);
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
