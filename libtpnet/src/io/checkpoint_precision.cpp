#include "checkpoint_precision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <unordered_map>
#include <utility>

#include "../base/ascii_case.hpp"
#include "json_value.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/model/layer_plan.hpp"

namespace tpnet::detail {
namespace {

using detail::lowercase;

/// `key` of `map` when it is there and not null.
const json::Value* member(const json::Value& map, const char* key) {
  const json::Value* v = map.find(key);
  return v != nullptr && !v->is_null() ? v : nullptr;
}

bool present(const json::Value& map, const char* key) { return member(map, key) != nullptr; }

/// Where `key` of `map` is, for errors: its line (the map's when absent).
InputLocation where(const json::Value& map, const char* key, const std::string& origin,
                    const std::string& name) {
  const json::Value* v = map.find(key);
  return InputLocation::in_file(origin, v != nullptr ? v->line() : map.line(), name);
}

std::optional<std::string> text_of(const json::Value& map, const char* key) {
  const json::Value* v = member(map, key);
  if (v == nullptr || v->is_array() || v->is_object()) return std::nullopt;
  return v->text();
}

std::optional<long long> integer_of(const json::Value& map, const char* key) {
  const json::Value* v = member(map, key);
  if (v == nullptr) return std::nullopt;
  const auto value = v->is_string() ? std::nullopt : v->number();
  if (!value || *value != std::floor(*value) || std::fabs(*value) > 1e15) return std::nullopt;
  return static_cast<long long>(*value);
}

std::vector<std::string> strings_of(const json::Value& map, const char* key) {
  std::vector<std::string> out;
  const json::Value* v = member(map, key);
  if (v == nullptr) return out;
  if (v->is_string()) {
    out.push_back(v->text());
  } else if (v->is_array()) {
    for (const auto& item : v->items()) {
      if (item.is_string()) out.push_back(item.text());
    }
  }
  return out;
}

/// The weight format of compressed-tensors' config_groups (the first group
/// that states one), scale factors included; `groups` counts the distinct
/// formats.
struct CompressedTensorsWeights {
  double bits = 16.0;
  std::string name;
  std::string why;
  int groups = 0;
};

std::optional<CompressedTensorsWeights> compressed_tensors_weights(const json::Value& q,
                                                                   const std::string& origin,
                                                                   const std::string& prefix) {
  const json::Value* groups = member(q, "config_groups");
  if (groups == nullptr || !groups->is_object()) return std::nullopt;
  std::optional<CompressedTensorsWeights> first;
  std::vector<double> distinct;
  for (const auto& [group_name, group] : groups->members()) {
    const json::Value* found = member(group, "weights");
    if (found == nullptr || !found->is_object()) continue;
    const json::Value& weights = *found;
    std::string key = prefix;
    key += "config_groups.";
    key += group_name;
    key += ".weights.";
    const auto num_bits = integer_of(weights, "num_bits");
    if (!num_bits || *num_bits < 1 || *num_bits > 16) {
      throw InputError("expected num_bits 1 to 16",
                       where(weights, "num_bits", origin, key + "num_bits"));
    }
    const std::string type = lowercase(text_of(weights, "type").value_or("int"));
    const std::string strategy = lowercase(text_of(weights, "strategy").value_or("tensor"));
    const long long group_size = integer_of(weights, "group_size").value_or(0);
    const json::Value* symmetric_value = member(weights, "symmetric");
    const bool symmetric = symmetric_value == nullptr || symmetric_value->text() != "false";
    CompressedTensorsWeights w;
    const auto bits = static_cast<double>(*num_bits);
    if ((strategy == "group" || strategy == "tensor_group") && group_size > 0) {
      // One scale per group: FP8 (E4M3) for NVFP4's 16-wide groups, else
      // 16-bit; an asymmetric int format adds a zero point as wide.
      const double scale_bits = type == "float" && *num_bits == 4 ? 8.0 : 16.0;
      const double per_group = scale_bits * (symmetric ? 1.0 : 2.0);
      w.bits = bits + per_group / static_cast<double>(group_size);
      w.why = fmt::format("{}-bit {} weights and a {:g}-bit scale{} per group of {}: {:g} bits",
                          *num_bits, type, scale_bits, symmetric ? "" : " and zero point",
                          group_size, w.bits);
    } else {
      // Per-tensor, per-channel or 128x128 block scales add under 0.01 bit.
      w.bits = bits;
      w.why =
          fmt::format("{}-bit {} weights, {} scales: {:g} bits", *num_bits, type, strategy, w.bits);
    }
    if (type == "float" && *num_bits == 4) {
      // 32-wide groups with E8M0 scales are MXFP4 (Kimi K3); NVFP4's are 16.
      w.name = group_size == 32 ? "mxfp4" : "nvfp4";
    } else if (type == "float" && *num_bits == 8) {
      w.name = "fp8";
    } else if (type == "int" && *num_bits == 4) {
      w.name = "int4";
    } else {
      w.name = fmt::format("{}{}", type, *num_bits);
    }
    if (std::find(distinct.begin(), distinct.end(), w.bits) == distinct.end()) {
      distinct.push_back(w.bits);
    }
    if (!first) first = w;
  }
  if (first) first->groups = static_cast<int>(distinct.size());
  return first;
}

/// One projection of a part: its share of the part's weights in a layer and
/// the names checkpoints give it (any one of them names it: a fused
/// projection is listed under each slot it holds).
struct Slot {
  double weight = 1.0;
  std::vector<std::string> names;
};

/// The linear mixers' projections, under each kind's own module names.
std::vector<Slot> linear_attention_slots(double h, const LinearAttentionSpec& s) {
  const double key_dim = double(s.key_heads) * s.key_head_dim;
  const double value_dim = double(s.value_heads) * s.value_head_dim;
  switch (s.kind) {
    case LinearKind::kimi_delta: {
      // Kimi Linear and Kimi K3 keep KDA under self_attn, as their MLA.
      std::vector<Slot> slots = {
          {h * key_dim, {"self_attn.q_proj"}},
          {h * key_dim, {"self_attn.k_proj"}},
          {h * value_dim, {"self_attn.v_proj"}},
          {h * s.value_heads, {"self_attn.b_proj"}},
          {h * s.gate_rank, {"self_attn.f_a_proj"}},
          {double(s.gate_rank) * value_dim, {"self_attn.f_b_proj"}},
          {value_dim * h, {"self_attn.o_proj"}},
      };
      if (s.full_rank_output_gate) {
        slots.push_back({h * value_dim, {"self_attn.g_proj"}});
      } else {
        slots.push_back({h * s.gate_rank, {"self_attn.g_a_proj"}});
        slots.push_back({double(s.gate_rank) * value_dim, {"self_attn.g_b_proj"}});
      }
      return slots;
    }
    case LinearKind::lightning:
      // MiniMax-Text-01 / M1.
      return {{h * (2.0 * key_dim + value_dim), {"self_attn.qkv_proj"}},
              {h * value_dim, {"self_attn.output_gate"}},
              {value_dim * h, {"self_attn.out_proj"}}};
    case LinearKind::gated_deltanet:
      break;
  }
  // Qwen3-Next fuses q, k, v and z (in_proj_qkvz) and beta with alpha
  // (in_proj_ba); Qwen3.5 splits them (in_proj_qkv, in_proj_z, in_proj_b, in_proj_a).
  return {
      {h * (2.0 * key_dim + value_dim), {"linear_attn.in_proj_qkvz", "linear_attn.in_proj_qkv"}},
      {h * value_dim, {"linear_attn.in_proj_qkvz", "linear_attn.in_proj_z"}},
      {h * s.value_heads, {"linear_attn.in_proj_ba", "linear_attn.in_proj_b"}},
      {h * s.value_heads, {"linear_attn.in_proj_ba", "linear_attn.in_proj_a"}},
      {value_dim * h, {"linear_attn.out_proj"}}};
}

/// Nemotron-H's Mamba-2 mixer: in_proj (z, x, B, C and dt) and out_proj.
std::vector<Slot> mamba_slots(double h, const MambaSpec& s) {
  const double inner = double(s.heads) * s.head_dim;
  return {{h * (2.0 * inner + 2.0 * s.groups * s.state_size + s.heads), {"mixer.in_proj"}},
          {inner * h, {"mixer.out_proj"}}};
}

std::vector<Slot> attention_slots(long long hidden, const MixerSpec& mixer) {
  const auto h = static_cast<double>(hidden);
  if (mixer.kind == Mixer::linear_attention) return linear_attention_slots(h, mixer.linear);
  if (mixer.kind == Mixer::mamba) return mamba_slots(h, mixer.mamba);
  const AttentionSpec& a = mixer.attention;
  const double heads = a.q_heads;
  std::vector<Slot> slots;
  if (a.compressed) {
    // DeepSeek-V4 names its attention projections otherwise.
    const CompressedAttentionSpec& c = a.compression;
    const double width = heads * c.head_dim;
    slots.push_back({h * c.q_lora_rank, {"attn.wq_a"}});
    slots.push_back({double(c.q_lora_rank) * width, {"attn.wq_b"}});
    slots.push_back({h * c.head_dim, {"attn.wkv"}});
    slots.push_back({width * c.o_lora_rank, {"attn.wo_a"}});
    slots.push_back({double(c.o_groups) * c.o_lora_rank * h, {"attn.wo_b"}});
  } else if (a.latent) {
    const MlaSpec& m = a.mla;
    const double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    if (m.q_lora_rank > 0) {
      slots.push_back({h * m.q_lora_rank, {"self_attn.q_a_proj"}});
      slots.push_back({static_cast<double>(m.q_lora_rank) * heads * qk, {"self_attn.q_b_proj"}});
    } else {
      slots.push_back({h * heads * qk, {"self_attn.q_proj"}});
    }
    slots.push_back({h * (m.kv_lora_rank + m.qk_rope_head_dim), {"self_attn.kv_a_proj_with_mqa"}});
    slots.push_back(
        {static_cast<double>(m.kv_lora_rank) * heads * (m.qk_nope_head_dim + m.v_head_dim),
         {"self_attn.kv_b_proj"}});
    slots.push_back({heads * m.v_head_dim * h, {"self_attn.o_proj"}});
    if (a.output_gate) slots.push_back({h * heads * m.v_head_dim, {"self_attn.g_proj"}});
    if (a.indexer.scores()) {
      const double q_in = m.q_lora_rank > 0 ? m.q_lora_rank : h;
      const double ih = a.indexer.heads;
      const double id = a.indexer.head_dim;
      slots.push_back({q_in * ih * id, {"self_attn.indexer.wq_b"}});
      slots.push_back({h * id, {"self_attn.indexer.wk"}});
      slots.push_back({h * ih, {"self_attn.indexer.weights_proj"}});
    }
  } else {
    const auto d = static_cast<double>(a.head_dim);
    const auto dv = static_cast<double>(a.v_head_dim);
    const double kv = a.kv_heads;
    const std::vector<std::string> fused = {"self_attn.qkv_proj", "attention.wqkv", "attn.qkv_proj",
                                            "self_attn.query_key_value"};
    auto with_fused = [&](std::vector<std::string> names) {
      names.insert(names.end(), fused.begin(), fused.end());
      return names;
    };
    slots.push_back({h * heads * d * (a.output_gate ? 2.0 : 1.0),
                     with_fused({"self_attn.q_proj", "mixer.q_proj", "attn.q_proj"})});
    if (!a.borrowed_kv) {
      slots.push_back(
          {h * kv * d, with_fused({"self_attn.k_proj", "mixer.k_proj", "attn.k_proj"})});
    }
    if (!a.shared_kv && !a.borrowed_kv) {
      slots.push_back(
          {h * kv * dv, with_fused({"self_attn.v_proj", "mixer.v_proj", "attn.v_proj"})});
    }
    slots.push_back(
        {heads * dv * h,
         {"self_attn.o_proj", "mixer.o_proj", "attention.wo", "attn.o_proj", "self_attn.dense"}});
  }
  return slots;
}

/// Gated FFNs: gate, up and down projections of equal size.
std::vector<Slot> ffn_slots(const std::vector<std::string>& bases) {
  std::vector<Slot> slots(3);
  for (const auto& base : bases) {
    slots[0].names.push_back(base + "gate_proj");
    slots[0].names.push_back(base + "gate_up_proj");
    slots[0].names.push_back(base + "w1");
    slots[1].names.push_back(base + "up_proj");
    slots[1].names.push_back(base + "gate_up_proj");
    slots[1].names.push_back(base + "w3");
    slots[1].names.push_back(base + "fc1");
    slots[2].names.push_back(base + "down_proj");
    slots[2].names.push_back(base + "w2");
    slots[2].names.push_back(base + "fc2");
  }
  return slots;
}

/// The projections of `part` within one layer (or the whole of an
/// embedding or output head), under the names transformers' model families
/// give them.
std::vector<Slot> slots_of(WeightPart part, long long hidden, const LayerSpec& layer) {
  switch (part) {
    case WeightPart::embedding:
      return {{1.0,
               {"model.embed_tokens", "model.language_model.embed_tokens",
                "language_model.model.embed_tokens", "backbone.embeddings", "embed"}}};
    case WeightPart::lm_head:
      return {{1.0, {"lm_head", "language_model.lm_head", "head"}}};
    case WeightPart::attention:
      return attention_slots(hidden, layer.mixer);
    case WeightPart::dense_ffn:
      return ffn_slots({"mlp.", "feed_forward.", "ffn.", "mixer."});
    case WeightPart::routed_experts:
      return ffn_slots({"mlp.experts.0.", "mlp.experts.", "block_sparse_moe.experts.0.",
                        "feed_forward.experts.", "feed_forward.experts.0.", "ffn.experts.0.",
                        "mixer.experts.0."});
    case WeightPart::shared_experts:
      return ffn_slots({"mlp.shared_experts.", "mlp.shared_expert.", "feed_forward.shared_expert.",
                        "ffn.shared_experts.", "mixer.shared_experts."});
    case WeightPart::router:
      return {{1.0,
               {"mlp.gate", "mlp.router", "block_sparse_moe.gate", "feed_forward.router",
                "ffn.gate", "mixer.gate"}}};
    case WeightPart::latent_projections:
      // Nemotron-H's fc1/fc2_latent_proj, Kimi K3's routed_expert_down/up_proj.
      return {{1.0,
               {"mixer.fc1_latent_proj", "mlp.routed_expert_down_proj",
                "block_sparse_moe.routed_expert_down_proj"}},
              {1.0,
               {"mixer.fc2_latent_proj", "mlp.routed_expert_up_proj",
                "block_sparse_moe.routed_expert_up_proj"}}};
  }
  return {};
}

bool per_layer(WeightPart part) {
  return part != WeightPart::embedding && part != WeightPart::lm_head;
}

/// The full names of a slot in layer `layer` (with and without a
/// multimodal wrapper); the embedding and output head have no layer.
std::vector<std::string> names_in_layer(const Slot& slot, WeightPart part, int layer) {
  if (!per_layer(part)) return slot.names;
  static const char* const prefixes[] = {"model.layers.{}.", "model.language_model.layers.{}.",
                                         "language_model.model.layers.{}.", "backbone.layers.{}.",
                                         "layers.{}."};
  std::vector<std::string> out;
  for (const char* prefix : prefixes) {
    const std::string base = fmt::format(fmt::runtime(prefix), layer);
    for (const auto& name : slot.names) out.push_back(base + name);
  }
  return out;
}

bool glob(std::string_view pattern, std::string_view text) {
  // Iterative matcher with backtracking over the last '*'.
  std::size_t p = 0;
  std::size_t t = 0;
  std::size_t star = std::string_view::npos;
  std::size_t mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

/// Bits per weight of a modelopt quant_algo (scale factors included); nullopt
/// for one tpnet does not know.
std::optional<double> modelopt_bits(std::string_view algo_text, long long group) {
  const std::string algo = lowercase(algo_text);
  if (algo == "nvfp4" || algo == "nvfp4_awq" || algo == "w4a16_nvfp4" || algo == "fp4") {
    return 4.5;  // 4 + FP8 scale / 16
  }
  if (algo == "fp8" || algo == "fp8_pb_wo" || algo == "fp8_per_channel_per_token" ||
      algo == "fp8_block") {
    return 8.0;
  }
  if (algo == "mxfp4") return 4.25;  // 4 + 8-bit scale / 32
  if (algo == "mxfp8") return 8.25;  // 8 + 8-bit scale / 32
  if (algo == "int4_awq" || algo == "w4a8_awq") {
    return 4.0 + 16.0 / static_cast<double>(group > 0 ? group : 128);  // a 16-bit scale per group
  }
  if (algo == "int8_sq" || algo == "w8a8_sq_per_channel" || algo == "int8_wo") return 8.0;
  return std::nullopt;
}

int layer_of(std::string_view module);

/// A "re:" pattern as literal alternatives when it is one (".*self_attn.*",
/// ".*mlp\\.(gate|up)_proj.*", "lm_head$"): the form every exclusion list seen
/// takes, matched without std::regex, whose backtracking takes milliseconds
/// a name.
struct LiteralRegex {
  std::vector<std::string> alternatives;
  bool anywhere = false;  ///< a leading ".*": the text may start past the name's start
  bool to_end = false;    ///< a trailing "$"
};

std::optional<LiteralRegex> literal_regex(std::string_view body) {
  LiteralRegex out;
  if (body.rfind(".*", 0) == 0) {
    out.anywhere = true;
    body.remove_prefix(2);
  }
  if (!body.empty() && body.back() == '$' && (body.size() < 2 || body[body.size() - 2] != '\\')) {
    out.to_end = true;
    body.remove_suffix(1);
  } else if (body.size() >= 2 && body.substr(body.size() - 2) == ".*" &&
             (body.size() < 3 || body[body.size() - 3] != '\\')) {
    body.remove_suffix(2);  // matching from the start needs no more than the text
  }
  std::string before;
  std::string after;
  std::vector<std::string> group;
  bool in_group = false;
  bool had_group = false;
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == '\\') {
      if (++i == body.size()) return std::nullopt;
      c = body[i];
      if (std::isalnum(static_cast<unsigned char>(c))) return std::nullopt;  // \d, \w, ...
    } else if (c == '(' && !in_group && !had_group) {
      in_group = had_group = true;
      group.emplace_back();
      continue;
    } else if (c == '|' && in_group) {
      group.emplace_back();
      continue;
    } else if (c == ')' && in_group) {
      in_group = false;
      continue;
    } else if (std::string_view(".*+?[]{}()^$|").find(c) != std::string_view::npos) {
      return std::nullopt;
    }
    if (in_group) {
      group.back() += c;
    } else {
      (had_group ? after : before) += c;
    }
  }
  if (in_group) return std::nullopt;
  if (!had_group) group.emplace_back();
  for (const auto& alternative : group) {
    std::string text = before;
    text += alternative;
    text += after;
    out.alternatives.push_back(std::move(text));
  }
  return out;
}

bool literal_regex_names(const LiteralRegex& r, std::string_view module) {
  for (const auto& text : r.alternatives) {
    if (r.to_end) {
      if (module.size() < text.size() || module.substr(module.size() - text.size()) != text) {
        continue;
      }
      if (r.anywhere || module.size() == text.size()) return true;
    } else if (r.anywhere ? module.find(text) != std::string_view::npos
                          : module.rfind(text, 0) == 0) {
      return true;
    }
  }
  return false;
}

/// A "re:" pattern, compiled; `valid` false when std::regex refuses it or it
/// is too long to match safely (it then names nothing).
struct CompiledRegex {
  std::optional<LiteralRegex> literal;
  std::regex re;
  bool valid = false;
};

std::shared_ptr<const CompiledRegex> compile_regex(std::string_view pattern) {
  if (pattern.rfind("re:", 0) != 0) return nullptr;
  auto out = std::make_shared<CompiledRegex>();
  // std::regex recurses per pattern character; no real exclusion is this long.
  if (pattern.size() > 512) return out;
  try {
    // Compiled even when matched as literals: what std::regex refuses names nothing.
    out->re = std::regex(std::string(pattern.substr(3)));
    out->valid = true;
    out->literal = literal_regex(pattern.substr(3));
  } catch (const std::regex_error&) {
    out->valid = false;
  }
  return out;
}

/// compressed-tensors matches a "re:" pattern from the name's start (re.match).
bool regex_names(const CompiledRegex& compiled, std::string_view module) {
  if (!compiled.valid) return false;
  if (compiled.literal) return literal_regex_names(*compiled.literal, module);
  return std::regex_search(module.begin(), module.end(), compiled.re,
                           std::regex_constants::match_continuous);
}

/// Module patterns (an exclusion list, or the modules a mixed-precision map
/// lists) sorted by the layer a literal one names, so each layer is tested
/// against its own entries and the wildcard ones only.
class PatternIndex {
 public:
  explicit PatternIndex(const std::vector<std::string>& patterns)
      : patterns_(patterns), compiled_(patterns.size()) {
    literals_.reserve(patterns.size());
    for (std::size_t k = 0; k < patterns.size(); ++k) {
      const std::string& p = patterns[k];
      // Each regex compiled once: std::regex builds its automaton per object.
      compiled_[k] = compile_regex(p);
      const int layer = pinned_layer(p);
      if (layer >= 0) {
        pinned_layers_.insert(layer);
      } else {
        ++unpinned_;
      }
      if (!compiled_[k] && p.find_first_of("*?[") == std::string::npos) {
        // A literal names itself and the modules inside it: a hash lookup
        // (modelopt's maps list every expert's projections, 20,000 and more).
        literals_.emplace(p, k);
      } else if (layer >= 0) {
        scanned_pinned_[layer].push_back(k);
      } else {
        scanned_.push_back(k);
      }
    }
  }

