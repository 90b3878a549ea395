#include "tpnet/model/compressed_attention.hpp"

#include "tpnet/base/count_math.hpp"

namespace tpnet {
namespace {

/// DeepseekCompressor's coff: ratio-4 compressors project twice the width
/// (overlapping windows), the others once.
double overlap(int ratio) { return ratio == kIndexedCompressRatio ? 2.0 : 1.0; }

/// A compressor of `width`-wide entries: fused_wkv_wgate h -> 2 x coff x
/// width, and its position bias ape, ratio x coff x width.
double compressor_params(double h, int ratio, double width) {
  return h * 2.0 * overlap(ratio) * width + to_real(ratio) * overlap(ratio) * width;
}

bool has_indexer(const ModelArch& m, int ratio) {
  return ratio == kIndexedCompressRatio && m.sparse_attention_index_heads > 0 &&
         m.sparse_attention_index_head_dim > 0;
}

/// FP32 compressor state: overlap x ratio rows of 2 x overlap x width.
double state_bytes(int ratio, double width) {
  constexpr double kStateBytes = 4.0;
  return overlap(ratio) * to_real(ratio) * 2.0 * overlap(ratio) * width * kStateBytes;
}

}  // namespace

CompressedAttentionParams compressed_attention_params(const ModelArch& m, int ratio) {
  CompressedAttentionParams p;
  if (!m.compressed_attention) return p;
  const CompressedAttentionSpec& a = *m.compressed_attention;
  const double h = to_real(m.hidden_size);
  const double heads_width = to_real(m.num_attention_heads) * a.head_dim;
  // wq_b; wo_a's groups each map heads x head_dim / groups to o rank, so the
  // groups together hold heads x head_dim x o rank; wo_b.
  p.split = to_real(a.q_lora_rank) * heads_width + heads_width * a.o_lora_rank +
            to_real(a.o_groups) * a.o_lora_rank * h;
  p.replicated = h * (to_real(a.q_lora_rank) + a.head_dim);
  if (ratio > 1) p.replicated += compressor_params(h, ratio, a.head_dim);
  if (has_indexer(m, ratio)) {
    const double heads = m.sparse_attention_index_heads;
    const double dim = m.sparse_attention_index_head_dim;
    // wq_b from the q latent, weights_proj, and its own compressor of index keys.
    p.replicated +=
        to_real(a.q_lora_rank) * heads * dim + h * heads + compressor_params(h, ratio, dim);
  }
  return p;
}

double hyper_connection_params(const ModelArch& m) {
  if (!m.compressed_attention || m.compressed_attention->hc_mult <= 0) return 0.0;
  const double streams = m.compressed_attention->hc_mult;
  const double wide = streams * to_real(m.hidden_size);
  const double mix = (2.0 + streams) * streams;
  const double per_mixing = mix * wide + mix + 3.0;
  const double head = streams * wide + streams + 1.0;
  return 2.0 * per_mixing * m.num_layers + head;
}

double compressed_kv_entry_bytes(const CompressedAttentionSpec& a) {
  constexpr int kScaleBlock = 64;
  const int nope = a.head_dim - a.qk_rope_head_dim;
  return to_real(nope) + 2.0 * a.qk_rope_head_dim + to_real(nope / kScaleBlock) + 1.0;
}

double compressed_index_entry_bytes(const ModelArch& m) {
  constexpr int kScaleBlock = 128;
  constexpr double kScaleBytes = 4.0;
  const int dim = m.sparse_attention_index_head_dim;
  if (dim <= 0) return 0.0;
  return to_real(dim) + kScaleBytes * to_real((dim + kScaleBlock - 1) / kScaleBlock);
}

double compressor_state_bytes(const ModelArch& m, int ratio) {
  if (!m.compressed_attention || ratio <= 1) return 0.0;
  double bytes = state_bytes(ratio, m.compressed_attention->head_dim);
  if (has_indexer(m, ratio)) bytes += state_bytes(ratio, m.sparse_attention_index_head_dim);
  return bytes;
}

void set_compressed_attention_layers(ModelArch& model, const CompressedAttentionSpec& spec) {
  const int dense = model.moe ? model.moe->first_dense_layers : model.num_layers;
  model.layers.clear();
  model.sliding_window_layers = 0;
  for (int i = 0; i < model.num_layers; ++i) {
    LayerSpec layer;
    layer.mixer = spec.compress_ratios[static_cast<std::size_t>(i)] > 1 ? Mixer::attention
                                                                        : Mixer::sliding_window;
    layer.ffn = i < dense ? FfnKind::dense : FfnKind::moe;
    model.sliding_window_layers += layer.mixer == Mixer::sliding_window ? 1 : 0;
    model.layers.push_back(layer);
  }
}

}  // namespace tpnet
