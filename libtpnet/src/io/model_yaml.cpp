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

using namespace model_limits;

int small_int(const YAML::Node& map, const std::string& origin, std::string_view key, long long lo,
              long long hi) {
  return static_cast<int>(yaml::optional_integer(map, origin, key, lo, hi).value_or(0));
}

bool optional_flag(const YAML::Node& map, const std::string& origin, std::string_view key) {
  const auto text = yaml::optional_string(map, origin, key);
  if (!text) return false;
  if (*text == "true") return true;
  if (*text == "false") return false;
  throw InputError("'" + *text + "' is not true or false",
                   yaml::where(map[std::string(key)], origin, key));
}

/// The optional shapes the parameter estimate reads (docs/models.md).
void parse_shapes(const YAML::Node& root, const std::string& origin, ModelArch& m) {
  m.head_dim = small_int(root, origin, "head_dim", 1, kMaxWidth);
  m.intermediate_size =
      yaml::optional_integer(root, origin, "intermediate_size", 1, kMaxWidth).value_or(0);
  m.mtp_layers = small_int(root, origin, "mtp_layers", 0, kMaxMtpLayers);
  m.linear_attention_layers = small_int(root, origin, "linear_attention_layers", 0, m.num_layers);
  m.sparse_attention_index_heads =
      small_int(root, origin, "sparse_attention_index_heads", 0, kMaxHeads);
  m.sparse_attention_index_head_dim =
      small_int(root, origin, "sparse_attention_index_head_dim", 0, kMaxWidth);
  m.sliding_window = small_int(root, origin, "sliding_window", 1, kMaxTokens);
  m.sliding_window_layers = small_int(root, origin, "sliding_window_layers", 0, m.num_layers);
  m.tie_word_embeddings = optional_flag(root, origin, "tie_word_embeddings");
  m.torch_dtype = yaml::optional_string(root, origin, "torch_dtype").value_or("");
  m.quantization = yaml::optional_string(root, origin, "quantization").value_or("");

  if (m.sparse_attention_index_heads > 0 && m.sparse_attention_index_head_dim == 0) {
    throw InputError("is required with sparse_attention_index_heads",
                     yaml::where(root, origin, "sparse_attention_index_head_dim"));
  }
  if (m.sliding_window_layers > 0 && m.sliding_window == 0) {
    throw InputError("is required with sliding_window_layers",
                     yaml::where(root, origin, "sliding_window"));
  }
  if (m.linear_attention_layers + m.sliding_window_layers > m.num_layers) {
    throw InputError(
        "linear_attention_layers + sliding_window_layers must not exceed num_layers (" +
            std::to_string(m.num_layers) + ")",
        yaml::where(root["sliding_window_layers"], origin, "sliding_window_layers"));
  }

  if (const YAML::Node mla = root["mla"]; mla.IsDefined() && !mla.IsNull()) {
    yaml::require_map(mla, origin, "mla");
    yaml::reject_unknown_keys(
        mla, origin,
        {"kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"});
    MlaSpec spec;
    spec.kv_lora_rank =
        static_cast<int>(yaml::required_integer(mla, origin, "kv_lora_rank", 1, kMaxWidth));
    spec.q_lora_rank = small_int(mla, origin, "q_lora_rank", 0, kMaxWidth);
    spec.qk_rope_head_dim =
        static_cast<int>(yaml::required_integer(mla, origin, "qk_rope_head_dim", 0, kMaxWidth));
    spec.qk_nope_head_dim =
        static_cast<int>(yaml::required_integer(mla, origin, "qk_nope_head_dim", 0, kMaxWidth));
    spec.v_head_dim =
        static_cast<int>(yaml::required_integer(mla, origin, "v_head_dim", 1, kMaxWidth));
    m.mla = spec;
  }

  if (const YAML::Node linear = root["linear_attention"]; linear.IsDefined() && !linear.IsNull()) {
    yaml::require_map(linear, origin, "linear_attention");
    yaml::reject_unknown_keys(
        linear, origin,
        {"key_heads", "value_heads", "key_head_dim", "value_head_dim", "conv_kernel"});
    LinearAttentionSpec spec;
    spec.key_heads =
        static_cast<int>(yaml::required_integer(linear, origin, "key_heads", 1, kMaxHeads));
    spec.value_heads =
        static_cast<int>(yaml::required_integer(linear, origin, "value_heads", 1, kMaxHeads));
    spec.key_head_dim =
        static_cast<int>(yaml::required_integer(linear, origin, "key_head_dim", 1, kMaxWidth));
    spec.value_head_dim =
        static_cast<int>(yaml::required_integer(linear, origin, "value_head_dim", 1, kMaxWidth));
    spec.conv_kernel = small_int(linear, origin, "conv_kernel", 0, kMaxConvKernel);
    m.linear_attention = spec;
  }
}

}  // namespace