  /// The one layer a pattern can name: "model.layers.12.mlp" or
  /// "model.layers.12" with nothing wild before the number's end; -1 for
  /// "model.layers.1*" (layers 1, 10-19, ...), wildcards and regexes.
  static int pinned_layer(const std::string& p) {
    if (p.rfind("re:", 0) == 0) return -1;
    const std::size_t at = p.find("layers.");
    if (at == std::string::npos || p.find_first_of("*?[") < at + 7) return -1;
    std::size_t end = at + 7;
    while (end < p.size() && std::isdigit(static_cast<unsigned char>(p[end]))) ++end;
    if (end == at + 7 || (end < p.size() && p[end] != '.')) return -1;
    return layer_of(p);
  }

  [[nodiscard]] bool names_anything_in(int layer) const {
    return unpinned_ > 0 || pinned_layers_.count(layer) > 0;
  }
  /// Patterns matched one by one against every layer's modules.
  [[nodiscard]] std::size_t wildcards() const { return scanned_.size(); }

  /// The first pattern that names `module` (a module in layer `layer`, or -1).
  [[nodiscard]] int first_match(const std::string& module, int layer) const {
    int best = -1;
    auto take = [&best](std::size_t k) {
      if (best < 0 || static_cast<int>(k) < best) best = static_cast<int>(k);
    };
    if (!literals_.empty()) {
      const std::string_view name(module);
      if (const auto it = literals_.find(name); it != literals_.end()) take(it->second);
      for (std::size_t dot = name.find('.'); dot != std::string_view::npos;
           dot = name.find('.', dot + 1)) {
        if (const auto it = literals_.find(name.substr(0, dot)); it != literals_.end()) {
          take(it->second);
        }
      }
    }
    auto consider = [&](const std::vector<std::size_t>& list) {
      for (const std::size_t k : list) {
        if (best >= 0 && static_cast<int>(k) > best) break;
        if (compiled_[k] ? regex_names(*compiled_[k], module)
                         : module_matches(patterns_[k], module)) {
          take(k);
          break;
        }
      }
    };
    consider(scanned_);
    const auto it = scanned_pinned_.find(layer);
    if (it != scanned_pinned_.end()) consider(it->second);
    return best;
  }

