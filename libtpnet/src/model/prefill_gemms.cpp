#include "tpnet/model/prefill_gemms.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "tp_split.hpp"
#include "tpnet/base/count_math.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/model/compressed_attention.hpp"
#include "tpnet/model/layer_plan.hpp"

namespace tpnet {
namespace {

InputLocation at_key(const ModelArch& m, std::string key) {
  return detail::at_model_key(m, std::move(key));
}

long long split_by(const ModelArch& m, long long value, int tp, const std::string& key,
                   std::string_view what) {
  return detail::split_by_tp(m, value, tp, key, what, "the prefill GEMM shapes");
}

/// Shape keys the GEMMs need but the model does not state (the same keys
/// estimate_params reports as missing, plus head counts).
std::vector<std::string> missing_shapes(const ModelArch& m, int linear_layers, int dense_layers,
                                        int moe_layers) {
  std::vector<std::string> missing;
  if (!m.mla && m.attention == AttentionKind::mla) missing.emplace_back("mla");
  if (linear_layers > 0 && !m.linear_attention) missing.emplace_back("linear_attention");
  const auto widths = dense_widths(m);
  if (dense_layers > 0 &&
      std::any_of(widths.begin(), widths.end(), [](const auto& w) { return w.first <= 0; })) {
    missing.emplace_back("intermediate_size");
  }
  if (moe_layers > 0 && m.moe->expert_intermediate_size <= 0) {
    missing.emplace_back("moe.expert_intermediate_size");
  }
  return missing;
}

class ShapeList {
 public:
  explicit ShapeList(TokenCount chunk) : chunk_(chunk) {}

  void add(std::string name, long long n, long long k, long long count, GemmSplit split) {
    add_rows(std::move(name), to_real(chunk_), n, k, count, split);
  }

  void add_rows(std::string name, double rows, long long n, long long k, long long count,
                GemmSplit split) {
    if (count <= 0) return;
    GemmShape s;
    s.name = std::move(name);
    s.rows_per_run = rows;
    s.m = std::max(1LL, std::llround(rows));
    s.n = n;
    s.k = k;
    s.count = count;
    s.flops = 2.0 * rows * to_real(n) * to_real(k) * to_real(count);
    s.split = split;
    shapes_.push_back(std::move(s));
  }

  std::vector<GemmShape> take() { return std::move(shapes_); }

