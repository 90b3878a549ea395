#include "tpnet/model/mixer_compute.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "tp_split.hpp"
#include "tpnet/base/count_math.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/model/compressed_attention.hpp"
#include "tpnet/model/layer_plan.hpp"

namespace tpnet {
namespace {

constexpr std::string_view kUse = "the mixer compute";

/// Keys seen by tokens at positions context .. context + chunk - 1 (0-based),
/// each seeing every key up to itself, at most `window` of them (0 = all):
/// the sum over j = context + 1 .. context + chunk of min(j, window).
double keys_seen(TokenCount context, TokenCount chunk, long long window) {
  const double first = to_real(context) + 1.0;
  const double last = to_real(context) + to_real(chunk);
  auto sum_to = [](double a, double b) { return b < a ? 0.0 : (a + b) * (b - a + 1.0) / 2.0; };
  if (window <= 0 || to_real(window) >= last) return sum_to(first, last);
  const double w = to_real(window);
  const double ramp = sum_to(first, std::min(last, w));
  const double capped = last - std::max(first - 1.0, w);
  return ramp + std::max(0.0, capped) * w;
}

/// Keys seen by tokens at positions context .. context + chunk - 1 when each
/// sees only the tokens of its own `length`-token chunk up to itself
/// (Llama 4's chunked local attention): the sum over j of ((j - 1) mod
/// length) + 1.
double keys_seen_in_chunks(TokenCount context, TokenCount chunk, long long length) {
  if (length <= 0) return keys_seen(context, chunk, 0);
  // Up to position p (1-based), a whole chunk sums length (length + 1) / 2.
  auto upto = [&](TokenCount p) {
    const double whole = to_real(p / length);
    const double rest = to_real(p % length);
    const double l = to_real(length);
    return whole * l * (l + 1.0) / 2.0 + rest * (rest + 1.0) / 2.0;
  };
  return upto(context + chunk) - upto(context);
}

/// Score and value widths of one query head: 2 x (qk + v) FLOPs per key seen.
struct HeadWidths {
  double qk = 0.0;
  double v = 0.0;
};

HeadWidths head_widths(const AttentionSpec& a, bool decode) {
  if (a.compressed) return {to_real(a.compression.head_dim), to_real(a.compression.head_dim)};
  if (a.latent) {
    const MlaSpec& m = a.mla;
    if (decode) return {to_real(m.kv_lora_rank + m.qk_rope_head_dim), to_real(m.kv_lora_rank)};
    return {to_real(m.qk_nope_head_dim + m.qk_rope_head_dim), to_real(m.v_head_dim)};
  }
  return {to_real(a.head_dim), to_real(a.v_head_dim)};
}

void require_tokens(TokenCount tokens, TokenCount lowest, std::string_view field) {
  if (tokens < lowest || tokens > kMaxTokens) {
    throw InputError(
        fmt::format("{} tokens is out of range; allowed {} to {}", tokens, lowest, kMaxTokens),
        InputLocation::for_key(std::string(field)));
  }
}

void require_tp(int tp) {
  if (tp < 1) {
    throw InputError(fmt::format("{} is not a TP size; allowed 1 or more", tp),
                     InputLocation::for_key("layout.tp"));
  }
}

void require_chunk(TokenCount context, TokenCount chunk) {
  require_tokens(context, 0, "workload.context_tokens");
  require_tokens(chunk, 1, "engine.max_num_batched_tokens");
  if (context + chunk > kMaxTokens) require_tokens(context + chunk, 1, "workload.context_tokens");
}

}  // namespace

namespace {

template <typename Group>
void add_state_group(std::vector<Group>& groups, int layers, double per_token) {
  auto same = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return g.per_token == per_token; });
  if (same == groups.end()) {
    groups.push_back({layers, per_token});
  } else {
    same->layers += layers;
  }
}

}  // namespace