  [[nodiscard]] std::size_t size() const { return patterns_.size(); }

 private:
  const std::vector<std::string>& patterns_;
  std::vector<std::shared_ptr<const CompiledRegex>> compiled_;  ///< null: not a "re:" pattern
  /// Views of patterns_, which outlive the index: no string built or copied.
  std::unordered_map<std::string_view, std::size_t> literals_;  ///< the first index of each
  std::vector<std::size_t> scanned_;                            ///< wildcards and regexes
  std::map<int, std::vector<std::size_t>> scanned_pinned_;      ///< wildcards after "layers.N."
  std::set<int> pinned_layers_;
  std::size_t unpinned_ = 0;
};

/// One slot of a part in a layer: its share of the part's weights there and
/// the pattern that names it (-1: none).
struct CoveredSlot {
  double fraction = 0.0;
  int pattern = -1;
};

/// How the patterns cover `part` in `layer`; empty when they name none of it.
std::vector<CoveredSlot> cover(const std::vector<Slot>& slots, WeightPart part, int layer,
                               const PatternIndex& index, std::vector<bool>& used) {
  std::vector<CoveredSlot> out;
  double total = 0.0;
  bool named = false;
  for (const Slot& slot : slots) {
    int pattern = -1;
    for (const auto& name : names_in_layer(slot, part, layer)) {
      const int k = index.first_match(name, layer);
      if (k >= 0 && (pattern < 0 || k < pattern)) pattern = k;
    }
    out.push_back({slot.weight, pattern});
    total += slot.weight;
    if (pattern >= 0) {
      named = true;
      used[static_cast<std::size_t>(pattern)] = true;
    }
  }
  if (!named) return {};
  for (auto& c : out) c.fraction /= total > 0.0 ? total : 1.0;
  return out;
}

/// The layers that hold `part`, each with the part's slots there, by the
/// layer plan: a mixer holds attention weights, a dense FFN the dense part,
/// a MoE FFN the experts and router. The embedding and the head are one
/// "layer" 0.
struct PartLayers {
  struct Run {
    int first = 0;  ///< the first layer of the run
    int count = 0;
    std::vector<Slot> slots;
  };
  std::vector<Run> runs;
  int layers = 0;  ///< in all
};

PartLayers layers_with(WeightPart part, const ModelArch& model) {
  PartLayers out;
  if (!per_layer(part)) {
    out.runs.push_back({0, 1, slots_of(part, model.hidden_size, LayerSpec{})});
    out.layers = 1;
    return out;
  }
  int first = 0;
  for (const LayerRun& run : model.layers.runs()) {
    const LayerSpec& spec = run.layer;
    const bool moe = spec.ffn.kind == FfnKind::moe;
    const bool holds = part == WeightPart::attention   ? spec.mixer.kind != Mixer::none
                       : part == WeightPart::dense_ffn ? spec.ffn.kind == FfnKind::dense
                       : part == WeightPart::latent_projections
                           ? moe && spec.ffn.moe.latent_size > 0
                           : moe;
    if (holds) {
      out.runs.push_back({first, run.count, slots_of(part, model.hidden_size, spec)});
      out.layers += run.count;
    }
    first += run.count;
  }
  return out;
}

/// Wildcard patterns are matched against every layer: a list of thousands
/// over a 100,000-layer config would take hours. Real checkpoints stay far
/// below (Kimi-K2.6: a few wildcards over 61 layers).
constexpr double kMaxWildcardLayerPairs = 20000;

void check_budget(const PatternIndex& index, const ModelArch& model, const InputLocation& where) {
  const double pairs =
      static_cast<double>(index.wildcards()) * static_cast<double>(std::max(1, model.num_layers()));
  if (pairs > kMaxWildcardLayerPairs) {
    throw InputError(fmt::format("{} wildcard module patterns over {} layers are more than tpnet "
                                 "matches ({:.0f} pattern-layer pairs at most)",
                                 index.wildcards(), model.num_layers(), kMaxWildcardLayerPairs),
                     where);
  }
}

/// What share of each part's weights the patterns leave unquantized.
std::map<WeightPart, double> excluded_share(const std::vector<std::string>& patterns,
                                            const ModelArch& model,
                                            std::vector<std::string>& warnings,
                                            const std::string& what, const InputLocation& where) {
  std::map<WeightPart, double> share;
  if (patterns.empty()) return share;
  const PatternIndex index(patterns);
  check_budget(index, model, where);
  std::vector<bool> used(patterns.size(), false);
  for (const WeightPart part : kWeightParts) {
    const PartLayers holders = layers_with(part, model);
    double excluded = 0.0;
    for (const PartLayers::Run& run : holders.runs) {
      for (int layer = run.first; layer < run.first + run.count; ++layer) {
        if (!index.names_anything_in(layer)) continue;
        for (const CoveredSlot& c : cover(run.slots, part, layer, index, used)) {
          if (c.pattern >= 0) excluded += c.fraction;
        }
      }
    }
    if (excluded > 0.0) share[part] = excluded / static_cast<double>(holders.layers);
  }
  // One line for the patterns that name weights tpnet places yet match none
  // of them; a norm, a vision tower or an MTP layer is not among those weights.
  std::vector<std::string> unmatched;
  for (std::size_t k = 0; k < patterns.size(); ++k) {
    if (!used[k] && part_of_module(patterns[k]).has_value() &&
        patterns[k].find("mtp") == std::string::npos &&
        patterns[k].find("vision") == std::string::npos &&
        patterns[k].find("visual") == std::string::npos) {
      unmatched.push_back(patterns[k]);
    }
  }
  if (!unmatched.empty()) {
    std::string shown;
    for (std::size_t k = 0; k < unmatched.size() && k < 3; ++k) {
      shown += (k == 0 ? "'" : ", '") + unmatched[k] + "'";
    }
    warnings.push_back(fmt::format(
        "{} {} pattern(s) ({}{}) match no module tpnet places (attention, FFN, experts, "
        "router, embedding, lm_head of layers 0-{}); those weights are counted quantized",
        what, unmatched.size(), shown, unmatched.size() > 3 ? ", ..." : "",
        std::max(1, model.num_layers()) - 1));
  }
  return share;
}

/// Shares summed over projections land a rounding step off whole values
/// (16 as 15.999999999999998); bits are kept to 1e-9.
double snapped(double bits) { return std::round(bits * 1e9) / 1e9; }

/// The parts' bits for a format of `bits` that leaves `share` of each part at
/// `dtype_bits`. The embedding is never a quantized linear layer, and vLLM
/// builds every MoE router without a quantization (ReplicatedLinear with
/// quant_config=None), so both stay at the dtype.
std::map<WeightPart, double> part_bits_for(double bits, double dtype_bits,
                                           const std::map<WeightPart, double>& share) {
  std::map<WeightPart, double> out;
  for (const auto& [part, fraction] : share) {
    out[part] = snapped(fraction * dtype_bits + (1 - fraction) * bits);
  }
  out[WeightPart::embedding] = dtype_bits;
  out[WeightPart::router] = dtype_bits;
  for (auto it = out.begin(); it != out.end();) {
    it = it->second == bits ? out.erase(it) : std::next(it);
  }
  return out;
}

/// The first few items and how many more: exclusion lists run to hundreds
/// of modules (a vision tower listed layer by layer).
std::string first_few_joined(const std::vector<std::string>& items) {
  constexpr std::size_t kShown = 6;
  std::string out;
  for (std::size_t k = 0; k < items.size() && k < kShown; ++k) {
    out += (out.empty() ? "" : ", ") + items[k];
  }
  if (items.size() > kShown) out += fmt::format(" and {} more", items.size() - kShown);
  return out;
}

/// Whether an exclusion list names the MTP layers ("mtp*", "model.mtp.layers.0*").
bool names_mtp(const std::vector<std::string>& excluded) {
  return std::any_of(excluded.begin(), excluded.end(), [](const std::string& pattern) {
    return lowercase(pattern).find("mtp") != std::string::npos;
  });
}

/// "model.layers.12.mlp..." -> 12; -1 without a layer index.
int layer_of(std::string_view module) {
  const std::size_t at = module.find("layers.");
  if (at == std::string_view::npos) return -1;
  int value = 0;
  std::size_t k = at + 7;
  if (k >= module.size() || !std::isdigit(static_cast<unsigned char>(module[k]))) return -1;
  while (k < module.size() && std::isdigit(static_cast<unsigned char>(module[k]))) {
    value = value * 10 + (module[k] - '0');
    if (value > 1000000) return -1;
    ++k;
  }
  return value;
}

/// modelopt's per-module map: each part's bits is its layers' mean, a layer
/// the map does not list being unquantized. `key` names the map in errors
/// (hf_quant_config.json's quantization.quantized_layers, or config.json's
/// quantization_config.quantized_layers), `file` the file in the description.
CheckpointPrecision mixed_precision(const json::Value& layers_map, const std::string& origin,
                                    const std::string& key, const std::string& file,
                                    double dtype_bits, const ModelArch& model) {
  CheckpointPrecision p;
  p.quantization = "mixed";
  std::vector<std::string> modules;
  std::vector<double> module_bits;
  std::map<std::string, int> algos;
  // The formats met so far: a map repeats a handful over 20,000 modules.
  struct Format {
    std::string algo;
    long long group_size = 0;
    std::optional<double> bits;
  };
  std::vector<Format> formats_seen;
  auto bits_of = [&](const std::string& algo, long long group_size) {
    for (const Format& f : formats_seen) {
      if (f.group_size == group_size && f.algo == algo) return f.bits;
    }
    formats_seen.push_back({algo, group_size, modelopt_bits(algo, group_size)});
    return formats_seen.back().bits;
  };
  int unknown = 0;
  for (const auto& [module, spec] : layers_map.members()) {
    const auto algo = spec.is_object() ? text_of(spec, "quant_algo") : std::nullopt;
    const auto bits =
        algo ? bits_of(*algo, integer_of(spec, "group_size").value_or(0)) : std::nullopt;
    if (!bits) {
      throw InputError(
          fmt::format("'{}' is not a modelopt format tpnet knows; use NVFP4, FP8, "
                      "MXFP4, MXFP8 or an INT4 AWQ",
                      algo.value_or("(none)")),
          InputLocation::in_file(origin, spec.line(), fmt::format("{}.{}", key, module)));
    }
    ++algos[*algo];
    if (!part_of_module(module)) {
      ++unknown;
      continue;
    }
    modules.push_back(module);
    module_bits.push_back(*bits);
  }
  const PatternIndex index(modules);
  check_budget(index, model, InputLocation::in_file(origin, 0, key));
  std::vector<bool> used(modules.size(), false);
  for (const WeightPart part : kWeightParts) {
    const PartLayers holders = layers_with(part, model);
    if (holders.layers == 0) continue;
    double sum = 0.0;
    for (const PartLayers::Run& run : holders.runs) {
      for (int layer = run.first; layer < run.first + run.count; ++layer) {
        if (!index.names_anything_in(layer)) {
          sum += dtype_bits;  // a layer the map leaves out is unquantized
          continue;
        }
        const auto covered = cover(run.slots, part, layer, index, used);
        if (covered.empty()) {
          sum += dtype_bits;  // a layer the map leaves out is unquantized
          continue;
        }
        for (const CoveredSlot& c : covered) {
          sum += c.fraction *
                 (c.pattern >= 0 ? module_bits[static_cast<std::size_t>(c.pattern)] : dtype_bits);
        }
      }
    }
    p.part_bits[part] = snapped(sum / static_cast<double>(holders.layers));
  }
  p.bits = dtype_bits;  // every part is in part_bits
  std::string formats;
  std::map<std::string, int> by_name;  // NVFP4 and nvfp4 are one format
  for (const auto& [algo, count] : algos) by_name[lowercase(algo)] += count;
  for (const auto& [algo, count] : by_name) {
    formats += fmt::format("{}{} modules {}", formats.empty() ? "" : ", ", count, algo);
  }
  p.why = fmt::format(
      "{}: MIXED_PRECISION ({}); each part's bits are its layers' mean, a layer the map leaves "
      "out unquantized at {:g} bits",
      file, formats, dtype_bits);
  if (unknown > 0) {
    p.warnings.push_back(fmt::format(
        "{}: {} quantized_layers entries name modules tpnet does not place; they are left out of "
        "the per-part bits",
        origin, unknown));
  }
  return p;
}

}  // namespace

