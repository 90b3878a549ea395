#pragma once
// Small model architectures shared by the unit tests.

#include "tpnet/model/model.hpp"

namespace tpnet::test {

/// A two-layer dense GQA model small enough to count by hand: 8 query heads
/// and 2 KV heads of 16, hidden 64, FFN 128, vocabulary 100.
inline ModelArch tiny_dense() {
  ModelArch m;
  m.name = "tiny";
  m.hidden_size = 64;
  m.num_layers = 2;
  m.vocab_size = 100;
  m.num_attention_heads = 8;
  m.num_kv_heads = 2;
  m.head_dim = 16;
  m.intermediate_size = 128;
  return m;
}

}  // namespace tpnet::test
