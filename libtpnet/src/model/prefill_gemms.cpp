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

/// Where a GEMM is listed: by part of the layer, then as a layer runs them
/// (attention's inputs, DeepSeek-V4's compressors and indexer, attention's
/// output, the DSA indexer; then the linear mixers, Mamba, dense FFNs and
/// experts), each distinct GEMM once, at its first appearance.
enum Slot : int {
  kAttentionIn = 0,
  kCompressor = 1,
  kAttentionOut = 2,
  kIndexer = 3,
  kLinear = 10,
  kMamba = 20,
  kDense = 30,
  kMoe = 40,
};

class ShapeList {
 public:
  explicit ShapeList(TokenCount chunk) : chunk_(chunk) {}

  void add(Slot slot, std::string name, std::string_view variant, long long n, long long k,
           long long count, GemmSplit split) {
    add_rows(slot, std::move(name), variant, to_real(chunk_), n, k, count, split);
  }

  /// Runs of the same GEMM add up; another GEMM under a name already taken
  /// (Gemma 4's global layers have their own heads) takes the name with
  /// `variant` after it.
  void add_rows(Slot slot, std::string name, std::string_view variant, double rows, long long n,
                long long k, long long count, GemmSplit split) {
    add_shape(slot, std::move(name), variant, rows, n, k, count, split, {});
  }

  /// One grouped GEMM per run over the experts of `bins`: its rows are theirs together.
  void add_grouped(Slot slot, std::string name, ExpertRouting routing,
                   const std::vector<ExpertBin>& bins, long long n, long long k, long long count,
                   GemmSplit split) {
    long long rows = 0;
    for (const ExpertBin& b : bins) rows += b.rows * b.experts;
    add_shape(slot, std::move(name), "", to_real(rows), n, k, count, split,
              Grouping{routing, bins});
  }

 private:
  struct Grouping {
    ExpertRouting routing = ExpertRouting::none;
    std::vector<ExpertBin> bins;
  };

  void add_shape(Slot slot, std::string name, std::string_view variant, double rows, long long n,
                 long long k, long long count, GemmSplit split, const Grouping& grouping) {
    if (count <= 0) return;
    for (int attempt = 0;; ++attempt) {
      auto it = std::find_if(shapes_.begin(), shapes_.end(),
                             [&](const auto& e) { return e.second.name == name; });
      if (it == shapes_.end()) break;
      GemmShape& s = it->second;
      if (s.n == n && s.k == k && s.rows_per_run == rows && s.split == split &&
          s.routing == grouping.routing && s.bins == grouping.bins) {
        s.count += count;
        s.flops = 2.0 * rows * to_real(n) * to_real(k) * to_real(s.count);
        return;
      }
      name += attempt == 0 ? "." + std::string(variant) : fmt::format("{}", attempt + 1);
    }
    GemmShape s;
    s.name = std::move(name);
    s.rows_per_run = rows;
    s.m = std::max(1LL, std::llround(rows));
    s.n = n;
    s.k = k;
    s.count = count;
    s.flops = 2.0 * rows * to_real(n) * to_real(k) * to_real(count);
    s.split = split;
    s.routing = grouping.routing;
    s.bins = grouping.bins;
    s.groups = 1;
    if (s.grouped()) {
      s.groups = 0;
      for (const ExpertBin& b : s.bins) s.groups += b.experts;
    }
    shapes_.emplace_back(slot, std::move(s));
  }