std::optional<WeightPart> part_of_module(std::string_view module) {
  const std::string m = lowercase(module);
  const std::size_t dot = m.rfind('.');
  const std::string last = dot == std::string::npos ? m : m.substr(dot + 1);
  // Norms hold no counted weights (docs/formulas.md s.8).
  if (m.find("norm") != std::string::npos) return std::nullopt;
  if (m.find("lm_head") != std::string::npos || m == "head") return WeightPart::lm_head;
  if (m.find("embed") != std::string::npos) return WeightPart::embedding;
  if (m.find("latent_proj") != std::string::npos || m.find("routed_expert_") != std::string::npos) {
    return WeightPart::latent_projections;
  }
  if (m.find("shared_expert") != std::string::npos) return WeightPart::shared_experts;
  if (m.find("experts") != std::string::npos) return WeightPart::routed_experts;
  if (last == "gate" || last == "router" || m.find(".router.") != std::string::npos) {
    return WeightPart::router;
  }
  if (m.find("attn") != std::string::npos || m.find("attention") != std::string::npos ||
      m.find("mixer") != std::string::npos || m.find("indexer") != std::string::npos) {
    return WeightPart::attention;
  }
  if (m.find("mlp") != std::string::npos || m.find("feed_forward") != std::string::npos ||
      m.find("ffn") != std::string::npos || last == "up_proj" || last == "down_proj" ||
      last == "gate_proj") {
    return WeightPart::dense_ffn;
  }
  return std::nullopt;
}

