#include "tpnet/model/layer_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace tpnet {

void LayerPlan::append(const LayerSpec& layer, int count) {
  if (count <= 0) return;
  if (!runs_.empty() && runs_.back().layer == layer) {
    runs_.back().count += count;
  } else {
    runs_.push_back({count, layer});
  }
  size_ += count;
}

const LayerSpec& LayerPlan::at(int index) const {
  int start = 0;
  for (const LayerRun& run : runs_) {
    if (index >= start && index < start + run.count) return run.layer;
    start += run.count;
  }
  throw std::out_of_range(fmt::format("layer {} of a {}-layer plan", index, size_));
}

LayerPlan LayerPlan::slice(int begin, int end) const {
  begin = std::clamp(begin, 0, size_);
  end = std::clamp(end, begin, size_);
  LayerPlan out;
  int start = 0;
  for (const LayerRun& run : runs_) {
    const int lo = std::max(begin, start);
    const int hi = std::min(end, start + run.count);
    if (hi > lo) out.append(run.layer, hi - lo);
    start += run.count;
  }
  return out;
}

std::vector<LayerSpec> LayerPlan::layers() const {
  std::vector<LayerSpec> out;
  out.reserve(static_cast<std::size_t>(size_));
  for (const LayerRun& run : runs_)
    out.insert(out.end(), static_cast<std::size_t>(run.count), run.layer);
  return out;
}

LayerPlan LayerPlan::of(const std::vector<LayerSpec>& layers) {
  LayerPlan plan;
  for (const LayerSpec& layer : layers) plan.append(layer);
  return plan;
}

namespace {

void add_layer(LayerTally& t, const LayerSpec& layer, int count) {
  t.layers += count;
  switch (layer.mixer.kind) {
    case Mixer::attention:
      t.attention += count;
      break;
    case Mixer::sliding_window:
      t.sliding += count;
      break;
    case Mixer::chunked_attention:
      t.chunked += count;
      break;
    case Mixer::linear_attention:
      t.linear += count;
      break;
    case Mixer::mamba:
      t.mamba += count;
      break;
    case Mixer::cross_attention:
      t.cross += count;
      break;
    case Mixer::none:
      t.no_mixer += count;
      break;
  }
  switch (layer.ffn.kind) {
    case FfnKind::dense:
      t.dense += count;
      break;
    case FfnKind::moe:
      t.moe += count;
      break;
    case FfnKind::none:
      t.no_ffn += count;
      break;
  }
  t.reduced_blocks += count * ((layer.mixer.kind != Mixer::none ? 1 : 0) +
                               (layer.ffn.kind != FfnKind::none ? 1 : 0));
}

}  // namespace

LayerTally tally_layers(const LayerPlan& plan) {
  LayerTally t;
  for (const LayerRun& run : plan.runs()) add_layer(t, run.layer, run.count);
  return t;
}

LayerTally tally_layers(const LayerPlan& plan, int begin, int end) {
  return tally_layers(plan.slice(begin, end));
}

bool has_single_block_layers(const LayerPlan& plan) {
  return std::any_of(plan.runs().begin(), plan.runs().end(), [](const LayerRun& r) {
    return r.layer.mixer.kind == Mixer::none || r.layer.ffn.kind == FfnKind::none;
  });
}

const AttentionSpec* first_attention(const LayerPlan& plan) {
  if (const MixerSpec* full = first_mixer(plan, Mixer::attention)) return &full->attention;
  for (const LayerRun& run : plan.runs()) {
    if (is_attention(run.layer.mixer.kind)) return &run.layer.mixer.attention;
  }
  return nullptr;
}

const MoeSpec* first_moe(const LayerPlan& plan) {
  for (const LayerRun& run : plan.runs()) {
    if (run.layer.ffn.kind == FfnKind::moe) return &run.layer.ffn.moe;
  }
  return nullptr;
}

const MixerSpec* first_mixer(const LayerPlan& plan, Mixer kind) {
  for (const LayerRun& run : plan.runs()) {
    if (run.layer.mixer.kind == kind) return &run.layer.mixer;
  }
  return nullptr;
}

std::vector<std::pair<long long, int>> dense_widths(const LayerPlan& plan) {
  std::vector<std::pair<long long, int>> widths;
  for (const LayerRun& run : plan.runs()) {
    if (run.layer.ffn.kind != FfnKind::dense) continue;
    const long long width = run.layer.ffn.width;
    auto it = std::find_if(widths.begin(), widths.end(),
                           [&](const auto& entry) { return entry.first == width; });
    if (it == widths.end()) {
      widths.emplace_back(width, run.count);
    } else {
      it->second += run.count;
    }
  }
  return widths;
}