ModelArch parse_model_yaml(std::string_view text, const std::string& origin) {
  const YAML::Node root = yaml::load_document(text, origin);
  yaml::require_map(root, origin, "a model");
  yaml::reject_unknown_keys(root, origin,
                            {"name",
                             "description",
                             "source",
                             "hidden_size",
                             "num_layers",
                             "vocab_size",
                             "num_attention_heads",
                             "num_kv_heads",
                             "attention",
                             "sparse_attention_top_k",
                             "total_params",
                             "active_params",
                             "bits_per_weight",
                             "moe",
                             "assumptions",
                             "head_dim",
                             "intermediate_size",
                             "mla",
                             "mtp_layers",
                             "linear_attention_layers",
                             "linear_attention",
                             "sparse_attention_index_heads",
                             "sparse_attention_index_head_dim",
                             "sliding_window",
                             "sliding_window_layers",
                             "tie_word_embeddings",
                             "torch_dtype",
                             "quantization",
                             "part_bits"});

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
  if (auto top_k = yaml::optional_integer(root, origin, "sparse_attention_top_k", 1, kMaxTokens)) {
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
  if (const YAML::Node parts = root["part_bits"]; parts.IsDefined() && !parts.IsNull()) {
    // Parts a checkpoint stores otherwise than bits_per_weight, e.g. {attention: 16}.
    yaml::require_map(parts, origin, "part_bits");
    yaml::with_key_prefix("part_bits.", [&] {
      yaml::reject_unknown_keys(parts, origin,
                                {"embedding", "lm_head", "attention", "dense_ffn", "routed_experts",
                                 "shared_experts", "router"});
      for (const WeightPart part : kWeightParts) {
        const std::string key(to_string(part));
        if (auto bits = yaml::optional_number(parts, origin, key, 1.0, 64.0)) {
          m.part_bits[part] = *bits;
        }
      }
    });
  }

  if (const YAML::Node moe = root["moe"]; moe.IsDefined() && !moe.IsNull()) {
    yaml::require_map(moe, origin, "moe");
    yaml::reject_unknown_keys(
        moe, origin,
        {"routed_experts", "experts_per_token", "shared_experts", "expert_intermediate_size",
         "shared_expert_intermediate_size", "first_dense_layers"});
    MoeSpec spec;
    spec.routed_experts =
        static_cast<int>(yaml::required_integer(moe, origin, "routed_experts", 1, kMaxExperts));
    spec.experts_per_token = static_cast<int>(
        yaml::required_integer(moe, origin, "experts_per_token", 1, spec.routed_experts));
    spec.shared_experts = static_cast<int>(
        yaml::optional_integer(moe, origin, "shared_experts", 0, kMaxSharedExperts).value_or(0));
    spec.expert_intermediate_size =
        yaml::optional_integer(moe, origin, "expert_intermediate_size", 1, kMaxWidth).value_or(0);
    spec.shared_expert_intermediate_size =
        yaml::optional_integer(moe, origin, "shared_expert_intermediate_size", 1, kMaxWidth)
            .value_or(0);
    spec.first_dense_layers = static_cast<int>(
        yaml::optional_integer(moe, origin, "first_dense_layers", 0, m.num_layers).value_or(0));
    m.moe = spec;
  }
  parse_shapes(root, origin, m);
  // 64 heads in a hidden_size of 2 are 0 wide each (found by tests/fuzz), and
  // every per-head size (attention weights, KV cache) would be 0.
  if (effective_head_dim(m) < 1) {
    if (m.mla) {
      throw InputError(
          "qk_nope_head_dim and qk_rope_head_dim are both 0: a query/key head needs "
          "at least 1",
          yaml::where(root["mla"], origin, "mla"));
    }
    throw InputError(std::to_string(m.num_attention_heads) + " heads in a hidden_size of " +
                         std::to_string(m.hidden_size) + " are 0 wide each; give head_dim",
                     yaml::where(root["num_attention_heads"], origin, "num_attention_heads"));
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
