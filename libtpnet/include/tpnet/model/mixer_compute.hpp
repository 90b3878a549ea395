#pragma once
/// The token-mixing work of a forward pass that the weight GEMMs leave out:
/// attention scores and values over the keys each token sees, the DSA
/// indexer's scores, and the Gated DeltaNet and Mamba-2 state updates, layer
/// by layer from the layer plan (docs/formulas.md s.18.1). Unlike the GEMMs
/// it grows with the context already in the KV cache.

#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// FLOPs one node spends mixing tokens, by kind of layer. A multiply-add
/// counts 2 FLOPs, as in the GEMM counts.
struct MixerFlops {
  double attention = 0.0;         ///< QK^T and PV of full-attention layers (top-k keys under DSA)
  double sliding_window = 0.0;    ///< the same over at most `sliding_window` keys
  double sparse_index = 0.0;      ///< the DSA indexer's scores over every earlier key
  double linear_attention = 0.0;  ///< Gated DeltaNet's state update and readout
  double mamba = 0.0;             ///< Mamba-2's state update and readout
  [[nodiscard]] double total() const {
    return attention + sliding_window + sparse_index + linear_attention + mamba;
  }
};

/// The mixer compute of one model at one TP with the model's shapes checked
/// and its FLOPs per key and per token worked out once: what a scheduler
/// asks of every request in every step (the layer plan is not walked again
/// each time). The same numbers as prefill_mixer_flops and
/// decode_mixer_flops, bit for bit; they are one-off uses of it.
class MixerFlopsRates {
 public:
  /// Throws InputError naming the key for a TP below 1, heads TP does not
  /// divide, or a shape the layers need and the model does not state.
  MixerFlopsRates(const ModelArch& model, int tp);
  /// As prefill_mixer_flops; throws InputError for tokens out of range.
  [[nodiscard]] MixerFlops prefill(TokenCount context_tokens, TokenCount chunk_tokens) const {
    return flops(context_tokens, chunk_tokens, false);
  }
  /// As decode_mixer_flops; throws InputError for tokens out of range.
  [[nodiscard]] MixerFlops decode(TokenCount context_tokens) const {
    return flops(context_tokens, 1, true);
  }

 private:
  [[nodiscard]] MixerFlops flops(TokenCount context, TokenCount chunk, bool decode) const;
  /// Attention layers of one shape and span, with their FLOPs per key seen.
  struct AttentionGroup {
    int layers = 0;
    Mixer kind = Mixer::attention;      ///< attention, sliding_window or chunked_attention
    double prefill_per_key = 0.0;       ///< 2 x heads x (qk + v), prefill's head widths
    double decode_per_key = 0.0;        ///< the same in MLA's absorbed decode form
    long long window = 0;               ///< keys a windowed query sees; a chunk's length
    long long top_k = 0;                ///< keys a DSA query sees; 0 = all
    double sparse_index_per_key = 0.0;  ///< the DSA indexer's FLOPs per key; 0 = none
    int compress_ratio = 0;  ///< DeepSeek-V4: the window, and one key per ratio (> 1) tokens
    /// The same group but for its layer count.
    [[nodiscard]] bool same_rates(const AttentionGroup& o) const {
      return kind == o.kind && prefill_per_key == o.prefill_per_key &&
             decode_per_key == o.decode_per_key && window == o.window && top_k == o.top_k &&
             sparse_index_per_key == o.sparse_index_per_key && compress_ratio == o.compress_ratio;
    }
  };
  /// Recurrent layers of one shape: one layer's state work for a token.
  struct StateGroup {
    int layers = 0;
    double per_token = 0.0;
  };
  std::vector<AttentionGroup> attention_;
  std::vector<StateGroup> linear_;  ///< linear-attention layers
  std::vector<StateGroup> mamba_;   ///< Mamba-2 layers
};

/// DeepSeek-V4 (compressed_attention): every layer attends to its window of
/// uncompressed keys (sliding_window), and a layer of ratio r to its
/// position / r compressed keys (attention), at r = 4 only the top-k of them
/// with the indexer scoring all (sparse_index); K = V = head_dim wide.
/// One request's prefill chunk of `chunk_tokens` tokens after
/// `context_tokens` already in its KV cache, on one node at TP `tp`: each
/// token attends causally to every key up to itself (within the window for
/// sliding layers, the top-k for DSA). MLA is counted in vLLM's prefill
/// form, heads expanded to qk_nope + qk_rope and v_head_dim.
/// Throws InputError naming the key: heads TP does not divide, a shape the
/// layers need and the model does not state, tokens out of range.
[[nodiscard]] MixerFlops prefill_mixer_flops(const ModelArch& model, int tp,
                                             TokenCount context_tokens, TokenCount chunk_tokens);

/// One decode token of one request at `context_tokens` before it. MLA is
/// counted in vLLM's decode form: queries absorbed into the latent, scores
/// over kv_lora_rank + qk_rope, values over kv_lora_rank.
[[nodiscard]] MixerFlops decode_mixer_flops(const ModelArch& model, int tp,
                                            TokenCount context_tokens);

}  // namespace tpnet