std::vector<std::string> missing_shapes(const LayerPlan& plan) {
  bool mla = false;
  bool linear = false;
  bool mamba = false;
  bool dense = false;
  bool experts = false;
  for (const LayerRun& run : plan.runs()) {
    const MixerSpec& mixer = run.layer.mixer;
    if (is_attention(mixer.kind) && mixer.attention.latent && !mixer.attention.mla.stated()) {
      mla = true;
    }
    if (mixer.kind == Mixer::linear_attention && !mixer.linear.stated()) linear = true;
    if (mixer.kind == Mixer::mamba && !mixer.mamba.stated()) mamba = true;
    const FfnSpec& ffn = run.layer.ffn;
    if (ffn.kind == FfnKind::dense && ffn.width <= 0) dense = true;
    if (ffn.kind == FfnKind::moe && ffn.moe.expert_intermediate_size <= 0) experts = true;
  }
  std::vector<std::string> out;
  if (mla) out.emplace_back("mla");
  if (linear) out.emplace_back("linear_attention");
  if (mamba) out.emplace_back("mamba");
  if (dense) out.emplace_back("intermediate_size");
  if (experts) out.emplace_back("moe.expert_intermediate_size");
  return out;
}

std::string attention_label(const LayerPlan& plan) {
  bool compressed = false;
  bool sparse = false;
  bool latent = false;
  bool linear = false;
  bool windowed = false;
  bool grouped = false;
  for (const LayerRun& run : plan.runs()) {
    const MixerSpec& mixer = run.layer.mixer;
    if (mixer.kind == Mixer::linear_attention || mixer.kind == Mixer::mamba) linear = true;
    if (!is_attention(mixer.kind)) continue;
    const AttentionSpec& a = mixer.attention;
    compressed = compressed || a.compressed;
    sparse = sparse || a.indexer.top_k > 0;
    latent = latent || a.latent;
    windowed =
        windowed || mixer.kind == Mixer::sliding_window || mixer.kind == Mixer::chunked_attention;
    grouped = grouped || (!a.latent && a.kv_heads != a.q_heads);
  }
  if (compressed) return "compressed";
  if (sparse) return "sparse";
  if (latent) return "mla";
  if (linear) return "hybrid-linear";
  if (windowed) return "sliding-window";
  return grouped ? "gqa" : "mha";
}

LayerSpec mtp_layer(const LayerPlan& plan) {
  LayerSpec layer;
  if (plan.empty()) return layer;
  // The last layer with an FFN gives the MTP layer its FFN.
  const auto& runs = plan.runs();
  const auto last = std::find_if(runs.rbegin(), runs.rend(), [](const LayerRun& run) {
    return run.layer.ffn.kind != FfnKind::none;
  });
  if (last != runs.rend()) layer.ffn = last->layer.ffn;
  const MixerSpec* mixer = first_mixer(plan, Mixer::attention);
  if (mixer == nullptr) {
    for (const LayerRun& run : plan.runs()) {
      if (is_attention(run.layer.mixer.kind)) {
        mixer = &run.layer.mixer;
        break;
      }
    }
  }
  if (mixer == nullptr) mixer = &plan.runs().front().layer.mixer;
  layer.mixer = *mixer;
  if (layer.mixer.attention.compressed) {
    layer.mixer.kind = Mixer::sliding_window;
    layer.mixer.attention.compression.ratio = 1;
    layer.mixer.attention.indexer = {};
  }
  return layer;
}