MixerFlopsRates::MixerFlopsRates(const ModelArch& m, int tp) {
  require_tp(tp);
  for (const LayerRun& run : m.layers.runs()) {
    const MixerSpec& mixer = run.layer.mixer;
    if (mixer.kind == Mixer::attention || mixer.kind == Mixer::sliding_window ||
        mixer.kind == Mixer::chunked_attention) {
      const AttentionSpec& a = mixer.attention;
      if (a.latent && !a.mla.stated()) {
        throw InputError("not stated by the model; the mixer compute needs the MLA head shapes",
                         detail::at_model_key(m, "mla"));
      }
      if (mixer.kind != Mixer::attention && a.window <= 0) {
        throw InputError(
            "is not stated; the mixer compute needs the window of the "
            "sliding-window layers",
            detail::at_model_key(m, "sliding_window"));
      }
      const double heads =
          to_real(detail::split_by_tp(m, a.q_heads, tp, "num_attention_heads", "heads", kUse));
      const HeadWidths prefill = head_widths(a, false);
      const HeadWidths decode = head_widths(a, true);
      AttentionGroup group;
      group.layers = run.count;
      group.kind = mixer.kind;
      group.prefill_per_key = 2.0 * heads * (prefill.qk + prefill.v);
      group.decode_per_key = 2.0 * heads * (decode.qk + decode.v);
      group.window = mixer.kind == Mixer::attention && !a.compressed ? 0 : a.window;
      group.top_k = a.indexer.top_k;
      group.compress_ratio = a.compressed ? std::max(1, a.compression.ratio) : 0;
      if (a.indexer.scores() && (!a.compressed || has_compressed_indexer(a))) {
        // vLLM replicates the indexer on every rank; it scores every earlier key.
        group.sparse_index_per_key = 2.0 * to_real(a.indexer.heads) * to_real(a.indexer.head_dim);
      }
      // Layers of one shape in many runs (a 3:1 hybrid) count as one group,
      // so the sum is the same whatever the runs.
      auto same = std::find_if(attention_.begin(), attention_.end(),
                               [&](const AttentionGroup& g) { return g.same_rates(group); });
      if (same == attention_.end()) {
        attention_.push_back(group);
      } else {
        same->layers += group.layers;
      }
    } else if (mixer.kind == Mixer::linear_attention) {
      const LinearAttentionSpec& s = mixer.linear;
      if (!s.stated()) {
        throw InputError(
            "not stated by the model; the mixer compute needs the linear-attention "
            "head shapes",
            detail::at_model_key(m, "linear_attention"));
      }
      const double heads =
          to_real(detail::split_by_tp(m, s.value_heads, tp, "linear_attention.value_heads",
                                      "linear-attention value heads", kUse));
      // Per value head a key_dim x value_dim state: decay (1), S k (2), the
      // delta-rule update (2) and the readout S^T q (2) per element; the
      // lightning attention's plain linear update has no S k (5).
      const double per_element = s.kind == LinearKind::lightning ? 5.0 : 7.0;
      add_state_group(linear_, run.count, per_element * heads * s.key_head_dim * s.value_head_dim);
    } else if (mixer.kind == Mixer::mamba) {
      const MambaSpec& s = mixer.mamba;
      if (!s.stated()) {
        throw InputError("not stated by the model; the mixer compute needs the Mamba-2 shapes",
                         detail::at_model_key(m, "mamba"));
      }
      const double heads =
          to_real(detail::split_by_tp(m, s.heads, tp, "mamba.heads", "Mamba heads", kUse));
      // Per head a head_dim x state_size state: decay (1), the x B^T update (2)
      // and the readout h C (2) per element.
      add_state_group(mamba_, run.count, 5.0 * heads * s.head_dim * s.state_size);
    }
  }
}

MixerFlops MixerFlopsRates::flops(TokenCount context, TokenCount chunk, bool decode) const {
  require_chunk(context, chunk);
  MixerFlops out;
  const double tokens = to_real(chunk);
  for (const AttentionGroup& g : attention_) {
    const double per_key = decode ? g.decode_per_key : g.prefill_per_key;
    const double layers = g.layers;
    if (g.compress_ratio > 0) {
      // DeepSeek-V4: the window in every layer; a query at position j sees
      // j / r compressed keys (the top-k of them at ratio 4).
      out.sliding_window += per_key * keys_seen(context, chunk, g.window) * layers;
      const int ratio = g.compress_ratio;
      if (ratio <= 1) continue;
      const bool indexed = ratio == kIndexedCompressRatio && g.top_k > 0;
      const double seen = keys_seen(context, chunk, indexed ? g.top_k * ratio : 0) / ratio;
      out.attention += per_key * seen * layers;
      if (indexed && g.sparse_index_per_key > 0.0) {
        out.sparse_index += g.sparse_index_per_key * keys_seen(context, chunk, 0) / ratio * layers;
      }
      continue;
    }
    switch (g.kind) {
      case Mixer::sliding_window:
        out.sliding_window += per_key * keys_seen(context, chunk, g.window) * layers;
        break;
      case Mixer::chunked_attention:
        out.sliding_window += per_key * keys_seen_in_chunks(context, chunk, g.window) * layers;
        break;
      default:
        out.attention += per_key * keys_seen(context, chunk, g.top_k) * layers;
        if (g.sparse_index_per_key > 0.0) {
          out.sparse_index += g.sparse_index_per_key * keys_seen(context, chunk, 0) * layers;
        }
        break;
    }
  }
  for (const StateGroup& g : linear_) out.linear_attention += g.per_token * tokens * g.layers;
  for (const StateGroup& g : mamba_) out.mamba += g.per_token * tokens * g.layers;
  return out;
}

MixerFlops prefill_mixer_flops(const ModelArch& model, int tp, TokenCount context_tokens,
                               TokenCount chunk_tokens) {
  // The TP and the tokens before the model's shapes: errors come in the
  // order they always have.
  require_tp(tp);
  require_chunk(context_tokens, chunk_tokens);
  return MixerFlopsRates(model, tp).prefill(context_tokens, chunk_tokens);
}

MixerFlops decode_mixer_flops(const ModelArch& model, int tp, TokenCount context_tokens) {
  require_tp(tp);
  require_chunk(context_tokens, 1);
  return MixerFlopsRates(model, tp).decode(context_tokens);
}

}  // namespace tpnet