bool module_matches(std::string_view pattern, std::string_view module) {
  if (const auto compiled = compile_regex(pattern)) return regex_names(*compiled, module);
  // A pattern names a module or any module inside it ("model.layers.*.self_attn"
  // covers its q_proj), as vLLM and transformers match exclusion lists.
  if (glob(pattern, module)) return true;
  for (std::size_t dot = module.find('.'); dot != std::string_view::npos;
       dot = module.find('.', dot + 1)) {
    if (glob(pattern, module.substr(0, dot))) return true;
  }
  return false;
}

CheckpointPrecision precision_from_quantization_config(const json::Value& q,
                                                       const std::string& origin,
                                                       const std::string& prefix, double dtype_bits,
                                                       const ModelArch& model) {
  auto at = [&](const char* key) { return where(q, key, origin, prefix + key); };
  CheckpointPrecision p;
  const auto method_text = text_of(q, "quant_method");
  if (!method_text) throw InputError("required key is missing", at("quant_method"));
  const std::string method = lowercase(*method_text);
  std::vector<std::string> excluded;
  for (const char* key :
       {"ignore", "exclude_modules", "modules_to_not_convert", "ignored_layers"}) {
    for (auto& item : strings_of(q, key)) excluded.push_back(std::move(item));
  }
  std::map<WeightPart, double> share = excluded_share(
      excluded, model, p.warnings, origin + ": " + prefix + "exclusions:", at("ignore"));
  // vLLM quantizes the linear layers of the transformer blocks; the output
  // head is one only when a format says so (modelopt lists it to exclude it).
  bool lm_head_quantized = false;
  if (method == "fp8") {
    p.bits = 8;
    p.quantization = "fp8";
    p.why = present(q, "weight_block_size")
                ? "quantization_config: fp8 with block scales, 8 bits per weight"
                : "quantization_config: fp8, 8 bits per weight";
  } else if (method == "mxfp4") {
    p.bits = 4.25;
    p.quantization = "mxfp4";
    p.why = "quantization_config: mxfp4, 4.25 bits per weight (4 bits and an 8-bit scale per 32)";
    if (excluded.empty()) {
      // gpt-oss without its list: only the experts are MXFP4.
      for (const WeightPart part : kWeightParts) {
        if (part != WeightPart::routed_experts && part != WeightPart::shared_experts) {
          share[part] = 1.0;
        }
      }
      p.why += "; with no modules_to_not_convert, only the experts";
    }
  } else if (method == "modelopt" || method == "modelopt_fp4") {
    const auto algo_text = text_of(q, "quant_algo");
    if (!algo_text && method == "modelopt") {
      throw InputError("required key is missing (FP8 or NVFP4)", at("quant_algo"));
    }
    if (algo_text && lowercase(*algo_text) == "mixed_precision") {
      // A modelopt export may copy hf_quant_config.json's per-module map into
      // config.json (nvidia/Qwen3.6-27B-NVFP4): read it the same way.
      const json::Value* layers = member(q, "quantized_layers");
      if (layers == nullptr || !layers->is_object()) {
        throw InputError("MIXED_PRECISION needs the quantized_layers map", at("quantized_layers"));
      }
      CheckpointPrecision mixed = mixed_precision(*layers, origin, prefix + "quantized_layers",
                                                  "quantization_config", dtype_bits, model);
      if (!excluded.empty()) mixed.why += "; left unquantized: " + first_few_joined(excluded);
      if (const auto kv = text_of(q, "kv_cache_quant_algo")) {
        mixed.why += fmt::format(
            "; KV cache stored as {} (give `memory.kv_cache_dtype` to count it so)", *kv);
      }
      mixed.mtp_unquantized = names_mtp(excluded);
      return mixed;
    }
    const auto bits =
        modelopt_bits(algo_text.value_or("nvfp4"), integer_of(q, "group_size").value_or(0));
    if (!bits) {
      throw InputError("'" + *algo_text +
                           "' is not a modelopt format tpnet knows; use FP8, NVFP4 or "
                           "MIXED_PRECISION (with quantized_layers)",
                       at("quant_algo"));
    }
    p.bits = *bits;
    p.quantization = *bits == 4.5 ? "nvfp4" : lowercase(*algo_text);
    p.why = fmt::format("quantization_config: modelopt {}, {:g} bits per weight with its scales",
                        algo_text.value_or("NVFP4"), *bits);
    lm_head_quantized = true;
  } else if (method == "compressed-tensors") {
    const auto format = text_of(q, "format");
    const std::string f = lowercase(format.value_or(""));
    if (auto group = compressed_tensors_weights(q, origin, prefix)) {
      p.bits = group->bits;
      p.quantization = group->name;
      p.why = "quantization_config: compressed-tensors " + format.value_or("") + ", " + group->why;
      if (group->groups > 1) {
        p.warnings.push_back(fmt::format(
            "{}: {}config_groups: {} groups with different weight formats; every quantized "
            "module is priced as the first ({:g} bits)",
            origin, prefix, group->groups, group->bits));
      }
    } else if (f.find("nvfp4") != std::string::npos) {
      p.bits = 4.5;
      p.quantization = "nvfp4";
      p.why = "quantization_config: compressed-tensors nvfp4, 4.5 bits per weight with scales";
    } else if (f == "float-quantized") {
      p.bits = 8;
      p.quantization = "fp8";
      p.why = "quantization_config: compressed-tensors float-quantized (FP8), 8 bits per weight";
    } else if (f == "pack-quantized" || f == "int-quantized") {
      p.bits = 4.0 + 16.0 / 128;
      p.quantization = "int4";
      p.why =
          "quantization_config: compressed-tensors pack-quantized, 4 bits and a 16-bit scale "
          "per 128";
    } else {
      if (!format) {
        throw InputError("required key is missing", at("format"));
      }
      throw InputError("'" + *format +
                           "' is not a compressed-tensors format tpnet knows; use "
                           "nvfp4-pack-quantized, float-quantized or pack-quantized (or a model "
                           "YAML)",
                       at("format"));
    }
  } else if (method == "gptq" || method == "awq") {
    const auto bits = integer_of(q, "bits").value_or(integer_of(q, "w_bit").value_or(0));
    if (bits < 2 || bits > 8) {
      throw InputError("bits must be 2 to 8", at(q.find("bits") != nullptr ? "bits" : "w_bit"));
    }
    const long long group =
        integer_of(q, "group_size").value_or(integer_of(q, "q_group_size").value_or(128));
    p.bits = static_cast<double>(bits) + (group > 0 ? 32.0 / static_cast<double>(group) : 0.0);
    p.quantization = method;
    p.why = fmt::format(
        "quantization_config: {} {}-bit weights plus a 16-bit scale and zero point per group of "
        "{}",
        method, bits, group);
  } else {
    throw InputError("'" + *method_text +
                         "' is not a quantization tpnet knows; use fp8, mxfp4, modelopt, "
                         "compressed-tensors, gptq or awq (or write a model YAML with "
                         "bits_per_weight)",
                     at("quant_method"));
  }
  if (!lm_head_quantized && !share.count(WeightPart::lm_head)) share[WeightPart::lm_head] = 1.0;
  p.mtp_unquantized = names_mtp(excluded);
  p.part_bits = part_bits_for(p.bits, dtype_bits, share);
  p.why += fmt::format("; the embedding, the router{} stay at {:g} bits",
                       lm_head_quantized ? "" : " and the output head", dtype_bits);
  if (!excluded.empty()) p.why += "; left unquantized: " + first_few_joined(excluded);
  return p;
}

