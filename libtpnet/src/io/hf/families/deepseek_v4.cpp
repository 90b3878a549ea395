// DeepSeek-V4 (deepseek_v4): compressed attention, one layer at a time by
// compress_ratios (docs/formulas.md s.8.1; vLLM's deepseek_v4.py @
// 023da1fc828eb07787cf0734a1ba32f0a0f11887 reads the list the same way: its
// first num_hidden_layers entries are the layers, a longer list's rest the
// MTP layers'). A ratio of 0 or 1 keeps the window alone; vLLM runs ratios 4
// and 128 only, ratio 4 choosing its entries with the indexer. The residual
// stream is hc_mult copies (hyper-connections). `expert_dtype: fp4` beside
// an fp8 quantization_config makes the routed experts MXFP4.

#include <fmt/format.h>

#include "../../../base/ascii_case.hpp"
#include "../family_rule.hpp"
#include "../hf_layers.hpp"

namespace tpnet::hf {

namespace deepseek_v4_family {

using namespace model_limits;

void read(HfConfig& c, ModelArch& m) {
  // Routing and numerics; num_hash_layers' first layers route by token hash
  // (their gate's h x experts weights, under 0.01% of the model, are kept).
  c.ignore({"n_group", "topk_group", "topk_method", "scoring_func", "norm_topk_prob",
            "routed_scaling_factor", "ep_size", "num_hash_layers", "hc_eps", "hc_sinkhorn_iters",
            "swiglu_limit", "compress_rope_theta", "expert_dtype"});
  const int n = layer_count(c);
  AttentionSpec attention = standard_attention(c, m.hidden_size);
  CompressedAttentionSpec a;
  a.head_dim = c.required("head_dim", 1, kMaxWidth, " (the compressed attention's head)");
  a.q_lora_rank = c.required("q_lora_rank", 1, kMaxWidth);
  a.qk_rope_head_dim = c.required("qk_rope_head_dim", 0, a.head_dim);
  a.o_lora_rank = c.required("o_lora_rank", 1, kMaxWidth);
  a.o_groups = c.required("o_groups", 1, attention.q_heads);
  if (attention.q_heads % a.o_groups != 0) {
    throw InputError(fmt::format("{} output groups do not divide the {} attention heads",
                                 a.o_groups, attention.q_heads),
                     c.at(c.node("o_groups"), "o_groups"));
  }
  m.hyper_connections = static_cast<int>(c.integer("hc_mult", 1, kMaxHeads).value_or(0));
  const int mtp = read_mtp_layers(c);
  const json::Value* ratios = c.node("compress_ratios");
  const auto listed =
      static_cast<long long>(ratios != nullptr && ratios->is_array() ? ratios->size() : 0);
  if (ratios == nullptr || !ratios->is_array() || (listed != n && listed != n + mtp)) {
    throw InputError(fmt::format("expected a list of one ratio per layer: {} (num_hidden_layers), "
                                 "or {} with the MTP layers",
                                 n, n + mtp),
                     c.at(ratios, "compress_ratios"));
  }
  const int window = sliding_window(c, true, " (every layer's window)");
  const SparseIndexer indexer = read_indexer(c);
  const auto moe = read_moe(c);
  if (moe && moe->spec.expert_intermediate_size <= 0) {
    c.missing("moe_intermediate_size", " (the width of one expert)");
  }
  const std::vector<bool> experts =
      moe ? moe_layers(c, n) : std::vector<bool>(static_cast<std::size_t>(n), false);
  const bool dense = std::find(experts.begin(), experts.end(), false) != experts.end();
  const long long width =
      dense ? c.required("intermediate_size", 1, kMaxWidth, " (the width of the dense FFN)") : 0;
  m.layers = plan_of(n, [&](int i) {
    const json::Value& item = ratios->items()[static_cast<std::size_t>(i)];
    const std::string& written = item.is_number() ? item.text() : std::string();
    const int ratio = written == "0"     ? 0
                      : written == "1"   ? 1
                      : written == "4"   ? 4
                      : written == "128" ? 128
                                         : -1;
    if (ratio < 0) {
      throw InputError(
          "expected compress ratios 0 or 1 (the window alone), 4 or 128, the ratios "
          "vLLM's DeepSeek-V4 attention runs",
          c.at(&item, "compress_ratios"));
    }
    LayerSpec layer;
    layer.mixer.kind = ratio > 1 ? Mixer::attention : Mixer::sliding_window;
    AttentionSpec& spec = layer.mixer.attention;
    spec = attention;
    spec.compressed = true;
    spec.compression = a;
    spec.compression.ratio = ratio;
    spec.head_dim = spec.v_head_dim = a.head_dim;
    spec.window = window;
    if (ratio == kIndexedCompressRatio) spec.indexer = indexer;
    layer.ffn = experts[static_cast<std::size_t>(i)] ? moe_ffn(moe->spec) : dense_ffn(width);
    return layer;
  });
}

/// `expert_dtype: fp4` beside an fp8 quantization_config: the routed experts
/// are MXFP4 (vLLM's DeepseekV4FP8Config picks Mxfp4MoEMethod), 4 bits and
/// an 8-bit scale per 32 values, the rest FP8 blocks. A modelopt file beside
/// config.json describes the checkpoint in full and takes precedence.
void after_precision(HfConfig& c, ModelArch& m, bool modelopt_file) {
  const auto dtype = c.text("expert_dtype");
  if (!dtype || modelopt_file || m.part_bits.count(WeightPart::routed_experts) > 0) return;
  const std::string name = detail::lowercase(*dtype);
  if (name == "fp4") {
    m.part_bits[WeightPart::routed_experts] = 4.25;
    m.assumptions["expert_dtype"] =
        "expert_dtype fp4: routed experts in MXFP4, 4.25 bits per weight (4 bits and an 8-bit "
        "scale per 32), as vLLM's DeepseekV4FP8Config loads them.";
  } else if (name != "fp8") {
    throw InputError("'" + *dtype +
                         "' is not an expert dtype vLLM's DeepSeek-V4 loads; use fp4 "
                         "or fp8",
                     c.at(c.node("expert_dtype"), "expert_dtype"));
  }
}

}  // namespace deepseek_v4_family

extern const FamilyRule family_deepseek_v4{"DeepSeek-V4",
                                           {"deepseek_v4"},
                                           deepseek_v4_family::read,
                                           deepseek_v4_family::after_precision,
                                           {"DeepseekV4ForCausalLM"}};

}  // namespace tpnet::hf