namespace {

std::string heads_text(const AttentionSpec& a) {
  if (a.latent) {
    if (!a.mla.stated()) return fmt::format("MLA {} heads (ranks not stated)", a.q_heads);
    const MlaSpec& m = a.mla;
    return fmt::format("MLA {} heads, kv rank {}{}, qk {} + rope {}, v {}", a.q_heads,
                       m.kv_lora_rank,
                       m.q_lora_rank > 0 ? fmt::format(", q rank {}", m.q_lora_rank) : "",
                       m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim);
  }
  if (a.compressed) {
    const CompressedAttentionSpec& c = a.compression;
    return fmt::format("{} q x {} over one K = V head, q rank {}, {} output groups of rank {}",
                       a.q_heads, c.head_dim, c.q_lora_rank, c.o_groups, c.o_lora_rank);
  }
  std::string text = fmt::format("{} q / {} kv x {}", a.q_heads, a.kv_heads, a.head_dim);
  if (a.v_head_dim != a.head_dim) text += fmt::format(" (v {})", a.v_head_dim);
  if (a.shared_kv) text += ", K = V";
  if (a.output_gate) text += ", gated output";
  return text;
}

std::string mixer_text(const MixerSpec& m) {
  const AttentionSpec& a = m.attention;
  std::string text;
  switch (m.kind) {
    case Mixer::attention:
      text = a.compressed ? fmt::format("compressed attention 1/{} (window {}), ",
                                        a.compression.ratio, a.window)
                          : "attention ";
      text += heads_text(a);
      break;
    case Mixer::sliding_window:
      text = a.compressed ? fmt::format("window-only attention {}, ", a.window)
                          : fmt::format("sliding-window {} attention ", a.window);
      text += heads_text(a);
      break;
    case Mixer::chunked_attention:
      text = fmt::format("chunked {} attention {}", a.window, heads_text(a));
      break;
    case Mixer::cross_attention:
      text = "cross-attention " + heads_text(a);
      break;
    case Mixer::linear_attention: {
      const LinearAttentionSpec& l = m.linear;
      if (l.kind == LinearKind::gated_deltanet) {
        text = fmt::format("Gated DeltaNet {} k / {} v heads x {}/{}", l.key_heads, l.value_heads,
                           l.key_head_dim, l.value_head_dim);
      } else if (l.kind == LinearKind::kimi_delta) {
        text = fmt::format("Kimi Delta Attention {} heads x {}", l.value_heads, l.value_head_dim);
      } else {
        text = fmt::format("lightning attention {} heads x {}", l.value_heads, l.value_head_dim);
      }
      if (!l.stated()) text = std::string(to_string(l.kind)) + " (shapes not stated)";
      break;
    }
    case Mixer::mamba: {
      const MambaSpec& s = m.mamba;
      text = s.stated() ? fmt::format("Mamba-2 {} heads x {}, state {}, {} groups", s.heads,
                                      s.head_dim, s.state_size, s.groups)
                        : "Mamba-2 (shapes not stated)";
      break;
    }
    case Mixer::none:
      return "no mixer";
  }
  if (is_attention(m.kind) && a.indexer.top_k > 0) {
    text += a.indexer.scores() ? fmt::format(", top-{} indexer {} x {}", a.indexer.top_k,
                                             a.indexer.heads, a.indexer.head_dim)
                               : fmt::format(", top-{}", a.indexer.top_k);
  }
  return text;
}

std::string ffn_text(const FfnSpec& f) {
  const char* matrices = f.gated ? "" : " (2 matrices)";
  switch (f.kind) {
    case FfnKind::dense:
      return f.width > 0 ? fmt::format("dense FFN {}{}", f.width, matrices)
                         : fmt::format("dense FFN (width not stated){}", matrices);
    case FfnKind::moe: {
      const MoeSpec& e = f.moe;
      std::string text = fmt::format("MoE {} x {} top-{}", e.routed_experts,
                                     e.expert_intermediate_size, e.experts_per_token);
      if (e.shared_experts > 0) {
        text += fmt::format(" + {} shared", e.shared_experts);
        if (e.shared_width() != e.expert_intermediate_size)
          text += fmt::format(" x {}", e.shared_width());
      }
      if (e.latent_size > 0) text += fmt::format(", latent {}", e.latent_size);
      return text + matrices;
    }
    case FfnKind::none:
      return "no FFN";
  }
  return "no FFN";
}

/// How many times runs [start, start + period) repeat from `start`.
int repeats(const std::vector<LayerRun>& runs, std::size_t start, std::size_t period) {
  int times = 1;
  for (std::size_t next = start + period; next + period <= runs.size(); next += period) {
    if (!std::equal(runs.begin() + static_cast<long>(start),
                    runs.begin() + static_cast<long>(start + period),
                    runs.begin() + static_cast<long>(next))) {
      break;
    }
    ++times;
  }
  return times;
}

}  // namespace

std::string describe_layer(const LayerSpec& layer) {
  return "[" + mixer_text(layer.mixer) + "; " + ffn_text(layer.ffn) + "]";
}

std::vector<std::string> describe_runs(const LayerPlan& plan) {
  // A hybrid repeats a short group of runs (Qwen3.5: 3 linear + 1 full,
  // 16 times): one line for the group, not 32.
  constexpr std::size_t kLongestGroup = 4;
  const std::vector<LayerRun>& runs = plan.runs();
  std::vector<std::string> lines;
  std::size_t i = 0;
  while (i < runs.size()) {
    std::size_t best_period = 1;
    int best_times = 1;
    for (std::size_t period = 2; period <= kLongestGroup && i + 2 * period <= runs.size();
         ++period) {
      const int times = repeats(runs, i, period);
      if (times >= 2 &&
          times * static_cast<int>(period) > best_times * static_cast<int>(best_period)) {
        best_period = period;
        best_times = times;
      }
    }
    if (best_times >= 2) {
      std::string group;
      for (std::size_t k = i; k < i + best_period; ++k) {
        group += fmt::format("{}{} x {}", k == i ? "" : " + ", runs[k].count,
                             describe_layer(runs[k].layer));
      }
      lines.push_back(fmt::format("{} x ({})", best_times, group));
      i += best_period * static_cast<std::size_t>(best_times);
    } else {
      lines.push_back(fmt::format("{} x {}", runs[i].count, describe_layer(runs[i].layer)));
      ++i;
    }
  }
  return lines;
}

}  // namespace tpnet