CheckpointPrecision precision_from_hf_quant_config(std::string_view json_text,
                                                   const std::string& origin, double dtype_bits,
                                                   const ModelArch& model) {
  const json::Value root = json::parse(json_text, origin);
  if (!root.is_object()) {
    throw InputError(root.is_null() ? "is empty; expected a JSON object"
                                    : "expected a JSON object (an hf_quant_config.json)",
                     InputLocation::in_file(origin, root.line()));
  }
  const json::Value* found = member(root, "quantization");
  if (found == nullptr || !found->is_object()) {
    throw InputError("required key is missing (an object with quant_algo)",
                     where(root, "quantization", origin, "quantization"));
  }
  const json::Value& q = *found;
  const auto algo = text_of(q, "quant_algo");
  if (!algo) {
    throw InputError("required key is missing",
                     where(q, "quant_algo", origin, "quantization.quant_algo"));
  }
  CheckpointPrecision p;
  const std::vector<std::string> excluded = strings_of(q, "exclude_modules");
  if (lowercase(*algo) == "mixed_precision") {
    const json::Value* layers = member(q, "quantized_layers");
    if (layers == nullptr || !layers->is_object()) {
      throw InputError("MIXED_PRECISION needs the quantized_layers map",
                       where(q, "quantized_layers", origin, "quantization.quantized_layers"));
    }
    p = mixed_precision(*layers, origin, "quantization.quantized_layers", "hf_quant_config.json",
                        dtype_bits, model);
  } else {
    const auto bits = modelopt_bits(*algo, integer_of(q, "group_size").value_or(0));
    if (!bits) {
      throw InputError("'" + *algo +
                           "' is not a modelopt format tpnet knows; use NVFP4, FP8, "
                           "MXFP4, an INT4 AWQ or MIXED_PRECISION",
                       where(q, "quant_algo", origin, "quantization.quant_algo"));
    }
    p.bits = *bits;
    p.quantization = *bits == 4.5 ? "nvfp4" : lowercase(*algo);
    const auto share =
        excluded_share(excluded, model, p.warnings, origin + ": quantization.exclude_modules:",
                       InputLocation::in_file(origin, 0, "quantization.exclude_modules"));
    p.part_bits = part_bits_for(p.bits, dtype_bits, share);
    p.why = fmt::format(
        "hf_quant_config.json: modelopt {}, {:g} bits per weight with its scales; the embedding "
        "and the router stay at {:g} bits",
        *algo, *bits, dtype_bits);
  }
  if (!excluded.empty()) p.why += "; left unquantized: " + first_few_joined(excluded);
  p.mtp_unquantized = names_mtp(excluded);
  if (const auto kv = text_of(q, "kv_cache_quant_algo")) {
    p.why +=
        fmt::format("; KV cache stored as {} (give `memory.kv_cache_dtype` to count it so)", *kv);
  }
  return p;
}

}  // namespace tpnet::detail
