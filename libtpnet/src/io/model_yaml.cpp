#include "tpnet/io/model_yaml.hpp"

#include <array>
#include <utility>

#include "tpnet/error.hpp"
#include "tpnet/io/text_file.hpp"
#include "yaml_fields.hpp"

namespace tpnet {
namespace {

AttentionKind parse_attention(const YAML::Node& map, const std::string& origin) {
  static constexpr std::array<std::pair<std::string_view, AttentionKind>, 6> kKinds{{
      {"mha", AttentionKind::mha},
      {"gqa", AttentionKind::gqa},
      {"mla", AttentionKind::mla},
      {"sparse", AttentionKind::sparse},
      {"hybrid-linear", AttentionKind::hybrid_linear},
      {"sliding-window", AttentionKind::sliding_window},
  }};
  const auto text = yaml::optional_string(map, origin, "attention");
  if (!text) return AttentionKind::gqa;
  for (const auto& [name, kind] : kKinds) {
    if (*text == name) return kind;
  }
  throw InputError("'" + *text +
                       "' is not an attention kind; use mha, gqa, mla, sparse, hybrid-linear or "
                       "sliding-window",
                   yaml::where(map["attention"], origin, "attention"));
}

// Limits are far beyond any published model but keep every product of them
// finite and exact enough in a double.
constexpr long long kMaxHidden = 1 << 20;
constexpr long long kMaxLayers = 100000;
constexpr long long kMaxVocab = 100000000;
constexpr long long kMaxHeads = 65536;
constexpr double kMaxParams = 1e15;

}  // namespace

ModelArch parse_model_yaml(std::string_view text, const std::string& origin) {
  const YAML::Node root = yaml::load_document(text, origin);
  yaml::require_map(root, origin, "a model");
  yaml::reject_unknown_keys(
      root, origin,
      {"name", "description", "source", "hidden_size", "num_layers", "vocab_size",
       "num_attention_heads", "num_kv_heads", "attention", "sparse_attention_top_k", "total_params",
       "active_params", "bits_per_weight", "moe", "assumptions"});

  ModelArch m;
  m.name = yaml::required_string(root, origin, "name");
  m.description = yaml::optional_string(root, origin, "description").value_or("");
  m.source = yaml::optional_string(root, origin, "source").value_or("");
  m.hidden_size = yaml::required_integer(root, origin, "hidden_size", 1, kMaxHidden);
  m.num_layers =
      static_cast<int>(yaml::required_integer(root, origin, "num_layers", 1, kMaxLayers));
  m.vocab_size = yaml::required_integer(root, origin, "vocab_size", 1, kMaxVocab);
  m.num_attention_heads =
      static_cast<int>(yaml::required_integer(root, origin, "num_attention_heads", 1, kMaxHeads));
  m.num_kv_heads =
      static_cast<int>(yaml::optional_integer(root, origin, "num_kv_heads", 1, kMaxHeads)
                           .value_or(m.num_attention_heads));
  if (m.num_kv_heads > m.num_attention_heads) {
    throw InputError(
        "must not exceed num_attention_heads (" + std::to_string(m.num_attention_heads) + ")",
        yaml::where(root["num_kv_heads"], origin, "num_kv_heads"));
  }
  m.attention = parse_attention(root, origin);
  if (auto top_k = yaml::optional_integer(root, origin, "sparse_attention_top_k", 1, 1LL << 30)) {
    m.sparse_attention_top_k = static_cast<int>(*top_k);
  }
  m.total_params = yaml::required_number(root, origin, "total_params", 1.0, kMaxParams, true);
  m.active_params = yaml::optional_number(root, origin, "active_params", 1.0, kMaxParams, true)
                        .value_or(m.total_params);
  if (m.active_params > m.total_params) {
    throw InputError("must not exceed total_params",
                     yaml::where(root["active_params"], origin, "active_params"));
  }
  m.bits_per_weight = yaml::required_number(root, origin, "bits_per_weight", 1.0, 64.0);

  if (const YAML::Node moe = root["moe"]; moe.IsDefined() && !moe.IsNull()) {
    yaml::require_map(moe, origin, "moe");
    yaml::reject_unknown_keys(moe, origin,
                              {"routed_experts", "experts_per_token", "shared_experts"});
    MoeSpec spec;
    spec.routed_experts =
        static_cast<int>(yaml::required_integer(moe, origin, "routed_experts", 1, 1 << 20));
    spec.experts_per_token = static_cast<int>(
        yaml::required_integer(moe, origin, "experts_per_token", 1, spec.routed_experts));
    spec.shared_experts = static_cast<int>(
        yaml::optional_integer(moe, origin, "shared_experts", 0, 1024).value_or(0));
    m.moe = spec;
  }

  if (const YAML::Node notes = root["assumptions"]; notes.IsDefined() && !notes.IsNull()) {
    yaml::require_map(notes, origin, "assumptions (key: why)");
    for (const auto& item : notes) {
      if (!item.second.IsScalar()) {
        throw InputError("expected a sentence saying why",
                         yaml::where(item.second, origin, "assumptions." + item.first.Scalar()));
      }
      m.assumptions[item.first.Scalar()] = item.second.Scalar();
    }
  }
  return m;
}

ModelArch load_model_file(const std::string& path) {
  return parse_model_yaml(read_text_file(path), path);
}

}  // namespace tpnet
