#include "tpnet/model/mixer_compute.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "tp_split.hpp"
#include "tpnet/error.hpp"
#include "tpnet/limits.hpp"
#include "tpnet/model/layer_plan.hpp"

namespace tpnet {
namespace {

constexpr std::string_view kUse = "the mixer compute";

double d(long long value) { return static_cast<double>(value); }

/// Keys seen by tokens at positions context .. context + chunk - 1 (0-based),
/// each seeing every key up to itself, at most `window` of them (0 = all):
/// the sum over j = context + 1 .. context + chunk of min(j, window).
double keys_seen(TokenCount context, TokenCount chunk, long long window) {
  const double first = d(context) + 1.0;
  const double last = d(context) + d(chunk);
  auto sum_to = [](double a, double b) { return b < a ? 0.0 : (a + b) * (b - a + 1.0) / 2.0; };
  if (window <= 0 || d(window) >= last) return sum_to(first, last);
  const double w = d(window);
  const double ramp = sum_to(first, std::min(last, w));
  const double capped = last - std::max(first - 1.0, w);
  return ramp + std::max(0.0, capped) * w;
}

/// Score and value widths of one query head: 2 x (qk + v) FLOPs per key seen.
struct HeadWidths {
  double qk = 0.0;
  double v = 0.0;
};

HeadWidths head_widths(const ModelArch& m, bool decode) {
  if (m.mla) {
    const MlaSpec& a = *m.mla;
    if (decode) return {d(a.kv_lora_rank + a.qk_rope_head_dim), d(a.kv_lora_rank)};
    return {d(a.qk_nope_head_dim + a.qk_rope_head_dim), d(a.v_head_dim)};
  }
  const double head = d(effective_head_dim(m));
  return {head, head};
}

void require_tokens(TokenCount tokens, TokenCount lowest, std::string_view field) {
  if (tokens < lowest || tokens > kMaxTokens) {
    throw InputError(
        fmt::format("{} tokens is out of range; allowed {} to {}", tokens, lowest, kMaxTokens),
        InputLocation::for_key(std::string(field)));
  }
}

MixerFlops mixer_flops(const ModelArch& m, int tp, TokenCount context, TokenCount chunk,
                       bool decode) {
  if (tp < 1) {
    throw InputError(fmt::format("{} is not a TP size; allowed 1 or more", tp),
                     InputLocation::for_key("layout.tp"));
  }
  require_tokens(context, 0, "workload.context_tokens");
  require_tokens(chunk, 1, "engine.max_num_batched_tokens");
  if (context + chunk > kMaxTokens) require_tokens(context + chunk, 1, "workload.context_tokens");

  const LayerTally t = tally_layers(m);
  MixerFlops out;
  const double tokens = d(chunk);
  if (t.attention + t.sliding > 0) {
    if (m.attention == AttentionKind::mla && !m.mla) {
      throw InputError("not stated by the model; the mixer compute needs the MLA head shapes",
                       detail::at_model_key(m, "mla"));
    }
    const double heads =
        d(detail::split_by_tp(m, m.num_attention_heads, tp, "num_attention_heads", "heads", kUse));
    const HeadWidths w = head_widths(m, decode);
    const double per_key = 2.0 * heads * (w.qk + w.v);
    const long long top_k = m.sparse_attention_top_k.value_or(0);
    out.attention = per_key * keys_seen(context, chunk, top_k) * t.attention;
    if (t.sliding > 0) {
      if (m.sliding_window <= 0) {
        throw InputError(
            "is not stated; the mixer compute needs the window of the "
            "sliding-window layers",
            detail::at_model_key(m, "sliding_window"));
      }
      out.sliding_window = per_key * keys_seen(context, chunk, m.sliding_window) * t.sliding;
    }
    if (top_k > 0 && m.sparse_attention_index_heads > 0 && m.sparse_attention_index_head_dim > 0) {
      // vLLM replicates the indexer on every rank; it scores every earlier key.
      out.sparse_index = 2.0 * d(m.sparse_attention_index_heads) *
                         d(m.sparse_attention_index_head_dim) * keys_seen(context, chunk, 0) *
                         t.attention;
    }
  }
  if (t.linear > 0) {
    if (!m.linear_attention) {
      throw InputError(
          "not stated by the model; the mixer compute needs the linear-attention "
          "head shapes",
          detail::at_model_key(m, "linear_attention"));
    }
    const LinearAttentionSpec& s = *m.linear_attention;
    const double heads = d(detail::split_by_tp(m, s.value_heads, tp, "linear_attention.value_heads",
                                               "linear-attention value heads", kUse));
    // Per value head a key_dim x value_dim state: decay (1), S k (2), the
    // delta-rule update (2) and the readout S^T q (2) per element.
    out.linear_attention = 7.0 * heads * s.key_head_dim * s.value_head_dim * tokens * t.linear;
  }
  if (t.mamba > 0) {
    if (!m.mamba) {
      throw InputError("not stated by the model; the mixer compute needs the Mamba-2 shapes",
                       detail::at_model_key(m, "mamba"));
    }
    const MambaSpec& s = *m.mamba;
    const double heads = d(detail::split_by_tp(m, s.heads, tp, "mamba.heads", "Mamba heads", kUse));
    // Per head a head_dim x state_size state: decay (1), the x B^T update (2)
    // and the readout h C (2) per element.
    out.mamba = 5.0 * heads * s.head_dim * s.state_size * tokens * t.mamba;
  }
  return out;
}

}  // namespace

MixerFlops prefill_mixer_flops(const ModelArch& model, int tp, TokenCount context_tokens,
                               TokenCount chunk_tokens) {
  return mixer_flops(model, tp, context_tokens, chunk_tokens, false);
}

MixerFlops decode_mixer_flops(const ModelArch& model, int tp, TokenCount context_tokens) {
  return mixer_flops(model, tp, context_tokens, 1, true);
}

}  // namespace tpnet
