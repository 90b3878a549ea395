#include "tpnet/io/model_yaml.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "catalog_yaml.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/text_file.hpp"
#include "tpnet/model/compressed_attention.hpp"
#include "tpnet/model/engram_tables.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "yaml_fields.hpp"

namespace tpnet {
namespace {

AttentionKind parse_attention(const YAML::Node& map, const std::string& origin) {
  static constexpr std::array<std::pair<std::string_view, AttentionKind>, 7> kKinds{{
      {"mha", AttentionKind::mha},
      {"gqa", AttentionKind::gqa},
      {"mla", AttentionKind::mla},
      {"sparse", AttentionKind::sparse},
      {"hybrid-linear", AttentionKind::hybrid_linear},
      {"sliding-window", AttentionKind::sliding_window},
      {"compressed", AttentionKind::compressed},
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

  if (const YAML::Node mamba = root["mamba"]; mamba.IsDefined() && !mamba.IsNull()) {
    yaml::require_map(mamba, origin, "mamba");
    yaml::reject_unknown_keys(
        mamba, origin, {"heads", "head_dim", "state_size", "groups", "conv_kernel", "state_bytes"});
    MambaSpec spec;
    spec.heads = static_cast<int>(yaml::required_integer(mamba, origin, "heads", 1, kMaxHeads));
    spec.head_dim =
        static_cast<int>(yaml::required_integer(mamba, origin, "head_dim", 1, kMaxWidth));
    spec.state_size =
        static_cast<int>(yaml::required_integer(mamba, origin, "state_size", 1, kMaxWidth));
    spec.groups = static_cast<int>(yaml::required_integer(mamba, origin, "groups", 1, kMaxHeads));
    spec.conv_kernel =
        static_cast<int>(yaml::required_integer(mamba, origin, "conv_kernel", 1, kMaxConvKernel));
    spec.state_bytes = small_int(mamba, origin, "state_bytes", 1, 8);
    if (spec.state_bytes == 0) spec.state_bytes = 2;
    m.mamba = spec;
  }
  if (root["gated_ffn"].IsDefined()) m.gated_ffn = optional_flag(root, origin, "gated_ffn");
}

/// What a deployment measured beside the shapes: the Engram tables and a
/// stated KV cache per token (docs/models.md).
void parse_memory_parts(const YAML::Node& root, const std::string& origin, ModelArch& m) {
  if (const YAML::Node engram = root["engram"]; engram.IsDefined() && !engram.IsNull()) {
    yaml::require_map(engram, origin, "engram (table_bytes, host_share, placement)");
    yaml::with_key_prefix("engram.", [&] {
      yaml::reject_unknown_keys(engram, origin, {"table_bytes", "host_share", "placement"});
      EngramSpec spec;
      spec.table_bytes = catalog_yaml::required_bytes(engram, origin, "table_bytes");
      if (!(spec.table_bytes.count() > 0.0)) {
        throw InputError("must be a positive size, e.g. 281.2GB",
                         yaml::where(engram["table_bytes"], origin, "table_bytes"));
      }
      spec.host_share = yaml::optional_number(engram, origin, "host_share", 0.0, 1.0).value_or(1.0);
      if (auto placement = yaml::optional_string(engram, origin, "placement")) {
        spec.placement = parse_table_placement(
            *placement, yaml::where(engram["placement"], origin, "placement"));
      }
      m.engram = spec;
    });
  }
  if (auto kv = catalog_yaml::optional_bytes(root, origin, "kv_bytes_per_token")) {
    if (!(kv->count() > 0.0)) {
      throw InputError("must be a positive size, e.g. 5959B",
                       yaml::where(root["kv_bytes_per_token"], origin, "kv_bytes_per_token"));
    }
    m.kv_bytes_per_token = *kv;
  }
}

}  // namespace

/// The kind among `kinds` whose to_string is `name`; an error listing them otherwise.
template <typename Kind, std::size_t N>
Kind kind_named(const Kind (&kinds)[N], const std::string& name, const char* what,
                const YAML::Node& node, const std::string& origin, const char* key) {
  std::string allowed;
  for (std::size_t i = 0; i < N; ++i) {
    if (to_string(kinds[i]) == name) return kinds[i];
    allowed += std::string(i == 0       ? ""
                           : i + 1 == N ? " or "
                                        : ", ") +
               std::string(to_string(kinds[i]));
  }
  throw InputError("'" + name + "' is not " + what + "; use " + allowed,
                   yaml::where(node, origin, key));
}

/// The layers one by one: `layers:` as runs, `- {count: 5, mixer: mamba,
/// ffn: none}`, in order, or `layer_pattern:` in Nemotron-H's letters; either
/// adds up to num_layers (docs/models.md, "The layer plan").
void parse_layer_runs(const YAML::Node& root, const std::string& origin, ModelArch& m) {
  const YAML::Node runs = root["layers"];
  const YAML::Node pattern = root["layer_pattern"];
  const bool has_runs = runs.IsDefined() && !runs.IsNull();
  const bool has_pattern = pattern.IsDefined() && !pattern.IsNull();
  if (!has_runs && !has_pattern) return;
  if (has_runs && has_pattern) {
    throw InputError("give the layers once: layers or layer_pattern, not both",
                     yaml::where(pattern, origin, "layer_pattern"));
  }
  if (has_pattern) {
    const std::string letters = yaml::required_string(root, origin, "layer_pattern");
    m.layers = layers_from_block_pattern(letters, yaml::where(pattern, origin, "layer_pattern"));
  } else if (!runs.IsSequence() || runs.size() == 0) {
    throw InputError("expected a list of runs, e.g. - {count: 4, mixer: mamba, ffn: none}",
                     yaml::where(runs, origin, "layers"));
  }
  const YAML::Node at = has_runs ? runs : pattern;
  const std::string key = has_runs ? "layers" : "layer_pattern";
  for (const YAML::Node& run : has_runs ? runs : YAML::Node(YAML::NodeType::Sequence)) {
    yaml::with_key_prefix("layers.", [&] {
      yaml::require_map(run, origin, "a run of layers");
      yaml::reject_unknown_keys(run, origin, {"count", "mixer", "ffn", "ffn_width"});
      const auto count = yaml::required_integer(run, origin, "count", 1, kMaxLayers);
      const std::string mixer = yaml::optional_string(run, origin, "mixer").value_or("attention");
      const std::string ffn = yaml::optional_string(run, origin, "ffn").value_or("dense");
      LayerSpec layer;
      layer.mixer = kind_named(kMixers, mixer, "a mixer", run["mixer"], origin, "mixer");
      layer.ffn = kind_named(kFfnKinds, ffn, "an FFN", run["ffn"], origin, "ffn");
      layer.ffn_width = yaml::optional_integer(run, origin, "ffn_width", 1, kMaxWidth).value_or(0);
      if (layer.ffn_width > 0 && layer.ffn != FfnKind::dense) {
        throw InputError("is the width of a dense FFN; this run's ffn is " + ffn,
                         yaml::where(run["ffn_width"], origin, "ffn_width"));
      }
      if (static_cast<long long>(m.layers.size()) + count > m.num_layers) {
        throw InputError(
            "the runs add up to more than num_layers (" + std::to_string(m.num_layers) + ")",
            yaml::where(run["count"], origin, "count"));
      }
      m.layers.insert(m.layers.end(), static_cast<std::size_t>(count), layer);
    });
  }
  if (static_cast<int>(m.layers.size()) != m.num_layers) {
    throw InputError("gives " + std::to_string(m.layers.size()) + " layers; num_layers is " +
                         std::to_string(m.num_layers),
                     yaml::where(at, origin, key));
  }
  const auto uses = [&](auto pred) { return std::any_of(m.layers.begin(), m.layers.end(), pred); };
  if (uses([](const LayerSpec& l) { return l.ffn == FfnKind::moe; }) && !m.moe) {
    throw InputError("has MoE layers; give moe", yaml::where(at, origin, key));
  }
  if (uses([](const LayerSpec& l) { return l.mixer == Mixer::mamba; }) && !m.mamba) {
    throw InputError("has Mamba layers; give mamba", yaml::where(at, origin, key));
  }
  if (uses([](const LayerSpec& l) { return l.mixer == Mixer::linear_attention; }) &&
      !m.linear_attention) {
    throw InputError("has linear-attention layers; give linear_attention",
                     yaml::where(at, origin, key));
  }
  if (uses([](const LayerSpec& l) { return l.mixer == Mixer::sliding_window; }) &&
      m.sliding_window == 0) {
    throw InputError("has sliding-window layers; give sliding_window",
                     yaml::where(at, origin, key));
  }
  if (m.linear_attention_layers > 0 || m.sliding_window_layers > 0 ||
      (m.moe && m.moe->first_dense_layers > 0)) {
    throw InputError(
        "gives the layers one by one; leave out linear_attention_layers, "
        "sliding_window_layers and moe.first_dense_layers, which it replaces",
        yaml::where(at, origin, key));
  }
  // The counts other readers show follow the layers.
  for (const LayerSpec& l : m.layers) {
    m.linear_attention_layers += l.mixer == Mixer::linear_attention ? 1 : 0;
    m.sliding_window_layers += l.mixer == Mixer::sliding_window ? 1 : 0;
    if (m.moe) m.moe->first_dense_layers += l.ffn == FfnKind::dense ? 1 : 0;
  }
}

/// DeepSeek-V4's `compressed_attention:` (docs/models.md): its shapes and one
/// compress ratio per layer, which give the layers (0 or 1: the window alone,
/// a sliding_window layer; 4 or 128: an attention layer).
void parse_compressed_attention(const YAML::Node& root, const std::string& origin, ModelArch& m) {
  const YAML::Node node = root["compressed_attention"];
  if (!node.IsDefined() || node.IsNull()) {
    if (m.attention == AttentionKind::compressed) {
      throw InputError("is required with attention: compressed",
                       yaml::where(root, origin, "compressed_attention"));
    }
    return;
  }
  yaml::require_map(node, origin, "compressed_attention");
  CompressedAttentionSpec a;
  yaml::with_key_prefix("compressed_attention.", [&] {
    yaml::reject_unknown_keys(node, origin,
                              {"head_dim", "q_lora_rank", "qk_rope_head_dim", "o_lora_rank",
                               "o_groups", "hc_mult", "compress_ratios"});
    a.head_dim = static_cast<int>(yaml::required_integer(node, origin, "head_dim", 1, kMaxWidth));
    a.q_lora_rank =
        static_cast<int>(yaml::required_integer(node, origin, "q_lora_rank", 1, kMaxWidth));
    a.qk_rope_head_dim =
        static_cast<int>(yaml::required_integer(node, origin, "qk_rope_head_dim", 0, a.head_dim));
    a.o_lora_rank =
        static_cast<int>(yaml::required_integer(node, origin, "o_lora_rank", 1, kMaxWidth));
    a.o_groups = static_cast<int>(
        yaml::required_integer(node, origin, "o_groups", 1, m.num_attention_heads));
    if (m.num_attention_heads % a.o_groups != 0) {
      throw InputError(
          "must divide num_attention_heads (" + std::to_string(m.num_attention_heads) + ")",
          yaml::where(node["o_groups"], origin, "o_groups"));
    }
    a.hc_mult = small_int(node, origin, "hc_mult", 1, kMaxHeads);
    const YAML::Node ratios = node["compress_ratios"];
    if (!ratios.IsSequence() || static_cast<long long>(ratios.size()) != m.num_layers) {
      throw InputError("expected a list of one ratio per layer (" + std::to_string(m.num_layers) +
                           ", num_layers)",
                       yaml::where(ratios.IsDefined() ? ratios : node, origin, "compress_ratios"));
    }
    for (const YAML::Node& item : ratios) {
      int ratio = -1;
      if (item.IsScalar()) {
        try {
          ratio = item.as<int>();
        } catch (const YAML::Exception&) {
          ratio = -1;
        }
      }
      if (ratio != 0 && ratio != 1 && ratio != 4 && ratio != 128) {
        throw InputError("expected 0 or 1 (the window alone), 4 or 128 for each layer",
                         yaml::where(item, origin, "compress_ratios"));
      }
      a.compress_ratios.push_back(ratio);
    }
  });
  if (m.attention != AttentionKind::compressed) {
    throw InputError("goes with attention: compressed",
                     yaml::where(node, origin, "compressed_attention"));
  }
  if (m.sliding_window <= 0) {
    throw InputError("is required with compressed_attention (every layer's window)",
                     yaml::where(root, origin, "sliding_window"));
  }
  if (!m.layers.empty() || m.sliding_window_layers > 0 || m.mla) {
    throw InputError(
        "gives the layers by compress_ratios; leave out layers, layer_pattern, "
        "sliding_window_layers and mla",
        yaml::where(node, origin, "compressed_attention"));
  }
  set_compressed_attention_layers(m, a);
  if (m.head_dim == 0) m.head_dim = a.head_dim;
  m.compressed_attention = a;
}

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
                             "part_bits",
                             "layers",
                             "layer_pattern",
                             "mamba",
                             "gated_ffn",
                             "compressed_attention",
                             "engram",
                             "kv_bytes_per_token"});

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
         "shared_expert_intermediate_size", "first_dense_layers", "latent_size"});
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
    spec.latent_size = yaml::optional_integer(moe, origin, "latent_size", 1, kMaxWidth).value_or(0);
    m.moe = spec;
  }
  parse_shapes(root, origin, m);
  parse_layer_runs(root, origin, m);
  parse_compressed_attention(root, origin, m);
  parse_memory_parts(root, origin, m);
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
