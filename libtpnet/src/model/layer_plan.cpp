#include "tpnet/model/layer_plan.hpp"

#include <algorithm>

namespace tpnet {
namespace {

/// Whether layer i of n is one of k spread evenly: every n/k-th, the last of each run.
bool spread(int i, int n, int k) {
  if (k <= 0 || n <= 0) return false;
  const auto at = [&](int j) { return static_cast<long long>(j) * k / n; };
  return at(i + 1) > at(i);
}

}  // namespace

std::vector<LayerSpec> layer_plan(const ModelArch& m) {
  if (!m.layers.empty()) return m.layers;
  const int n = std::max(0, m.num_layers);
  const int linear = std::clamp(m.linear_attention_layers, 0, n);
  const int sliding = m.sliding_window > 0 ? std::clamp(m.sliding_window_layers, 0, n - linear) : 0;
  const int dense = m.moe ? std::clamp(m.moe->first_dense_layers, 0, n) : n;
  std::vector<LayerSpec> plan(static_cast<std::size_t>(n));
  // Full attention among the linear layers (Qwen3-Next: every 4th), then
  // among the rest full attention among the sliding ones (gpt-oss: every 2nd).
  const int softmax = n - linear;
  const int full = softmax - sliding;
  int softmax_seen = 0;
  for (int i = 0; i < n; ++i) {
    LayerSpec& layer = plan[static_cast<std::size_t>(i)];
    layer.ffn = i < dense ? FfnKind::dense : FfnKind::moe;
    if (!spread(i, n, softmax)) {
      layer.mixer = Mixer::linear_attention;
      continue;
    }
    layer.mixer = spread(softmax_seen, softmax, full) ? Mixer::attention : Mixer::sliding_window;
    ++softmax_seen;
  }
  return plan;
}

long long dense_width(const ModelArch& m, const LayerSpec& layer) {
  return layer.ffn_width > 0 ? layer.ffn_width : m.intermediate_size;
}

std::vector<std::pair<long long, int>> dense_widths(const ModelArch& m) {
  std::vector<std::pair<long long, int>> widths;
  for (const LayerSpec& layer : layer_plan(m)) {
    if (layer.ffn != FfnKind::dense) continue;
    const long long width = dense_width(m, layer);
    auto it = std::find_if(widths.begin(), widths.end(),
                           [&](const auto& entry) { return entry.first == width; });
    if (it == widths.end()) {
      widths.emplace_back(width, 1);
    } else {
      ++it->second;
    }
  }
  return widths;
}

std::vector<LayerSpec> layers_from_block_pattern(std::string_view pattern,
                                                 const InputLocation& where) {
  std::vector<LayerSpec> layers;
  layers.reserve(pattern.size());
  for (const char c : pattern) {
    switch (c) {
      case 'M':
        layers.push_back({Mixer::mamba, FfnKind::none});
        break;
      case '*':
        layers.push_back({Mixer::attention, FfnKind::none});
        break;
      case '-':
        layers.push_back({Mixer::none, FfnKind::dense});
        break;
      case 'E':
        layers.push_back({Mixer::none, FfnKind::moe});
        break;
      default:
        throw InputError(std::string("'") + c +
                             "' is not a layer kind; the pattern's are M (Mamba-2), * (attention), "
                             "- (MLP) and E (MoE)",
                         where);
    }
  }
  return layers;
}

LayerTally tally_layers(const std::vector<LayerSpec>& plan, int begin, int end) {
  LayerTally t;
  begin = std::clamp(begin, 0, static_cast<int>(plan.size()));
  end = std::clamp(end, begin, static_cast<int>(plan.size()));
  for (int i = begin; i < end; ++i) {
    const LayerSpec& layer = plan[static_cast<std::size_t>(i)];
    ++t.layers;
    switch (layer.mixer) {
      case Mixer::attention:
        ++t.attention;
        break;
      case Mixer::sliding_window:
        ++t.sliding;
        break;
      case Mixer::linear_attention:
        ++t.linear;
        break;
      case Mixer::mamba:
        ++t.mamba;
        break;
      case Mixer::cross_attention:
        ++t.cross;
        break;
      case Mixer::none:
        ++t.no_mixer;
        break;
    }
    switch (layer.ffn) {
      case FfnKind::dense:
        ++t.dense;
        break;
      case FfnKind::moe:
        ++t.moe;
        break;
      case FfnKind::none:
        ++t.no_ffn;
        break;
    }
    t.reduced_blocks += (layer.mixer != Mixer::none ? 1 : 0) + (layer.ffn != FfnKind::none ? 1 : 0);
  }
  return t;
}

LayerTally tally_layers(const ModelArch& m) {
  const auto plan = layer_plan(m);
  return tally_layers(plan, 0, static_cast<int>(plan.size()));
}

bool has_single_block_layers(const ModelArch& m) {
  return std::any_of(m.layers.begin(), m.layers.end(), [](const LayerSpec& l) {
    return l.mixer == Mixer::none || l.ffn == FfnKind::none;
  });
}

}  // namespace tpnet
