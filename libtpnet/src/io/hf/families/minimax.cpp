// MiniMax: M2 (minimax_m2), M3 (minimax_m3_vl, text keys in text_config),
// M1 and Text-01 (minimax_m1, minimax).
//
// Experts are num_local_experts of intermediate_size. M2: attention and
// experts in every layer (vLLM's minimax_m2.py @ fb33ec8c does not read
// attn_type_list). M3 (vLLM's minimax_m3 model.py @ 90215894): moe_layer_freq
// lists one 0/1 per layer, dense layers of dense_intermediate_size, a shared
// expert of intermediate_size per n_shared_experts; the layers
// sparse_attention_config.sparse_attention_freq marks add MiniMax Sparse
// Attention's index branch (sparse_num_index_heads x sparse_index_dim) and
// attend to sparse_topk_blocks blocks of sparse_block_size tokens. M1 /
// Text-01 (vLLM's minimax_text_01.py @ 98370df7): attn_type_list 0 is
// lightning attention (a heads x head_dim x head_dim state per sequence), 1
// softmax attention.

#include <fmt/format.h>

#include "../family_rule.hpp"
#include "../hf_layers.hpp"

namespace tpnet::hf {

namespace minimax_family {

using namespace model_limits;

/// M3's index branch: the blocks it selects, as a top-k, and its heads.
SparseIndexer sparse_attention(const HfObject& config, ModelArch& m) {
  SparseIndexer indexer;
  if (!config.flag("use_sparse_attention").value_or(false)) return indexer;
  const int blocks = config.required("sparse_topk_blocks", 1, kMaxTokens);
  const int block = config.required("sparse_block_size", 1, kMaxTokens);
  indexer.top_k = static_cast<int>(std::min<long long>(1LL * blocks * block, kMaxTokens));
  indexer.heads = config.required("sparse_num_index_heads", 1, kMaxHeads);
  indexer.head_dim = config.required("sparse_index_dim", 1, kMaxWidth);
  (void)config.node("sparse_disable_index_value");
  (void)config.text("sparse_score_type");
  (void)config.integer("sparse_init_block", 0, kMaxTokens);
  (void)config.integer("sparse_local_block", 0, kMaxTokens);
  m.assumptions["sparse_attention_config"] = fmt::format(
      "MiniMax Sparse Attention read as DeepSeek's: each query attends to its top {} blocks of "
      "{} tokens ({} keys), chosen by an indexer of {} heads of {} whose keys are cached in FP8 "
      "beside the full K/V cache.",
      blocks, block, indexer.top_k, indexer.heads, indexer.head_dim);
  return indexer;
}

void read(HfConfig& c, ModelArch& m) {
  c.ignore({"scoring_func", "use_routing_bias", "routed_scaling_factor", "rotary_dim",
            "qk_norm_type", "use_qk_norm", "use_gemma_norm", "swiglu_alpha", "swiglu_limit",
            "router_jitter_noise", "shared_moe_mode", "postnorm", "sliding_window",
            "shared_intermediate_size", "attn_type_list", "moe_intermediate_size",
            "num_mtp_modules", "mtp_transformer_layers", "use_mtp"});
  const std::string& type = c.model_type().empty() ? c.outer_model_type() : c.model_type();
  const int n = layer_count(c);
  AttentionSpec attention = standard_attention(c, m.hidden_size);
  attention.output_gate = c.flag("attention_output_gate").value_or(false);
  const auto moe = read_moe(c);
  if (!moe) c.missing("num_local_experts", " (MiniMax's experts)");
  MoeSpec experts = moe->spec;
  experts.expert_intermediate_size =
      c.required("intermediate_size", 1, kMaxWidth, " (the width of one expert)");
  experts.shared_experts =
      static_cast<int>(c.integer("n_shared_experts", 0, kMaxSharedExperts).value_or(0));
  experts.shared_expert_intermediate_size = 0;

  std::vector<bool> is_moe(static_cast<std::size_t>(n), true);
  std::vector<Mixer> mixers(static_cast<std::size_t>(n), Mixer::attention);
  std::vector<bool> indexed(static_cast<std::size_t>(n), false);
  SparseIndexer indexer;
  long long dense_width = 0;
  LinearAttentionSpec lightning;
  if (type.rfind("minimax_m3", 0) == 0) {
    if (c.has("moe_layer_freq")) is_moe = moe_layers(c, n);
    if (std::find(is_moe.begin(), is_moe.end(), false) != is_moe.end()) {
      dense_width =
          c.required("dense_intermediate_size", 1, kMaxWidth, " (the width of the dense layers)");
    }
    if (c.has("sparse_attention_config")) {
      const HfObject config = c.object("sparse_attention_config");
      indexer = sparse_attention(config, m);
      if (indexer.top_k > 0) {
        indexed = config.layer_flags("sparse_attention_freq", n, "0 or 1");
      }
    }
  } else if (type == "minimax_m1" || type == "minimax") {
    const std::vector<bool> softmax =
        c.layer_flags("attn_type_list", n, "0 (lightning attention) or 1 (softmax attention)");
    for (int i = 0; i < n; ++i) {
      if (!softmax[static_cast<std::size_t>(i)]) {
        mixers[static_cast<std::size_t>(i)] = Mixer::linear_attention;
      }
    }
    lightning.kind = LinearKind::lightning;
    lightning.key_heads = lightning.value_heads = attention.q_heads;
    lightning.key_head_dim = lightning.value_head_dim = attention.head_dim;
  }
  m.layers = plan_of(n, [&](int i) {
    LayerSpec layer;
    layer.mixer.kind = mixers[static_cast<std::size_t>(i)];
    if (layer.mixer.kind == Mixer::linear_attention) {
      layer.mixer.linear = lightning;
    } else {
      layer.mixer.attention = attention;
      if (indexed[static_cast<std::size_t>(i)]) layer.mixer.attention.indexer = indexer;
    }
    layer.ffn = is_moe[static_cast<std::size_t>(i)] ? moe_ffn(experts) : dense_ffn(dense_width);
    return layer;
  });
  // MiniMax counts MTP modules of mtp_transformer_layers each (hf_config.cpp).
  (void)c.integer("num_mtp_modules", 0, kMaxMtpLayers);
}

}  // namespace minimax_family

extern const FamilyRule family_minimax{
    "MiniMax M1 / M2 / M3",
    {"minimax_m2", "minimax_m3", "minimax_m3_vl", "minimax_m1", "minimax"},
    minimax_family::read,
    nullptr,
    {"MiniMaxM2ForCausalLM", "MiniMaxM1ForCausalLM", "MiniMaxText01ForCausalLM"}};

}  // namespace tpnet::hf
