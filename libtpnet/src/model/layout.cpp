#include "tpnet/model/layout.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "tpnet/model/layer_plan.hpp"

namespace tpnet {

std::string ParallelLayout::name() const {
  std::string out = fmt::format("TP{}", tp);
  if (pp > 1) out += fmt::format("xPP{}", pp);
  if (ep > 1) out += fmt::format("xEP{}", ep);
  return out;
}

void validate_layout(const ParallelLayout& layout, const ModelArch& model) {
  auto fail = [](const std::string& field, const std::string& message) {
    throw InputError(message, InputLocation::for_key(field));
  };
  if (layout.tp < 1 || layout.tp > kMaxTp)
    fail("layout.tp", fmt::format("{} is not allowed; use 1 to {}", layout.tp, kMaxTp));
  if (layout.pp < 1 || layout.pp > model.num_layers()) {
    fail("layout.pp", fmt::format("{} is not allowed; use 1 to {} ({} has {} layers)", layout.pp,
                                  model.num_layers(), model.name, model.num_layers()));
  }
  if (layout.ep < 1 || layout.ep > kMaxEp)
    fail("layout.ep", fmt::format("{} is not allowed; use 1 to {}", layout.ep, kMaxEp));
  if (layout.ep > 1) {
    const MoeSpec* moe = first_moe(model.layers);
    if (moe == nullptr) {
      fail("layout.ep",
           fmt::format("{} is dense: expert parallelism needs a mixture-of-experts model",
                       model.name));
    }
    if (layout.ep % layout.tp != 0) {
      fail("layout.ep",
           fmt::format("EP{} is not a multiple of TP{}; EP spans TP x data-parallel ranks",
                       layout.ep, layout.tp));
    }
    if (layout.ep > moe->routed_experts) {
      fail("layout.ep", fmt::format("EP{} exceeds {}'s {} routed experts", layout.ep, model.name,
                                    moe->routed_experts));
    }
  }
  if (layout.nodes() < 2) {
    fail("layout.tp", "a layout of one node sends nothing over the network; use 2 or more nodes");
  }
}

namespace {

/// vLLM's reason to refuse TP for one layer's mixer; empty when it accepts.
std::string mixer_refusal(const ModelArch& model, const MixerSpec& mixer, int tp) {
  if (is_attention(mixer.kind)) {
    const AttentionSpec& a = mixer.attention;
    const int heads = a.q_heads;
    if (heads > 0 && heads % tp != 0) {
      return fmt::format(
          "TP{} does not divide {}'s {} attention heads; vLLM refuses it (\"Total number of "
          "attention heads ({}) must be divisible by tensor parallel size ({})\")",
          tp, model.name, heads, heads, tp);
    }
    // MLA caches one latent per token whatever the heads; GQA splits or
    // replicates the KV heads, and either must come out whole.
    const int kv = a.kv_heads;
    if (!a.latent && !a.compressed && kv > 0 && (tp < kv ? kv % tp : tp % kv) != 0) {
      return fmt::format(
          "TP{} and {}'s {} KV heads do not divide one another; vLLM refuses it (its "
          "QKVParallelLinear splits the KV heads over TP, or replicates them when TP is the "
          "larger)",
          tp, model.name, kv);
    }
    if (a.compressed && a.compression.o_groups % tp != 0) {
      // DeepseekV4Attention gives each rank o_groups / TP output groups.
      return fmt::format(
          "TP{} does not divide {}'s {} output groups (o_groups); vLLM splits them "
          "over TP",
          tp, model.name, a.compression.o_groups);
    }
  } else if (mixer.kind == Mixer::mamba && mixer.mamba.heads % tp != 0) {
    return fmt::format("TP{} does not divide {}'s {} Mamba heads; vLLM splits them over TP", tp,
                       model.name, mixer.mamba.heads);
  } else if (mixer.kind == Mixer::linear_attention) {
    for (const int linear : {mixer.linear.key_heads, mixer.linear.value_heads}) {
      if (linear > 0 && linear % tp != 0) {
        return fmt::format(
            "TP{} does not divide {}'s {} linear-attention heads; vLLM splits them over TP", tp,
            model.name, linear);
      }
    }
  }
  return "";
}

}  // namespace

std::string tp_refusal(const ModelArch& model, int tp) {
  if (tp < 1) return "";
  // Attention first, the reason vLLM gives first; then the other mixers.
  for (const bool attention : {true, false}) {
    for (const LayerRun& run : model.layers.runs()) {
      if (is_attention(run.layer.mixer.kind) != attention) continue;
      if (std::string refusal = mixer_refusal(model, run.layer.mixer, tp); !refusal.empty()) {
        return refusal;
      }
    }
  }
  return "";
}

bool tp_divides_heads(const ModelArch& model, int tp) { return tp_refusal(model, tp).empty(); }

void require_tp_accepted(const ModelArch& model, int tp) {
  if (std::string refusal = tp_refusal(model, tp); !refusal.empty()) {
    throw InputError(refusal, InputLocation::for_key("layout.tp"));
  }
}

std::vector<std::pair<int, int>> stage_layers(int layers, int pp) {
  std::vector<int> counts(static_cast<std::size_t>(pp), layers / pp);
  // vLLM (get_pp_indices) hands the remainder to the stages before the last,
  // counting back from there.
  for (int i = 0; i < layers % pp; ++i) ++counts[static_cast<std::size_t>(pp - 2 - i)];
  std::vector<std::pair<int, int>> ranges;
  int start = 0;
  for (int n : counts) {
    ranges.emplace_back(start, start + n);
    start += n;
  }
  return ranges;
}

}  // namespace tpnet
