#pragma once
/// The weight GEMMs one node runs in one prefill forward pass under vLLM
/// tensor parallelism: what `tpnet-calibrate gemm` times to measure compute
/// per prompt token (docs/background.md s.9; formulas and conventions in
/// docs/formulas.md s.18).

#include <optional>
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

/// How the routed experts' GEMMs are run: as separate GEMMs, one per expert,
/// or as one grouped (fused-MoE) GEMM per MoE layer whose experts receive
/// their rows as the routing spreads them (docs/formulas.md s.18.2).
enum class ExpertRouting {
  none,     ///< not grouped: one GEMM per expert of the average chunk x top-k / E rows
  uniform,  ///< grouped; every expert gets chunk x top-k / E rows, as evenly as whole rows go
  skewed,   ///< grouped; one expert in kSkewHotEvery gets kSkewHotFactor x the mean rows
            ///< (at most the chunk), the others share the rest as evenly as whole rows go
};

/// The skewed routing case: a stress case chosen, not a measured router.
inline constexpr long long kSkewHotEvery = 8;
inline constexpr long long kSkewHotFactor = 4;

[[nodiscard]] std::string_view to_string(ExpertRouting routing);
/// "none", "uniform" or "skewed"; empty for anything else.
[[nodiscard]] std::optional<ExpertRouting> parse_expert_routing(std::string_view text);

/// Experts of one grouped GEMM that receive the same rows.
struct ExpertBin {
  long long rows = 0;     ///< rows (token-expert pairs) each of these experts multiplies
  long long experts = 0;  ///< how many experts receive that many
  friend bool operator==(const ExpertBin&, const ExpertBin&) = default;
};

/// One weight GEMM of one node: activations (m x k) times weights (k x n).
/// A grouped GEMM runs `groups` experts' GEMMs in one launch: m is then
/// their rows together and `bins` says how they split.
struct GemmShape {
  std::string name;         ///< "attn.qkv", "moe.gate_up", ...
  long long m = 0;          ///< rows: tokens of the chunk; for separate routed experts rows_per_run
                            ///< rounded, >= 1; for a grouped GEMM every expert's rows together
  long long n = 0;          ///< output features on this node
  long long k = 0;          ///< input features on this node
  long long count = 0;      ///< runs per forward pass on this node, all layers
  double rows_per_run = 0;  ///< exact rows: the chunk, or for separate routed experts the
                            ///< average chunk x experts_per_token / routed_experts
  double flops = 0.0;       ///< 2 x rows_per_run x n x k x count
  GemmSplit split = GemmSplit::column;
  ExpertRouting routing = ExpertRouting::none;  ///< none: one GEMM per run
  long long groups = 1;                         ///< GEMMs in one run: the experts with rows
  std::vector<ExpertBin> bins;  ///< a grouped GEMM's experts by rows, most rows first

  [[nodiscard]] bool grouped() const { return routing != ExpertRouting::none; }
};

/// How one MoE layer's `chunk_tokens` x `experts_per_token` token-expert
/// pairs spread over its `routed_experts` experts under `routing` (uniform
/// or skewed), most rows first; experts that receive none are left out (a
/// fused-MoE kernel skips them). Every expert receives at most the chunk
/// (a token picks an expert once) and the rows add up to chunk x top-k.
/// Throws InputError (`moe`) for a count below 1, top-k above the experts,
/// or routing none.
[[nodiscard]] std::vector<ExpertBin> routed_expert_bins(TokenCount chunk_tokens,
                                                        long long experts_per_token,
                                                        long long routed_experts,
                                                        ExpertRouting routing);

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
/// With `grouped` uniform or skewed, each MoE layer's routed experts run as
/// one grouped GEMM instead (count: MoE layers; rows as routed_expert_bins
/// spreads them), as vLLM's and SGLang's fused-MoE kernels run them; the
/// flops are the same either way.
/// Throws InputError naming the key: a missing shape (moe.expert_intermediate_size,
/// intermediate_size, mla, linear_attention), a dimension TP does not divide
/// (num_attention_heads, num_kv_heads, intermediate_size, ...), `tp` or
/// `chunk_tokens` below 1 (`layout.tp`, `engine.max_num_batched_tokens`).
[[nodiscard]] std::vector<GemmShape> prefill_gemm_shapes(
    const ModelArch& model, int tp, TokenCount chunk_tokens,
    ExpertRouting grouped = ExpertRouting::none);

/// Sum of the shapes' flops: one node's weight-GEMM work for one forward pass.
[[nodiscard]] double total_flops(const std::vector<GemmShape>& shapes);

/// A routed expert's GEMM (moe.gate_up, moe.up, moe.down and their variants):
/// grouped over the experts, each with a few rows, not one dense GEMM.
[[nodiscard]] bool is_routed_expert_gemm(const GemmShape& shape);
/// The same, from the GEMM's name alone (a timing file's `gemm` column).
[[nodiscard]] bool is_routed_expert_gemm_name(std::string_view name);

/// total_flops of the routed experts' GEMMs alone.
[[nodiscard]] double routed_expert_flops(const std::vector<GemmShape>& shapes);

}  // namespace tpnet
