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

/// The `attention:` words a model file may use; they say what the shapes
/// below them build, and are checked against the plan they build.
constexpr std::array<std::string_view, 7> kAttentionWords{
    "mha", "gqa", "mla", "sparse", "hybrid-linear", "sliding-window", "compressed"};

std::string parse_attention(const YAML::Node& map, const std::string& origin) {
  const auto text = yaml::optional_string(map, origin, "attention");
  if (!text) return "gqa";
  for (const auto word : kAttentionWords) {
    if (*text == word) return *text;
  }
  throw InputError("'" + *text +
                       "' is not an attention kind; use mha, gqa, mla, sparse, hybrid-linear, "
                       "sliding-window or compressed",
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

/// What a model file states once for all its layers: the shapes each kind of
/// layer takes, and how many layers of each kind when the layers are not
/// listed one by one (docs/models.md).
struct ModelShapes {
  std::string attention = "gqa";  ///< the `attention:` word
  AttentionSpec full;             ///< an attention layer's shapes
  int sliding_window = 0;
  int linear_layers = 0;
  int sliding_layers = 0;
  std::optional<LinearAttentionSpec> linear;
  std::optional<MambaSpec> mamba;
  FfnSpec dense;  ///< a dense FFN (width intermediate_size)
  std::optional<MoeSpec> moe;
  int first_dense_layers = 0;  ///< moe.first_dense_layers
  bool first_dense_stated = false;
};

LinearKind parse_linear_kind(const YAML::Node& map, const std::string& origin) {
  const auto text = yaml::optional_string(map, origin, "kind");
  if (!text) return LinearKind::gated_deltanet;
  for (const LinearKind kind :
       {LinearKind::gated_deltanet, LinearKind::kimi_delta, LinearKind::lightning}) {
    if (*text == to_string(kind)) return kind;
  }
  throw InputError("'" + *text +
                       "' is not a linear mixer; use gated_deltanet, kimi_delta or "
                       "lightning",
                   yaml::where(map["kind"], origin, "kind"));
}

/// The optional shapes (docs/models.md, "Shapes for the parameter estimate").
void parse_shapes(const YAML::Node& root, const std::string& origin, int layers, ModelArch& m,
                  ModelShapes& shapes) {
  AttentionSpec& a = shapes.full;
  const int head_dim = small_int(root, origin, "head_dim", 1, kMaxWidth);
  shapes.dense.width =
      yaml::optional_integer(root, origin, "intermediate_size", 1, kMaxWidth).value_or(0);
  m.mtp_layers = small_int(root, origin, "mtp_layers", 0, kMaxMtpLayers);
  shapes.linear_layers = small_int(root, origin, "linear_attention_layers", 0, layers);
  a.indexer.heads = small_int(root, origin, "sparse_attention_index_heads", 0, kMaxHeads);
  a.indexer.head_dim = small_int(root, origin, "sparse_attention_index_head_dim", 0, kMaxWidth);
  shapes.sliding_window = small_int(root, origin, "sliding_window", 1, kMaxTokens);
  shapes.sliding_layers = small_int(root, origin, "sliding_window_layers", 0, layers);
  m.tie_word_embeddings = optional_flag(root, origin, "tie_word_embeddings");
  m.torch_dtype = yaml::optional_string(root, origin, "torch_dtype").value_or("");
  m.quantization = yaml::optional_string(root, origin, "quantization").value_or("");

  if (a.indexer.heads > 0 && a.indexer.head_dim == 0) {
    throw InputError("is required with sparse_attention_index_heads",
                     yaml::where(root, origin, "sparse_attention_index_head_dim"));
  }
  if (shapes.sliding_layers > 0 && shapes.sliding_window == 0) {
    throw InputError("is required with sliding_window_layers",
                     yaml::where(root, origin, "sliding_window"));
  }
  if (shapes.linear_layers + shapes.sliding_layers > layers) {
    throw InputError(
        "linear_attention_layers + sliding_window_layers must not exceed num_layers (" +
            std::to_string(layers) + ")",
        yaml::where(root["sliding_window_layers"], origin, "sliding_window_layers"));
  }

  if (const YAML::Node mla = root["mla"]; mla.IsDefined() && !mla.IsNull()) {
    yaml::require_map(mla, origin, "mla");
    yaml::reject_unknown_keys(
        mla, origin,
        {"kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"});
    MlaSpec& spec = a.mla;
    spec.kv_lora_rank =
        static_cast<int>(yaml::required_integer(mla, origin, "kv_lora_rank", 1, kMaxWidth));
    spec.q_lora_rank = small_int(mla, origin, "q_lora_rank", 0, kMaxWidth);
    spec.qk_rope_head_dim =
        static_cast<int>(yaml::required_integer(mla, origin, "qk_rope_head_dim", 0, kMaxWidth));
    spec.qk_nope_head_dim =
        static_cast<int>(yaml::required_integer(mla, origin, "qk_nope_head_dim", 0, kMaxWidth));
    spec.v_head_dim =
        static_cast<int>(yaml::required_integer(mla, origin, "v_head_dim", 1, kMaxWidth));
    a.latent = true;
    if (spec.qk_nope_head_dim + spec.qk_rope_head_dim < 1) {
      throw InputError(
          "qk_nope_head_dim and qk_rope_head_dim are both 0: a query/key head needs "
          "at least 1",
          yaml::where(mla, origin, "mla"));
    }
  }
  a.latent = a.latent || shapes.attention == "mla";
  if (a.q_heads > 0) {
    const int derived = static_cast<int>(m.hidden_size / a.q_heads);
    a.head_dim = head_dim > 0                 ? head_dim
                 : a.latent && a.mla.stated() ? a.mla.qk_nope_head_dim + a.mla.qk_rope_head_dim
                                              : derived;
    a.v_head_dim = a.latent && a.mla.stated() ? a.mla.v_head_dim : a.head_dim;
  }
  if (a.latent) a.kv_heads = a.q_heads;

  if (const YAML::Node linear = root["linear_attention"]; linear.IsDefined() && !linear.IsNull()) {
    yaml::require_map(linear, origin, "linear_attention");
    yaml::with_key_prefix("linear_attention.", [&] {
      yaml::reject_unknown_keys(
          linear, origin,
          {"kind", "key_heads", "value_heads", "key_head_dim", "value_head_dim", "conv_kernel",
           "gate_rank", "full_rank_output_gate"});
      LinearAttentionSpec spec;
      spec.kind = parse_linear_kind(linear, origin);
      spec.key_heads =
          static_cast<int>(yaml::required_integer(linear, origin, "key_heads", 1, kMaxHeads));
      spec.value_heads =
          static_cast<int>(yaml::required_integer(linear, origin, "value_heads", 1, kMaxHeads));
      spec.key_head_dim =
          static_cast<int>(yaml::required_integer(linear, origin, "key_head_dim", 1, kMaxWidth));
      spec.value_head_dim =
          static_cast<int>(yaml::required_integer(linear, origin, "value_head_dim", 1, kMaxWidth));
      spec.conv_kernel = small_int(linear, origin, "conv_kernel", 0, kMaxConvKernel);
      spec.gate_rank = small_int(linear, origin, "gate_rank", 1, kMaxWidth);
      if (spec.kind == LinearKind::kimi_delta && spec.gate_rank == 0) {
        throw InputError("is required with kind: kimi_delta (its low-rank gates)",
                         yaml::where(linear, origin, "gate_rank"));
      }
      spec.full_rank_output_gate = optional_flag(linear, origin, "full_rank_output_gate");
      shapes.linear = spec;
    });
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
    shapes.mamba = spec;
  }
  if (root["gated_ffn"].IsDefined()) shapes.dense.gated = optional_flag(root, origin, "gated_ffn");
  a.output_gate = optional_flag(root, origin, "attention_output_gate");
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

namespace {

/// A layer of `mixer` and `ffn` kinds with the model-wide shapes.
LayerSpec shaped_layer(const ModelShapes& shapes, Mixer mixer, FfnKind ffn) {
  LayerSpec layer;
  layer.mixer.kind = mixer;
  if (is_attention(mixer)) {
    layer.mixer.attention = shapes.full;
    if (mixer == Mixer::sliding_window) layer.mixer.attention.window = shapes.sliding_window;
  } else if (mixer == Mixer::linear_attention && shapes.linear) {
    layer.mixer.linear = *shapes.linear;
  } else if (mixer == Mixer::mamba && shapes.mamba) {
    layer.mixer.mamba = *shapes.mamba;
  }
  layer.ffn = shapes.dense;
  layer.ffn.kind = ffn;
  if (ffn != FfnKind::dense) layer.ffn.width = 0;
  if (ffn == FfnKind::moe && shapes.moe) layer.ffn.moe = *shapes.moe;
  return layer;
}

/// Whether layer i of n is one of k spread evenly: every n/k-th, the last of each run.
bool spread(int i, int n, int k) {
  if (k <= 0 || n <= 0) return false;
  const auto at = [&](int j) { return static_cast<long long>(j) * k / n; };
  return at(i + 1) > at(i);
}

/// The layers the counts imply (no list given): the first
/// moe.first_dense_layers dense and the rest MoE (all dense without MoE),
/// linear-attention and sliding-window layers spread evenly among the
/// full-attention ones. Where counts alone say a layer's kind, its position
/// is a convention: it matters only to which pipeline stage holds it.
std::vector<LayerSpec> layers_from_counts(const ModelShapes& shapes, int n) {
  const int linear = std::clamp(shapes.linear_layers, 0, n);
  const int sliding =
      shapes.sliding_window > 0 ? std::clamp(shapes.sliding_layers, 0, n - linear) : 0;
  const int dense = shapes.moe ? std::clamp(shapes.first_dense_layers, 0, n) : n;
  // Full attention among the linear layers (Qwen3-Next: every 4th), then
  // among the rest full attention among the sliding ones (gpt-oss: every 2nd).
  const int softmax = n - linear;
  const int full = softmax - sliding;
  int softmax_seen = 0;
  std::vector<LayerSpec> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const FfnKind ffn = i < dense ? FfnKind::dense : FfnKind::moe;
    Mixer mixer = Mixer::linear_attention;
    if (spread(i, n, softmax)) {
      mixer = spread(softmax_seen, softmax, full) ? Mixer::attention : Mixer::sliding_window;
      ++softmax_seen;
    }
    out.push_back(shaped_layer(shapes, mixer, ffn));
  }
  return out;
}

/// Nemotron-H's letters, one layer each: M a Mamba-2 mixer alone, * attention
/// alone, - a dense MLP alone, E a MoE alone.
std::vector<LayerSpec> layers_from_letters(const ModelShapes& shapes, const std::string& letters,
                                           const InputLocation& where) {
  std::vector<LayerSpec> out;
  out.reserve(letters.size());
  for (const char c : letters) {
    switch (c) {
      case 'M':
        out.push_back(shaped_layer(shapes, Mixer::mamba, FfnKind::none));
        break;
      case '*':
        out.push_back(shaped_layer(shapes, Mixer::attention, FfnKind::none));
        break;
      case '-':
        out.push_back(shaped_layer(shapes, Mixer::none, FfnKind::dense));
        break;
      case 'E':
        out.push_back(shaped_layer(shapes, Mixer::none, FfnKind::moe));
        break;
      default:
        throw InputError(std::string("'") + c +
                             "' is not a layer kind; the pattern's are M (Mamba-2), * (attention), "
                             "- (MLP) and E (MoE)",
                         where);
    }
  }
  return out;
}

/// The layers one by one: `layers:` as runs, `- {count: 5, mixer: mamba,
/// ffn: none}`, in order, each attention run with its own heads, head size
/// and window when they differ from the model's; or `layer_pattern:` in
/// Nemotron-H's letters. Either adds up to num_layers (docs/models.md, "The
/// layer plan"). Empty when the file gives neither.
std::vector<LayerSpec> parse_layer_runs(const YAML::Node& root, const std::string& origin,
                                        const ModelShapes& shapes, int num_layers) {
  const YAML::Node runs = root["layers"];
  const YAML::Node pattern = root["layer_pattern"];
  const bool has_runs = runs.IsDefined() && !runs.IsNull();
  const bool has_pattern = pattern.IsDefined() && !pattern.IsNull();
  if (!has_runs && !has_pattern) return {};
  if (has_runs && has_pattern) {
    throw InputError("give the layers once: layers or layer_pattern, not both",
                     yaml::where(pattern, origin, "layer_pattern"));
  }
  std::vector<LayerSpec> layers;
  if (has_pattern) {
    const std::string letters = yaml::required_string(root, origin, "layer_pattern");
    layers = layers_from_letters(shapes, letters, yaml::where(pattern, origin, "layer_pattern"));
  } else if (!runs.IsSequence() || runs.size() == 0) {
    throw InputError("expected a list of runs, e.g. - {count: 4, mixer: mamba, ffn: none}",
                     yaml::where(runs, origin, "layers"));
  }
  const YAML::Node at = has_runs ? runs : pattern;
  const std::string key = has_runs ? "layers" : "layer_pattern";
  for (const YAML::Node& run : has_runs ? runs : YAML::Node(YAML::NodeType::Sequence)) {
    yaml::with_key_prefix("layers.", [&] {
      yaml::require_map(run, origin, "a run of layers");
      yaml::reject_unknown_keys(
          run, origin,
          {"count", "mixer", "ffn", "ffn_width", "heads", "kv_heads", "head_dim", "window"});
      const auto count = yaml::required_integer(run, origin, "count", 1, kMaxLayers);
      const std::string mixer = yaml::optional_string(run, origin, "mixer").value_or("attention");
      const std::string ffn = yaml::optional_string(run, origin, "ffn").value_or("dense");
      LayerSpec layer =
          shaped_layer(shapes, kind_named(kMixers, mixer, "a mixer", run["mixer"], origin, "mixer"),
                       kind_named(kFfnKinds, ffn, "an FFN", run["ffn"], origin, "ffn"));
      if (auto width = yaml::optional_integer(run, origin, "ffn_width", 1, kMaxWidth)) {
        if (layer.ffn.kind != FfnKind::dense) {
          throw InputError("is the width of a dense FFN; this run's ffn is " + ffn,
                           yaml::where(run["ffn_width"], origin, "ffn_width"));
        }
        layer.ffn.width = *width;
      }
      AttentionSpec& a = layer.mixer.attention;
      for (const char* shape : {"heads", "kv_heads", "head_dim", "window"}) {
        if (run[shape].IsDefined() && !is_attention(layer.mixer.kind)) {
          throw InputError("is an attention layer's shape; this run's mixer is " + mixer,
                           yaml::where(run[shape], origin, shape));
        }
      }
      a.q_heads = static_cast<int>(
          yaml::optional_integer(run, origin, "heads", 1, kMaxHeads).value_or(a.q_heads));
      a.kv_heads = static_cast<int>(
          yaml::optional_integer(run, origin, "kv_heads", 1, a.q_heads).value_or(a.kv_heads));
      if (auto dim = yaml::optional_integer(run, origin, "head_dim", 1, kMaxWidth)) {
        a.head_dim = a.v_head_dim = static_cast<int>(*dim);
      }
      a.window = static_cast<int>(
          yaml::optional_integer(run, origin, "window", 1, kMaxTokens).value_or(a.window));
      if (a.kv_heads > a.q_heads) {
        throw InputError("a run's kv_heads must not exceed its heads",
                         yaml::where(run, origin, "kv_heads"));
      }
      if (layer.mixer.kind == Mixer::chunked_attention && a.window == 0) {
        throw InputError("a chunked_attention run needs its chunk length as window",
                         yaml::where(run, origin, "window"));
      }
      if (static_cast<long long>(layers.size()) + count > num_layers) {
        throw InputError(
            "the runs add up to more than num_layers (" + std::to_string(num_layers) + ")",
            yaml::where(run["count"], origin, "count"));
      }
      layers.insert(layers.end(), static_cast<std::size_t>(count), layer);
    });
  }
  if (static_cast<int>(layers.size()) != num_layers) {
    throw InputError("gives " + std::to_string(layers.size()) + " layers; num_layers is " +
                         std::to_string(num_layers),
                     yaml::where(at, origin, key));
  }
  const auto uses = [&](auto pred) { return std::any_of(layers.begin(), layers.end(), pred); };
  if (uses([](const LayerSpec& l) { return l.ffn.kind == FfnKind::moe; }) && !shapes.moe) {
    throw InputError("has MoE layers; give moe", yaml::where(at, origin, key));
  }
  if (uses([](const LayerSpec& l) { return l.mixer.kind == Mixer::mamba; }) && !shapes.mamba) {
    throw InputError("has Mamba layers; give mamba", yaml::where(at, origin, key));
  }
  if (uses([](const LayerSpec& l) { return l.mixer.kind == Mixer::linear_attention; }) &&
      !shapes.linear) {
    throw InputError("has linear-attention layers; give linear_attention",
                     yaml::where(at, origin, key));
  }
  if (uses([](const LayerSpec& l) {
        return l.mixer.kind == Mixer::sliding_window && l.mixer.attention.window == 0;
      })) {
    throw InputError("has sliding-window layers; give sliding_window",
                     yaml::where(at, origin, key));
  }
  if (shapes.linear_layers > 0 || shapes.sliding_layers > 0 || shapes.first_dense_stated) {
    throw InputError(
        "gives the layers one by one; leave out linear_attention_layers, "
        "sliding_window_layers and moe.first_dense_layers, which it replaces",
        yaml::where(at, origin, key));
  }
  return layers;
}

/// DeepSeek-V4's `compressed_attention:` (docs/models.md): its shapes and one
/// compress ratio per layer, which give the layers (0 or 1: the window alone,
/// a sliding_window layer; 4 or 128: an attention layer over compressed
/// entries, at 4 chosen by the indexer). Empty when the file has none.
std::vector<LayerSpec> parse_compressed_attention(const YAML::Node& root, const std::string& origin,
                                                  ModelArch& m, const ModelShapes& shapes,
                                                  int num_layers) {
  const YAML::Node node = root["compressed_attention"];
  if (!node.IsDefined() || node.IsNull()) {
    if (shapes.attention == "compressed") {
      throw InputError("is required with attention: compressed",
                       yaml::where(root, origin, "compressed_attention"));
    }
    return {};
  }
  yaml::require_map(node, origin, "compressed_attention");
  const int heads = shapes.full.q_heads;
  CompressedAttentionSpec a;
  std::vector<int> ratios;
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
    a.o_groups = static_cast<int>(yaml::required_integer(node, origin, "o_groups", 1, heads));
    if (heads % a.o_groups != 0) {
      throw InputError("must divide num_attention_heads (" + std::to_string(heads) + ")",
                       yaml::where(node["o_groups"], origin, "o_groups"));
    }
    m.hyper_connections = small_int(node, origin, "hc_mult", 1, kMaxHeads);
    const YAML::Node list = node["compress_ratios"];
    if (!list.IsSequence() || static_cast<long long>(list.size()) != num_layers) {
      throw InputError(
          "expected a list of one ratio per layer (" + std::to_string(num_layers) + ", num_layers)",
          yaml::where(list.IsDefined() ? list : node, origin, "compress_ratios"));
    }
    for (const YAML::Node& item : list) {
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
      ratios.push_back(ratio);
    }
  });
  if (shapes.attention != "compressed") {
    throw InputError("goes with attention: compressed",
                     yaml::where(node, origin, "compressed_attention"));
  }
  if (shapes.sliding_window <= 0) {
    throw InputError("is required with compressed_attention (every layer's window)",
                     yaml::where(root, origin, "sliding_window"));
  }
  const bool listed = (root["layers"].IsDefined() && !root["layers"].IsNull()) ||
                      (root["layer_pattern"].IsDefined() && !root["layer_pattern"].IsNull());
  if (listed || shapes.sliding_layers > 0 || shapes.full.latent) {
    throw InputError(
        "gives the layers by compress_ratios; leave out layers, layer_pattern, "
        "sliding_window_layers and mla",
        yaml::where(node, origin, "compressed_attention"));
  }
  const int dense = shapes.moe ? shapes.first_dense_layers : num_layers;
  std::vector<LayerSpec> layers;
  for (int i = 0; i < num_layers; ++i) {
    const int ratio = ratios[static_cast<std::size_t>(i)];
    LayerSpec layer = shaped_layer(shapes, ratio > 1 ? Mixer::attention : Mixer::sliding_window,
                                   i < dense ? FfnKind::dense : FfnKind::moe);
    AttentionSpec& attention = layer.mixer.attention;
    attention.compressed = true;
    attention.compression = a;
    attention.compression.ratio = ratio;
    attention.head_dim = attention.v_head_dim = a.head_dim;
    attention.kv_heads = 1;
    attention.window = shapes.sliding_window;
    // Only the ratio-4 layers choose their entries with the indexer.
    if (ratio != kIndexedCompressRatio) attention.indexer = {};
    layers.push_back(layer);
  }
  return layers;
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
                             "part_bits",
                             "layers",
                             "layer_pattern",
                             "mamba",
                             "gated_ffn",
                             "attention_output_gate",
                             "compressed_attention",
                             "engram",
                             "kv_bytes_per_token"});

  ModelArch m;
  ModelShapes shapes;
  m.name = yaml::required_string(root, origin, "name");
  m.description = yaml::optional_string(root, origin, "description").value_or("");
  m.source = yaml::optional_string(root, origin, "source").value_or("");
  m.hidden_size = yaml::required_integer(root, origin, "hidden_size", 1, kMaxHidden);
  const int num_layers =
      static_cast<int>(yaml::required_integer(root, origin, "num_layers", 1, kMaxLayers));
  m.vocab_size = yaml::required_integer(root, origin, "vocab_size", 1, kMaxVocab);
  AttentionSpec& attention = shapes.full;
  attention.q_heads =
      static_cast<int>(yaml::required_integer(root, origin, "num_attention_heads", 1, kMaxHeads));
  attention.kv_heads =
      static_cast<int>(yaml::optional_integer(root, origin, "num_kv_heads", 1, kMaxHeads)
                           .value_or(attention.q_heads));
  if (attention.kv_heads > attention.q_heads) {
    throw InputError(
        "must not exceed num_attention_heads (" + std::to_string(attention.q_heads) + ")",
        yaml::where(root["num_kv_heads"], origin, "num_kv_heads"));
  }
  shapes.attention = parse_attention(root, origin);
  attention.indexer.top_k = static_cast<int>(
      yaml::optional_integer(root, origin, "sparse_attention_top_k", 1, kMaxTokens).value_or(0));
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
                                 "shared_experts", "router", "latent_projections"});
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
    const auto dense = yaml::optional_integer(moe, origin, "first_dense_layers", 0, num_layers);
    shapes.first_dense_layers = static_cast<int>(dense.value_or(0));
    shapes.first_dense_stated = dense.value_or(0) > 0;
    spec.latent_size = yaml::optional_integer(moe, origin, "latent_size", 1, kMaxWidth).value_or(0);
    shapes.moe = spec;
  }
  parse_shapes(root, origin, num_layers, m, shapes);
  // 64 heads in a hidden_size of 2 are 0 wide each (found by tests/fuzz), and
  // every per-head size (attention weights, KV cache) would be 0.
  if (attention.head_dim < 1) {
    throw InputError(std::to_string(attention.q_heads) + " heads in a hidden_size of " +
                         std::to_string(m.hidden_size) + " are 0 wide each; give head_dim",
                     yaml::where(root["num_attention_heads"], origin, "num_attention_heads"));
  }
  std::vector<LayerSpec> layers = parse_layer_runs(root, origin, shapes, num_layers);
  if (auto compressed = parse_compressed_attention(root, origin, m, shapes, num_layers);
      !compressed.empty()) {
    layers = std::move(compressed);
  }
  if (layers.empty()) layers = layers_from_counts(shapes, num_layers);
  m.layers = LayerPlan::of(layers);
  parse_memory_parts(root, origin, m);
  if (shapes.attention == "hybrid-linear" && tally_layers(m.layers).linear == 0) {
    m.warnings.push_back(
        origin +
        ": attention: hybrid-linear, but no linear_attention_layers (or linear-attention "
        "runs): every layer is counted as softmax attention, which overstates the KV "
        "cache");
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
