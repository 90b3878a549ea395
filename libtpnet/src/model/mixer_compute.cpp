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

/// Score and value widths of one query head: 2 x (qk + v) FLOPs per key seen.
struct HeadWidths {
  double qk = 0.0;
  double v = 0.0;
};

HeadWidths head_widths(const ModelArch& m, bool decode) {
  if (m.mla) {
    const MlaSpec& a = *m.mla;
    if (decode) return {to_real(a.kv_lora_rank + a.qk_rope_head_dim), to_real(a.kv_lora_rank)};
    return {to_real(a.qk_nope_head_dim + a.qk_rope_head_dim), to_real(a.v_head_dim)};
  }
  const double head = to_real(effective_head_dim(m));
  return {head, head};
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

MixerFlopsRates::MixerFlopsRates(const ModelArch& m, int tp) {
  require_tp(tp);
  if (m.compressed_attention) {
    // One shared 512-wide key that is also the value: QK^T and PV each head_dim.
    const CompressedAttentionSpec& a = *m.compressed_attention;
    const double heads = to_real(
        detail::split_by_tp(m, m.num_attention_heads, tp, "num_attention_heads", "heads", kUse));
    compressed_ = true;
    prefill_per_key_ = decode_per_key_ = 2.0 * heads * 2.0 * a.head_dim;
    sliding_layers_ = static_cast<int>(a.compress_ratios.size());
    window_ = m.sliding_window;
    top_k_ = m.sparse_attention_top_k.value_or(0);
    for (const int ratio : a.compress_ratios) {
      if (ratio <= 1) continue;
      auto same = std::find_if(compressed_layers_.begin(), compressed_layers_.end(),
                               [&](const auto& r) { return r.first == ratio; });
      if (same == compressed_layers_.end()) {
        compressed_layers_.emplace_back(ratio, 1);
      } else {
        ++same->second;
      }
    }
    if (m.sparse_attention_index_heads > 0 && m.sparse_attention_index_head_dim > 0) {
      sparse_index_per_key_ = 2.0 * to_real(m.sparse_attention_index_heads) *
                              to_real(m.sparse_attention_index_head_dim);
    }
    return;
  }
  const LayerTally t = tally_layers(m);
  attention_layers_ = t.attention;
  sliding_layers_ = t.sliding;
  linear_layers_ = t.linear;
  mamba_layers_ = t.mamba;
  if (t.attention + t.sliding > 0) {
    if (m.attention == AttentionKind::mla && !m.mla) {
      throw InputError("not stated by the model; the mixer compute needs the MLA head shapes",
                       detail::at_model_key(m, "mla"));
    }
    const double heads = to_real(
        detail::split_by_tp(m, m.num_attention_heads, tp, "num_attention_heads", "heads", kUse));
    const HeadWidths prefill = head_widths(m, false);
    const HeadWidths decode = head_widths(m, true);
    prefill_per_key_ = 2.0 * heads * (prefill.qk + prefill.v);
    decode_per_key_ = 2.0 * heads * (decode.qk + decode.v);
    top_k_ = m.sparse_attention_top_k.value_or(0);
    if (t.sliding > 0) {
      if (m.sliding_window <= 0) {
        throw InputError(
            "is not stated; the mixer compute needs the window of the "
            "sliding-window layers",
            detail::at_model_key(m, "sliding_window"));
      }
      window_ = m.sliding_window;
    }
    if (top_k_ > 0 && m.sparse_attention_index_heads > 0 && m.sparse_attention_index_head_dim > 0) {
      // vLLM replicates the indexer on every rank; it scores every earlier key.
      sparse_index_per_key_ = 2.0 * to_real(m.sparse_attention_index_heads) *
                              to_real(m.sparse_attention_index_head_dim);
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
    const double heads =
        to_real(detail::split_by_tp(m, s.value_heads, tp, "linear_attention.value_heads",
                                    "linear-attention value heads", kUse));
    // Per value head a key_dim x value_dim state: decay (1), S k (2), the
    // delta-rule update (2) and the readout S^T q (2) per element.
    linear_per_token_ = 7.0 * heads * s.key_head_dim * s.value_head_dim;
  }
  if (t.mamba > 0) {
    if (!m.mamba) {
      throw InputError("not stated by the model; the mixer compute needs the Mamba-2 shapes",
                       detail::at_model_key(m, "mamba"));
    }
    const MambaSpec& s = *m.mamba;
    const double heads =
        to_real(detail::split_by_tp(m, s.heads, tp, "mamba.heads", "Mamba heads", kUse));
    // Per head a head_dim x state_size state: decay (1), the x B^T update (2)
    // and the readout h C (2) per element.
    mamba_per_token_ = 5.0 * heads * s.head_dim * s.state_size;
  }
}

MixerFlops MixerFlopsRates::flops(TokenCount context, TokenCount chunk, bool decode) const {
  require_chunk(context, chunk);
  MixerFlops out;
  const double tokens = to_real(chunk);
  if (compressed_) {
    // DeepSeek-V4: the window in every layer; a query at position j sees
    // j / r compressed keys (the top-k of them at ratio 4).
    const double per_key = decode ? decode_per_key_ : prefill_per_key_;
    out.sliding_window = per_key * keys_seen(context, chunk, window_) * sliding_layers_;
    for (const auto& [ratio, layers] : compressed_layers_) {
      const bool indexed = ratio == kIndexedCompressRatio && top_k_ > 0;
      const double seen = keys_seen(context, chunk, indexed ? top_k_ * ratio : 0) / ratio;
      out.attention += per_key * seen * layers;
      if (indexed && sparse_index_per_key_ > 0.0) {
        out.sparse_index += sparse_index_per_key_ * keys_seen(context, chunk, 0) / ratio * layers;
      }
    }
    return out;
  }
  if (attention_layers_ + sliding_layers_ > 0) {
    const double per_key = decode ? decode_per_key_ : prefill_per_key_;
    out.attention = per_key * keys_seen(context, chunk, top_k_) * attention_layers_;
    if (sliding_layers_ > 0) {
      out.sliding_window = per_key * keys_seen(context, chunk, window_) * sliding_layers_;
    }
    if (sparse_index_per_key_ > 0.0) {
      out.sparse_index = sparse_index_per_key_ * keys_seen(context, chunk, 0) * attention_layers_;
    }
  }
  if (linear_layers_ > 0) out.linear_attention = linear_per_token_ * tokens * linear_layers_;
  if (mamba_layers_ > 0) out.mamba = mamba_per_token_ * tokens * mamba_layers_;
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
