#pragma once
// Small model architectures shared by the unit tests, and the views tests
// read a model's shapes through.

#include <stdexcept>

#include "tpnet/model/layer_plan.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet::test {

/// GQA attention of `heads` query and `kv_heads` KV heads of `head_dim`.
inline AttentionSpec gqa(int heads, int kv_heads, int head_dim) {
  AttentionSpec a;
  a.q_heads = heads;
  a.kv_heads = kv_heads;
  a.head_dim = a.v_head_dim = head_dim;
  return a;
}

/// A layer of `attention` (full) and a dense gated FFN of `width`.
inline LayerSpec dense_layer(const AttentionSpec& attention, long long width) {
  LayerSpec layer;
  layer.mixer.attention = attention;
  layer.ffn.width = width;
  return layer;
}

/// A two-layer dense GQA model small enough to count by hand: 8 query heads
/// and 2 KV heads of 16, hidden 64, FFN 128, vocabulary 100.
inline ModelArch tiny_dense() {
  ModelArch m;
  m.name = "tiny";
  m.hidden_size = 64;
  m.vocab_size = 100;
  m.layers.append(dense_layer(gqa(8, 2, 16), 128), 2);
  return m;
}

/// The attention a model is listed by (its first full-attention layer's).
inline const AttentionSpec& attention_of(const ModelArch& m) {
  const AttentionSpec* a = first_attention(m.layers);
  if (a == nullptr) throw std::logic_error(m.name + " has no attention layer");
  return *a;
}

/// The first MoE layer's experts.
inline const MoeSpec& moe_of(const ModelArch& m) {
  const MoeSpec* e = first_moe(m.layers);
  if (e == nullptr) throw std::logic_error(m.name + " has no MoE layer");
  return *e;
}

/// The first layer of `kind`'s mixer.
inline const MixerSpec& mixer_of(const ModelArch& m, Mixer kind) {
  const MixerSpec* mixer = first_mixer(m.layers, kind);
  if (mixer == nullptr) throw std::logic_error(m.name + " has no such layer");
  return *mixer;
}

/// The first dense FFN's width; 0 without dense layers.
inline long long dense_width_of(const ModelArch& m) {
  const auto widths = dense_widths(m.layers);
  return widths.empty() ? 0 : widths.front().first;
}

/// Every layer of `m` with `edit` applied (a test's variant of a model).
template <typename Edit>
ModelArch with_layers(ModelArch m, Edit edit) {
  std::vector<LayerSpec> layers = m.layers.layers();
  for (LayerSpec& layer : layers) edit(layer);
  m.layers = LayerPlan::of(layers);
  return m;
}

}  // namespace tpnet::test