 public:
  std::vector<GemmShape> take() {
    std::stable_sort(shapes_.begin(), shapes_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<GemmShape> out;
    out.reserve(shapes_.size());
    for (auto& [slot, shape] : shapes_) out.push_back(std::move(shape));
    return out;
  }

 private:
  TokenCount chunk_;
  std::vector<std::pair<Slot, GemmShape>> shapes_;
};

void add_gqa(ShapeList& out, const ModelArch& m, const MixerSpec& mixer, int tp, long long layers) {
  const AttentionSpec& a = mixer.attention;
  const std::string_view variant = to_string(mixer.kind);
  const long long heads = split_by(m, a.q_heads, tp, "num_attention_heads", "heads");
  const long long kv = a.kv_heads;
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
  const long long h = m.hidden_size;
  const long long q = heads * a.head_dim * (a.output_gate ? 2 : 1);
  const long long kv_width =
      a.borrowed_kv ? 0 : kv_per_rank * (a.head_dim + (a.shared_kv ? 0 : a.v_head_dim));
  out.add(kAttentionIn, "attn.qkv", variant, q + kv_width, h, layers, GemmSplit::column);
  out.add(kAttentionOut, "attn.o", variant, h, heads * a.v_head_dim, layers, GemmSplit::row);
}

void add_mla(ShapeList& out, const ModelArch& m, const MixerSpec& mixer, int tp, long long layers) {
  const AttentionSpec& attention = mixer.attention;
  const std::string_view variant = to_string(mixer.kind);
  const MlaSpec& a = attention.mla;
  const long long heads = split_by(m, attention.q_heads, tp, "num_attention_heads", "heads");
  const long long h = m.hidden_size;
  const long long qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
  if (a.q_lora_rank > 0) {
    // vLLM fuses q_a_proj and kv_a_proj_with_mqa into one replicated GEMM.
    out.add(kAttentionIn, "attn.qkv_a", variant,
            a.q_lora_rank + a.kv_lora_rank + a.qk_rope_head_dim, h, layers, GemmSplit::replicated);
    out.add(kAttentionIn, "attn.q_b", variant, heads * qk_head, a.q_lora_rank, layers,
            GemmSplit::column);
  } else {
    out.add(kAttentionIn, "attn.q", variant, heads * qk_head, h, layers, GemmSplit::column);
    out.add(kAttentionIn, "attn.kv_a", variant, a.kv_lora_rank + a.qk_rope_head_dim, h, layers,
            GemmSplit::replicated);
  }
  out.add(kAttentionIn, "attn.kv_b", variant, heads * (a.qk_nope_head_dim + a.v_head_dim),
          a.kv_lora_rank, layers, GemmSplit::column);
  if (attention.output_gate) {
    out.add(kAttentionIn, "attn.g", variant, heads * a.v_head_dim, h, layers, GemmSplit::column);
  }
  out.add(kAttentionOut, "attn.o", variant, h, heads * a.v_head_dim, layers, GemmSplit::row);
}

void add_indexer(ShapeList& out, const ModelArch& m, const AttentionSpec& a, long long layers) {
  if (!a.indexer.scores()) return;
  const long long heads = a.indexer.heads;
  const long long dim = a.indexer.head_dim;
  const long long h = m.hidden_size;
  const long long q_in = a.latent && a.mla.q_lora_rank > 0 ? a.mla.q_lora_rank : h;
  // vLLM's DSA indexer is ReplicatedLinear throughout.
  out.add(kIndexer, "indexer.wq_b", "", heads * dim, q_in, layers, GemmSplit::replicated);
  out.add(kIndexer, "indexer.wk", "", dim, h, layers, GemmSplit::replicated);
  out.add(kIndexer, "indexer.weights", "", heads, h, layers, GemmSplit::replicated);
}

/// DeepSeek-V4's attention as vLLM's DeepseekV4Attention runs it: the fused
/// wq_a + wkv and the compressors replicated, wq_b split by heads, wo_a a
/// batched GEMM per local output group, wo_b row-parallel; the indexer
/// (ratio-4 layers) replicated.
void add_compressed_attention(ShapeList& out, const ModelArch& m, const AttentionSpec& attention,
                              int tp, long long layers) {
  const CompressedAttentionSpec& a = attention.compression;
  const long long heads = split_by(m, attention.q_heads, tp, "num_attention_heads", "heads");
  const long long groups =
      split_by(m, a.o_groups, tp, "compressed_attention.o_groups", "output groups");
  const long long h = m.hidden_size;
  out.add(kAttentionIn, "attn.wqa_wkv", "", a.q_lora_rank + a.head_dim, h, layers,
          GemmSplit::replicated);
  out.add(kAttentionIn, "attn.q_b", "", heads * a.head_dim, a.q_lora_rank, layers,
          GemmSplit::column);
  if (a.ratio > 1) {
    const long long overlap = a.ratio == kIndexedCompressRatio ? 2 : 1;
    out.add(kCompressor, fmt::format("attn.compressor_r{}", a.ratio), "", 2 * overlap * a.head_dim,
            h, layers, GemmSplit::replicated);
    if (has_compressed_indexer(attention)) {
      const long long index_heads = attention.indexer.heads;
      const long long index_dim = attention.indexer.head_dim;
      out.add(kCompressor, "indexer.wq_b", "", index_heads * index_dim, a.q_lora_rank, layers,
              GemmSplit::replicated);
      out.add(kCompressor, "indexer.weights", "", index_heads, h, layers, GemmSplit::replicated);
      out.add(kCompressor, "indexer.compressor", "", 2 * overlap * index_dim, h, layers,
              GemmSplit::replicated);
    }
  }
  // Each group maps its heads' outputs (heads x head_dim / groups) to o rank.
  const long long group_in = static_cast<long long>(attention.q_heads) * a.head_dim / a.o_groups;
  out.add(kAttentionOut, "attn.o_a", "", a.o_lora_rank, group_in, layers * groups,
          GemmSplit::column);
  out.add(kAttentionOut, "attn.o_b", "", h, groups * a.o_lora_rank, layers, GemmSplit::row);
}

void add_linear_attention(ShapeList& out, const ModelArch& m, const LinearAttentionSpec& s, int tp,
                          long long layers) {
  const long long key_heads =
      split_by(m, s.key_heads, tp, "linear_attention.key_heads", "linear-attention key heads");
  const long long value_heads = split_by(m, s.value_heads, tp, "linear_attention.value_heads",
                                         "linear-attention value heads");
  const long long key_dim = key_heads * s.key_head_dim;
  const long long value_dim = value_heads * s.value_head_dim;
  const long long h = m.hidden_size;
  const std::string_view variant = to_string(s.kind);
  switch (s.kind) {
    case LinearKind::kimi_delta: {
      // q, k, v and beta split by heads; the low-rank gates' down projections
      // (f_a, g_a) replicated, their up projections split; a full-rank output
      // gate g split by heads.
      out.add(kLinear, "linear.in_qkv", variant, 2 * key_dim + value_dim, h, layers,
              GemmSplit::column);
      out.add(kLinear, "linear.in_b", variant, value_heads, h, layers, GemmSplit::column);
      const long long low_rank_gates = s.full_rank_output_gate ? 1 : 2;
      out.add(kLinear, "linear.gate_a", variant, low_rank_gates * s.gate_rank, h, layers,
              GemmSplit::replicated);
      out.add(kLinear, "linear.gate_b", variant, low_rank_gates * value_dim, s.gate_rank, layers,
              GemmSplit::column);
      if (s.full_rank_output_gate) {
        out.add(kLinear, "linear.gate", variant, value_dim, h, layers, GemmSplit::column);
      }
      break;
    }
    case LinearKind::lightning:
      out.add(kLinear, "linear.in_qkv", variant, 2 * key_dim + value_dim, h, layers,
              GemmSplit::column);
      out.add(kLinear, "linear.gate", variant, value_dim, h, layers, GemmSplit::column);
      break;
    case LinearKind::gated_deltanet:
      // in_proj_qkvz (q, k, v and the output gate z), in_proj_ba (beta and
      // alpha per value head); the short convolution is not a GEMM.
      out.add(kLinear, "linear.in_qkvz", variant, 2 * key_dim + 2 * value_dim, h, layers,
              GemmSplit::column);
      out.add(kLinear, "linear.in_ba", variant, 2 * value_heads, h, layers, GemmSplit::column);
      break;
  }
  out.add(kLinear, "linear.out", variant, h, value_dim, layers, GemmSplit::row);
}

void add_mamba(ShapeList& out, const ModelArch& m, const MambaSpec& s, int tp, long long layers) {
  const long long heads = split_by(m, s.heads, tp, "mamba.heads", "Mamba heads");
  const long long groups = s.groups % tp == 0 ? s.groups / tp : s.groups;  // else replicated
  const long long inner = heads * s.head_dim;
  const long long h = m.hidden_size;
  // in_proj (z, x, B, C, dt) and out_proj; the convolution and the scan are not GEMMs.
  out.add(kMamba, "mamba.in", "", 2 * inner + 2 * groups * s.state_size + heads, h, layers,
          GemmSplit::column);
  out.add(kMamba, "mamba.out", "", h, inner, layers, GemmSplit::row);
}

void add_dense_ffn(ShapeList& out, const ModelArch& m, const FfnSpec& ffn, int tp,
                   long long layers) {
  const long long width = split_by(m, ffn.width, tp, "intermediate_size", "dense FFN columns");
  if (!ffn.gated) {
    out.add(kDense, "mlp.up", "", width, m.hidden_size, layers, GemmSplit::column);
    out.add(kDense, "mlp.down", "", m.hidden_size, width, layers, GemmSplit::row);
    return;
  }
  out.add(kDense, "mlp.gate_up", "", 2 * width, m.hidden_size, layers, GemmSplit::column);
  out.add(kDense, "mlp.down", "", m.hidden_size, width, layers, GemmSplit::row);
}

void add_moe(ShapeList& out, const ModelArch& m, const FfnSpec& ffn, int tp, TokenCount chunk,
             long long layers, ExpertRouting grouped) {
  const MoeSpec& moe = ffn.moe;
  const long long h = m.hidden_size;
  if (moe.routed_experts <= 0 || moe.experts_per_token <= 0) {
    throw InputError(fmt::format("an MoE layer needs routed_experts and experts_per_token above "
                                 "0; found {} and {}",
                                 moe.routed_experts, moe.experts_per_token),
                     at_key(m, "moe"));
  }
  out.add(kMoe, "moe.router", "", moe.routed_experts, h, layers, GemmSplit::replicated);
  const long long width = split_by(m, moe.expert_intermediate_size, tp,
                                   "moe.expert_intermediate_size", "expert columns");
  // Tokens spread over the experts: on average chunk x top-k / E rows each.
  const double rows = to_real(chunk) * moe.experts_per_token / moe.routed_experts;
  const long long runs = layers * moe.routed_experts;
  const long long in = moe.latent_size > 0 ? moe.latent_size : h;
  if (moe.latent_size > 0) {
    out.add(kMoe, "moe.latent_down", "", moe.latent_size, h, layers, GemmSplit::replicated);
    out.add(kMoe, "moe.latent_up", "", h, moe.latent_size, layers, GemmSplit::replicated);
  }
  if (grouped == ExpertRouting::none) {
    out.add_rows(kMoe, ffn.gated ? "moe.gate_up" : "moe.up", "", rows, (ffn.gated ? 2 : 1) * width,
                 in, runs, GemmSplit::column);
    out.add_rows(kMoe, "moe.down", "", rows, in, width, runs, GemmSplit::row);
  } else {
    // Under TP every rank holds a 1/TP slice of every expert and sees every
    // token, so one grouped GEMM per layer covers all E experts.
    const std::vector<ExpertBin> bins =
        routed_expert_bins(chunk, moe.experts_per_token, moe.routed_experts, grouped);
    out.add_grouped(kMoe, ffn.gated ? "moe.gate_up" : "moe.up", grouped, bins,
                    (ffn.gated ? 2 : 1) * width, in, layers, GemmSplit::column);
    out.add_grouped(kMoe, "moe.down", grouped, bins, in, width, layers, GemmSplit::row);
  }
  if (moe.shared_experts > 0) {
    // vLLM runs the shared experts as one gated MLP of shared_experts x width columns.
    const bool own_width = moe.shared_expert_intermediate_size > 0;
    const long long shared =
        split_by(m, moe.shared_experts * moe.shared_width(), tp,
                 own_width ? "moe.shared_expert_intermediate_size" : "moe.expert_intermediate_size",
                 "shared-expert columns");
    out.add(kMoe, ffn.gated ? "moe.shared_gate_up" : "moe.shared_up", "",
            (ffn.gated ? 2 : 1) * shared, h, layers, GemmSplit::column);
    out.add(kMoe, "moe.shared_down", "", h, shared, layers, GemmSplit::row);
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

std::string_view to_string(ExpertRouting routing) {
  switch (routing) {
    case ExpertRouting::none:
      return "none";
    case ExpertRouting::uniform:
      return "uniform";
    case ExpertRouting::skewed:
      return "skewed";
  }
  return "none";
}

std::optional<ExpertRouting> parse_expert_routing(std::string_view text) {
  for (const ExpertRouting r :
       {ExpertRouting::none, ExpertRouting::uniform, ExpertRouting::skewed}) {
    if (text == to_string(r)) return r;
  }
  return std::nullopt;
}

std::vector<ExpertBin> routed_expert_bins(TokenCount chunk_tokens, long long experts_per_token,
                                          long long routed_experts, ExpertRouting routing) {
  const InputLocation at = InputLocation::for_key("moe");
  if (chunk_tokens < 1 || experts_per_token < 1 || routed_experts < 1) {
    throw InputError(fmt::format("routing needs a chunk, top-k and experts of at least 1; found "
                                 "{}, {} and {}",
                                 chunk_tokens, experts_per_token, routed_experts),
                     at);
  }
  if (experts_per_token > routed_experts) {
    throw InputError(fmt::format("a token picks {} of {} experts; top-k cannot exceed the experts",
                                 experts_per_token, routed_experts),
                     at);
  }
  if (routing == ExpertRouting::none) {
    throw InputError("routing none lists separate GEMMs; bins are for a grouped GEMM", at);
  }
  std::vector<ExpertBin> parts;
  // `experts` experts share `rows` as evenly as whole rows go: rows mod experts
  // of them get one more.
  const auto spread = [&](long long rows, long long experts) {
    if (experts <= 0) return;
    parts.push_back({rows / experts + 1, rows % experts});
    parts.push_back({rows / experts, experts - rows % experts});
  };
  const long long pairs = chunk_tokens * experts_per_token;
  if (routing == ExpertRouting::uniform) {
    spread(pairs, routed_experts);
  } else {
    // Skewed: one expert in kSkewHotEvery (at least one) is hot and gets
    // kSkewHotFactor x the mean, rounded, at most the chunk and at most its
    // share of all the rows; the cold ones share what is left.
    const long long hot =
        std::max(1LL, std::llround(to_real(routed_experts) / static_cast<double>(kSkewHotEvery)));
    const long long hot_rows = std::min({std::llround(static_cast<double>(kSkewHotFactor) *
                                                      to_real(pairs) / to_real(routed_experts)),
                                         static_cast<long long>(chunk_tokens), pairs / hot});
    parts.push_back({hot_rows, hot});
    spread(pairs - hot * hot_rows, routed_experts - hot);
  }
  std::stable_sort(parts.begin(), parts.end(),
                   [](const ExpertBin& a, const ExpertBin& b) { return a.rows > b.rows; });
  std::vector<ExpertBin> bins;
  for (const ExpertBin& p : parts) {
    if (p.rows <= 0 || p.experts <= 0) continue;  // experts with no rows do no work
    if (!bins.empty() && bins.back().rows == p.rows) {
      bins.back().experts += p.experts;
    } else {
      bins.push_back(p);
    }
  }
  return bins;
}

std::vector<GemmShape> prefill_gemm_shapes(const ModelArch& m, int tp, TokenCount chunk_tokens,
                                           ExpertRouting grouped) {
  if (tp < 1) {
    throw InputError(fmt::format("{} is not a TP size; allowed 1 or more", tp),
                     InputLocation::for_key("layout.tp"));
  }
  if (chunk_tokens < 1 || chunk_tokens > kMaxTokens) {
    throw InputError(
        fmt::format("{} tokens is out of range; allowed 1 to {}", chunk_tokens, kMaxTokens),
        InputLocation::for_key("engine.max_num_batched_tokens"));
  }
  if (m.hidden_size <= 0 || m.num_layers() <= 0) {
    throw InputError("the prefill GEMM shapes need hidden_size and num_layers above 0",
                     at_key(m, m.hidden_size <= 0 ? "hidden_size" : "num_layers"));
  }
  if (const auto missing = missing_shapes(m.layers); !missing.empty()) {
    std::string others;
    for (std::size_t i = 1; i < missing.size(); ++i) others += (i == 1 ? "" : ", ") + missing[i];
    throw InputError(fmt::format("not stated by the model{}; the prefill GEMM shapes need every "
                                 "weight's shape (give them in a model YAML file)",
                                 others.empty() ? "" : " (nor " + others + ")"),
                     at_key(m, missing.front()));
  }

  ShapeList out(chunk_tokens);
  for (const LayerRun& run : m.layers.runs()) {
    const MixerSpec& mixer = run.layer.mixer;
    const long long n = run.count;
    if (is_attention(mixer.kind)) {
      // Cross-attention layers run q and o over the text tokens; their k and
      // v over the image tokens are counted as text tokens too (an upper bound).
      if (mixer.attention.compressed) {
        add_compressed_attention(out, m, mixer.attention, tp, n);
      } else if (mixer.attention.latent) {
        add_mla(out, m, mixer, tp, n);
        add_indexer(out, m, mixer.attention, n);
      } else {
        add_gqa(out, m, mixer, tp, n);
        add_indexer(out, m, mixer.attention, n);
      }
    } else if (mixer.kind == Mixer::linear_attention) {
      add_linear_attention(out, m, mixer.linear, tp, n);
    } else if (mixer.kind == Mixer::mamba) {
      add_mamba(out, m, mixer.mamba, tp, n);
    }
    const FfnSpec& ffn = run.layer.ffn;
    if (ffn.kind == FfnKind::dense) {
      add_dense_ffn(out, m, ffn, tp, n);
    } else if (ffn.kind == FfnKind::moe) {
      add_moe(out, m, ffn, tp, chunk_tokens, n, grouped);
    }
  }
  return out.take();
}

double total_flops(const std::vector<GemmShape>& shapes) {
  double sum = 0.0;
  for (const auto& s : shapes) sum += s.flops;
  return sum;
}

bool is_routed_expert_gemm_name(std::string_view gemm) {
  for (const std::string_view name : {"moe.gate_up", "moe.up", "moe.down"}) {
    if (gemm == name || (gemm.substr(0, name.size()) == name && gemm.size() > name.size() &&
                         gemm[name.size()] == '.')) {
      return true;
    }
  }
  return false;
}

bool is_routed_expert_gemm(const GemmShape& shape) {
  return is_routed_expert_gemm_name(shape.name);
}

double routed_expert_flops(const std::vector<GemmShape>& shapes) {
  double flops = 0.0;
  for (const GemmShape& s : shapes) {
    if (is_routed_expert_gemm(s)) flops += s.flops;
  }
  return flops;
}

}  // namespace tpnet