 private:
  TokenCount chunk_;
  std::vector<GemmShape> shapes_;
};

void add_gqa(ShapeList& out, const ModelArch& m, int tp, long long layers) {
  const long long heads = split_by(m, m.num_attention_heads, tp, "num_attention_heads", "heads");
  const long long kv = m.num_kv_heads > 0 ? m.num_kv_heads : m.num_attention_heads;
  long long kv_per_rank = 1;
  if (kv >= tp) {
    kv_per_rank = split_by(m, kv, tp, "num_kv_heads", "KV heads");
  } else if (tp % kv != 0) {
    // Below one KV head per rank vLLM replicates heads, which needs TP to be a multiple.
    throw InputError(fmt::format("{} KV heads cannot be replicated evenly over TP {}; vLLM needs "
                                 "TP to be a multiple of the KV heads or the KV heads of TP",
                                 kv, tp),
                     at_key(m, "num_kv_heads"));
  }
  const long long head_dim = effective_head_dim(m);
  const long long h = m.hidden_size;
  out.add("attn.qkv", (heads + 2 * kv_per_rank) * head_dim, h, layers, GemmSplit::column);
  out.add("attn.o", h, heads * head_dim, layers, GemmSplit::row);
}

void add_mla(ShapeList& out, const ModelArch& m, int tp, long long layers) {
  const MlaSpec& a = *m.mla;
  const long long heads = split_by(m, m.num_attention_heads, tp, "num_attention_heads", "heads");
  const long long h = m.hidden_size;
  const long long qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
  if (a.q_lora_rank > 0) {
    // vLLM fuses q_a_proj and kv_a_proj_with_mqa into one replicated GEMM.
    out.add("attn.qkv_a", a.q_lora_rank + a.kv_lora_rank + a.qk_rope_head_dim, h, layers,
            GemmSplit::replicated);
    out.add("attn.q_b", heads * qk_head, a.q_lora_rank, layers, GemmSplit::column);
  } else {
    out.add("attn.q", heads * qk_head, h, layers, GemmSplit::column);
    out.add("attn.kv_a", a.kv_lora_rank + a.qk_rope_head_dim, h, layers, GemmSplit::replicated);
  }
  out.add("attn.kv_b", heads * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank, layers,
          GemmSplit::column);
  out.add("attn.o", h, heads * a.v_head_dim, layers, GemmSplit::row);
}

void add_indexer(ShapeList& out, const ModelArch& m, long long layers) {
  const long long heads = m.sparse_attention_index_heads;
  const long long dim = m.sparse_attention_index_head_dim;
  if (heads <= 0 || dim <= 0) return;
  const long long h = m.hidden_size;
  const long long q_in = m.mla && m.mla->q_lora_rank > 0 ? m.mla->q_lora_rank : h;
  // vLLM's DSA indexer is ReplicatedLinear throughout.
  out.add("indexer.wq_b", heads * dim, q_in, layers, GemmSplit::replicated);
  out.add("indexer.wk", dim, h, layers, GemmSplit::replicated);
  out.add("indexer.weights", heads, h, layers, GemmSplit::replicated);
}

/// DeepSeek-V4's attention as vLLM's DeepseekV4Attention runs it: the fused
/// wq_a + wkv and the compressors replicated, wq_b split by heads, wo_a a
/// batched GEMM per local output group, wo_b row-parallel; the indexer
/// (ratio-4 layers) replicated.
void add_compressed_attention(ShapeList& out, const ModelArch& m, int tp) {
  const CompressedAttentionSpec& a = *m.compressed_attention;
  const long long heads = split_by(m, m.num_attention_heads, tp, "num_attention_heads", "heads");
  const long long groups =
      split_by(m, a.o_groups, tp, "compressed_attention.o_groups", "output groups");
  const long long h = m.hidden_size;
  const auto layers = static_cast<long long>(a.compress_ratios.size());
  std::map<int, long long> by_ratio;
  for (const int ratio : a.compress_ratios) {
    if (ratio > 1) ++by_ratio[ratio];
  }
  out.add("attn.wqa_wkv", a.q_lora_rank + a.head_dim, h, layers, GemmSplit::replicated);
  out.add("attn.q_b", heads * a.head_dim, a.q_lora_rank, layers, GemmSplit::column);
  for (const auto& [ratio, count] : by_ratio) {
    const long long overlap = ratio == kIndexedCompressRatio ? 2 : 1;
    out.add(fmt::format("attn.compressor_r{}", ratio), 2 * overlap * a.head_dim, h, count,
            GemmSplit::replicated);
    const long long index_heads = m.sparse_attention_index_heads;
    const long long index_dim = m.sparse_attention_index_head_dim;
    if (ratio == kIndexedCompressRatio && index_heads > 0 && index_dim > 0) {
      out.add("indexer.wq_b", index_heads * index_dim, a.q_lora_rank, count, GemmSplit::replicated);
      out.add("indexer.weights", index_heads, h, count, GemmSplit::replicated);
      out.add("indexer.compressor", 2 * overlap * index_dim, h, count, GemmSplit::replicated);
    }
  }
  // Each group maps its heads' outputs (heads x head_dim / groups) to o rank.
  const long long group_in =
      static_cast<long long>(m.num_attention_heads) * a.head_dim / a.o_groups;
  out.add("attn.o_a", a.o_lora_rank, group_in, layers * groups, GemmSplit::column);
  out.add("attn.o_b", h, groups * a.o_lora_rank, layers, GemmSplit::row);
}

void add_linear_attention(ShapeList& out, const ModelArch& m, int tp, long long layers) {
  const LinearAttentionSpec& s = *m.linear_attention;
  const long long key_heads =
      split_by(m, s.key_heads, tp, "linear_attention.key_heads", "linear-attention key heads");
  const long long value_heads = split_by(m, s.value_heads, tp, "linear_attention.value_heads",
                                         "linear-attention value heads");
  const long long key_dim = key_heads * s.key_head_dim;
  const long long value_dim = value_heads * s.value_head_dim;
  const long long h = m.hidden_size;
  // in_proj_qkvz (q, k, v and the output gate z), in_proj_ba (beta and alpha
  // per value head), out_proj; the short convolution is not a GEMM.
  out.add("linear.in_qkvz", 2 * key_dim + 2 * value_dim, h, layers, GemmSplit::column);
  out.add("linear.in_ba", 2 * value_heads, h, layers, GemmSplit::column);
  out.add("linear.out", h, value_dim, layers, GemmSplit::row);
}

void add_mamba(ShapeList& out, const ModelArch& m, int tp, long long layers) {
  const MambaSpec& s = *m.mamba;
  const long long heads = split_by(m, s.heads, tp, "mamba.heads", "Mamba heads");
  const long long groups = s.groups % tp == 0 ? s.groups / tp : s.groups;  // else replicated
  const long long inner = heads * s.head_dim;
  const long long h = m.hidden_size;
  // in_proj (z, x, B, C, dt) and out_proj; the convolution and the scan are not GEMMs.
  out.add("mamba.in", 2 * inner + 2 * groups * s.state_size + heads, h, layers, GemmSplit::column);
  out.add("mamba.out", h, inner, layers, GemmSplit::row);
}

void add_dense_ffn(ShapeList& out, const ModelArch& m, int tp, long long full_width,
                   long long layers) {
  const long long width = split_by(m, full_width, tp, "intermediate_size", "dense FFN columns");
  if (!m.gated_ffn) {
    out.add("mlp.up", width, m.hidden_size, layers, GemmSplit::column);
    out.add("mlp.down", m.hidden_size, width, layers, GemmSplit::row);
    return;
  }
  out.add("mlp.gate_up", 2 * width, m.hidden_size, layers, GemmSplit::column);
  out.add("mlp.down", m.hidden_size, width, layers, GemmSplit::row);
}

void add_moe(ShapeList& out, const ModelArch& m, int tp, TokenCount chunk, long long layers) {
  const MoeSpec& moe = *m.moe;
  const long long h = m.hidden_size;
  if (moe.routed_experts <= 0 || moe.experts_per_token <= 0) {
    throw InputError(fmt::format("an MoE layer needs routed_experts and experts_per_token above "
                                 "0; found {} and {}",
                                 moe.routed_experts, moe.experts_per_token),
                     at_key(m, "moe"));
  }
  out.add("moe.router", moe.routed_experts, h, layers, GemmSplit::replicated);
  const long long width = split_by(m, moe.expert_intermediate_size, tp,
                                   "moe.expert_intermediate_size", "expert columns");
  // Tokens spread over the experts: on average chunk x top-k / E rows each.
  const double rows = to_real(chunk) * moe.experts_per_token / moe.routed_experts;
  const long long runs = layers * moe.routed_experts;
  const long long in = moe.latent_size > 0 ? moe.latent_size : h;
  if (moe.latent_size > 0) {
    out.add("moe.latent_down", moe.latent_size, h, layers, GemmSplit::replicated);
    out.add("moe.latent_up", h, moe.latent_size, layers, GemmSplit::replicated);
  }
  out.add_rows(m.gated_ffn ? "moe.gate_up" : "moe.up", rows, (m.gated_ffn ? 2 : 1) * width, in,
               runs, GemmSplit::column);
  out.add_rows("moe.down", rows, in, width, runs, GemmSplit::row);
  if (moe.shared_experts > 0) {
    // vLLM runs the shared experts as one gated MLP of shared_experts x width columns.
    const bool own_width = moe.shared_expert_intermediate_size > 0;
    const long long shared_width =
        moe.shared_experts *
        (own_width ? moe.shared_expert_intermediate_size : moe.expert_intermediate_size);
    const long long shared =
        split_by(m, shared_width, tp,
                 own_width ? "moe.shared_expert_intermediate_size" : "moe.expert_intermediate_size",
                 "shared-expert columns");
    out.add(m.gated_ffn ? "moe.shared_gate_up" : "moe.shared_up", (m.gated_ffn ? 2 : 1) * shared, h,
            layers, GemmSplit::column);
    out.add("moe.shared_down", h, shared, layers, GemmSplit::row);
  }
}

}  // namespace

std::string_view to_string(GemmSplit split) {
  switch (split) {
    case GemmSplit::column:
      return "column";
    case GemmSplit::row:
      return "row";
    case GemmSplit::replicated:
      return "replicated";
  }
  return "column";
}

std::vector<GemmShape> prefill_gemm_shapes(const ModelArch& m, int tp, TokenCount chunk_tokens) {
  if (tp < 1) {
    throw InputError(fmt::format("{} is not a TP size; allowed 1 or more", tp),
                     InputLocation::for_key("layout.tp"));
  }
  if (chunk_tokens < 1 || chunk_tokens > kMaxTokens) {
    throw InputError(
        fmt::format("{} tokens is out of range; allowed 1 to {}", chunk_tokens, kMaxTokens),
        InputLocation::for_key("engine.max_num_batched_tokens"));
  }
  if (m.hidden_size <= 0 || m.num_layers <= 0) {
    throw InputError("the prefill GEMM shapes need hidden_size and num_layers above 0",
                     at_key(m, m.hidden_size <= 0 ? "hidden_size" : "num_layers"));
  }
  const LayerTally tally = tally_layers(m);
  const int linear_layers = tally.linear;
  // Cross-attention layers run q and o over the text tokens; their k and v
  // over the image tokens are counted as text tokens too (an upper bound).
  const int attention_layers = tally.attention + tally.sliding + tally.cross;
  const int dense_layers = tally.dense;
  const int moe_layers = m.moe ? tally.moe : 0;

  auto missing = missing_shapes(m, linear_layers, dense_layers, moe_layers);
  if (tally.mamba > 0 && !m.mamba) missing.emplace_back("mamba");
  if (!missing.empty()) {
    std::string others;
    for (std::size_t i = 1; i < missing.size(); ++i) others += (i == 1 ? "" : ", ") + missing[i];
    throw InputError(fmt::format("not stated by the model{}; the prefill GEMM shapes need every "
                                 "weight's shape (give them in a model YAML file)",
                                 others.empty() ? "" : " (nor " + others + ")"),
                     at_key(m, missing.front()));
  }

  ShapeList out(chunk_tokens);
  if (m.compressed_attention) {
    add_compressed_attention(out, m, tp);
  } else if (attention_layers > 0) {
    if (m.mla) {
      add_mla(out, m, tp, attention_layers);
    } else {
      add_gqa(out, m, tp, attention_layers);
    }
    add_indexer(out, m, attention_layers);
  }
  if (linear_layers > 0) add_linear_attention(out, m, tp, linear_layers);
  if (tally.mamba > 0) add_mamba(out, m, tp, tally.mamba);
  for (const auto& [width, count] : dense_widths(m)) add_dense_ffn(out, m, tp, width, count);
  if (moe_layers > 0) add_moe(out, m, tp, chunk_tokens, moe_layers);
  return out.take();
}

double total_flops(const std::vector<GemmShape>& shapes) {
  double sum = 0.0;
  for (const auto& s : shapes) sum += s.flops;
  return sum;
}

}  // namespace tpnet
