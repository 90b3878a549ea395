#pragma once
/// The weight GEMMs one node runs in one prefill forward pass under vLLM
/// tensor parallelism: what `tpnet-calibrate gemm` times to measure compute
/// per prompt token (docs/background.md s.9; formulas and conventions in
/// docs/formulas.md s.18).

#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// How vLLM lays a weight over the TP ranks.
enum class GemmSplit {
  column,      ///< ColumnParallelLinear: the output features n are split by TP
  row,         ///< RowParallelLinear: the input features k are split by TP (an all-reduce follows)
  replicated,  ///< ReplicatedLinear: every rank computes the whole GEMM
};

[[nodiscard]] std::string_view to_string(GemmSplit split);

/// One weight GEMM of one node: activations (m x k) times weights (k x n).
struct GemmShape {
  std::string name;  ///< "attn.qkv", "moe.gate_up", ...
  long long m = 0;   ///< rows: tokens of the chunk; for routed experts rows_per_run rounded, >= 1
  long long n = 0;   ///< output features on this node
  long long k = 0;   ///< input features on this node
  long long count = 0;      ///< runs per forward pass on this node, all layers
  double rows_per_run = 0;  ///< exact rows: the chunk, or for routed experts the average
                            ///< chunk x experts_per_token / routed_experts
  double flops = 0.0;       ///< 2 x rows_per_run x n x k x count
  GemmSplit split = GemmSplit::column;
};

/// The weight GEMMs one node runs in one prefill forward of `chunk_tokens`
/// tokens at tensor parallelism `tp`, one entry per distinct GEMM, in the
/// order a layer runs them. Covered: attention projections (GQA/MHA qkv and o;
/// MLA q_a + kv_a fused as vLLM's fused_qkv_a_proj, q_b, kv_b, o; or q and kv_a
/// without a q rank), the DSA indexer's projections, Gated DeltaNet
/// projections, dense FFNs (gate and up fused), the router, routed experts
/// (every expert of a layer sees chunk x experts_per_token / routed_experts
/// tokens on average: the count is experts x MoE layers) and shared experts.
/// Left out: the LM head (prefill computes logits for the last token of each
/// request only), MTP layers, attention scores, the indexer's scoring, the
/// DeltaNet convolution and recurrence, norms and activations.
/// Throws InputError naming the key: a missing shape (moe.expert_intermediate_size,
/// intermediate_size, mla, linear_attention), a dimension TP does not divide
/// (num_attention_heads, num_kv_heads, intermediate_size, ...), `tp` or
/// `chunk_tokens` below 1 (`layout.tp`, `engine.max_num_batched_tokens`).
[[nodiscard]] std::vector<GemmShape> prefill_gemm_shapes(const ModelArch& model, int tp,
                                                         TokenCount chunk_tokens);

/// Sum of the shapes' flops: one node's weight-GEMM work for one forward pass.
[[nodiscard]] double total_flops(const std::vector<GemmShape>& shapes);

/// A routed expert's GEMM (moe.gate_up, moe.up, moe.down and their variants):
/// grouped over the experts, each with a few rows, not one dense GEMM.
[[nodiscard]] bool is_routed_expert_gemm(const GemmShape& shape);

/// total_flops of the routed experts' GEMMs alone.
[[nodiscard]] double routed_expert_flops(const std::vector<GemmShape>& shapes);

}  // namespace tpnet
