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

/// FP32 compressor state: overlap x ratio rows of 2 x overlap x width.
double state_bytes(int ratio, double width) {
  constexpr double kStateBytes = 4.0;
  return overlap(ratio) * to_real(ratio) * 2.0 * overlap(ratio) * width * kStateBytes;
}

}  // namespace

bool has_compressed_indexer(const AttentionSpec& a) {
  return a.compressed && a.compression.ratio == kIndexedCompressRatio && a.indexer.heads > 0 &&
         a.indexer.head_dim > 0;
}

CompressedAttentionParams compressed_attention_params(long long hidden, const AttentionSpec& a) {
  CompressedAttentionParams p;
  if (!a.compressed) return p;
  const CompressedAttentionSpec& c = a.compression;
  const double h = to_real(hidden);
  const double heads_width = to_real(a.q_heads) * c.head_dim;
  // wq_b; wo_a's groups each map heads x head_dim / groups to o rank, so the
  // groups together hold heads x head_dim x o rank; wo_b.
  p.split = to_real(c.q_lora_rank) * heads_width + heads_width * c.o_lora_rank +
            to_real(c.o_groups) * c.o_lora_rank * h;
  p.replicated = h * (to_real(c.q_lora_rank) + c.head_dim);
  if (c.ratio > 1) p.replicated += compressor_params(h, c.ratio, c.head_dim);
  if (has_compressed_indexer(a)) {
    const double heads = a.indexer.heads;
    const double dim = a.indexer.head_dim;
    // wq_b from the q latent, weights_proj, and its own compressor of index keys.
    p.replicated +=
        to_real(c.q_lora_rank) * heads * dim + h * heads + compressor_params(h, c.ratio, dim);
  }
  return p;
}

double hyper_connection_params(const ModelArch& m) {
  if (m.hyper_connections <= 0) return 0.0;
  const double streams = m.hyper_connections;
  const double wide = streams * to_real(m.hidden_size);
  const double mix = (2.0 + streams) * streams;
  const double per_mixing = mix * wide + mix + 3.0;
  const double head = streams * wide + streams + 1.0;
  return 2.0 * per_mixing * m.num_layers() + head;
}

double compressed_kv_entry_bytes(const CompressedAttentionSpec& a) {
  constexpr int kScaleBlock = 64;
  const int nope = a.head_dim - a.qk_rope_head_dim;
  return to_real(nope) + 2.0 * a.qk_rope_head_dim + to_real(nope / kScaleBlock) + 1.0;
}

double compressed_index_entry_bytes(const SparseIndexer& indexer) {
  constexpr int kScaleBlock = 128;
  constexpr double kScaleBytes = 4.0;
  const int dim = indexer.head_dim;
  if (dim <= 0) return 0.0;
  return to_real(dim) + kScaleBytes * to_real((dim + kScaleBlock - 1) / kScaleBlock);
}

double compressor_state_bytes(const AttentionSpec& a) {
  if (!a.compressed || a.compression.ratio <= 1) return 0.0;
  double bytes = state_bytes(a.compression.ratio, a.compression.head_dim);
  if (has_compressed_indexer(a)) bytes += state_bytes(a.compression.ratio, a.indexer.head_dim);
  return bytes;
}

}  // namespace tpnet
