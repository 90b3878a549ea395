// Nemotron-H and Nemotron 3.x (nemotron_h): each layer one block, a Mamba-2
// mixer, attention, a dense MLP or a MoE. The blocks are listed by
// layers_block_type ("mamba", "attention", "mlp", "moe"; transformers'
// configuration_nemotron_h.py @ cfeb552ef0cb77b59ff08da07698ecaad5f7b5ba
// takes the layer count from its length) or by hybrid_override_pattern's
// letters (M, *, -, E), as vLLM's nemotron_h.py @ 00b08dc4 builds them.
// Squared-ReLU MLPs (mlp_hidden_act relu2: two matrices); Mamba-2 shapes from
// mamba_num_heads, mamba_head_dim, ssm_state_size, n_groups, conv_kernel;
// Super's and Ultra's latent MoE (moe_latent_size: the routed experts work
// in that width behind fc1/fc2_latent_proj; router and shared expert at the
// hidden size).

#include <fmt/format.h>

#include "../../../base/ascii_case.hpp"
#include "../family_rule.hpp"
#include "../hf_layers.hpp"

namespace tpnet::hf {

namespace nemotron_h_family {

using namespace model_limits;

enum class Block { mamba, attention, mlp, moe };

std::vector<Block> blocks_from_letters(const HfConfig& c) {
  const json::Value* node = c.node("hybrid_override_pattern");
  if (node == nullptr || !node->is_string()) {
    throw InputError("expected a string of M, *, - and E", c.at(node, "hybrid_override_pattern"));
  }
  std::vector<Block> out;
  for (const char letter : node->text()) {
    switch (letter) {
      case 'M':
        out.push_back(Block::mamba);
        break;
      case '*':
        out.push_back(Block::attention);
        break;
      case '-':
        out.push_back(Block::mlp);
        break;
      case 'E':
        out.push_back(Block::moe);
        break;
      default:
        throw InputError(std::string("'") + letter +
                             "' is not a layer kind; the pattern's are M (Mamba-2), * (attention), "
                             "- (MLP) and E (MoE)",
                         c.at(node, "hybrid_override_pattern"));
    }
  }
  return out;
}

std::vector<Block> blocks_from_names(const HfConfig& c) {
  const json::Value* list = c.node("layers_block_type");
  if (list == nullptr || !list->is_array() || list->size() == 0) {
    throw InputError("expected a list of block kinds: mamba, attention, mlp or moe",
                     c.at(list, "layers_block_type"));
  }
  std::vector<Block> out;
  for (const json::Value& item : list->items()) {
    const std::string name = item.is_string() ? detail::lowercase(item.text()) : "";
    if (name == "mamba") {
      out.push_back(Block::mamba);
    } else if (name == "attention") {
      out.push_back(Block::attention);
    } else if (name == "mlp") {
      out.push_back(Block::mlp);
    } else if (name == "moe") {
      out.push_back(Block::moe);
    } else {
      throw InputError("'" + (item.is_string() ? item.text() : std::string("(not a name)")) +
                           "' is not a block tpnet models; it knows mamba, attention, mlp and moe",
                       c.at(&item, "layers_block_type"));
    }
  }
  return out;
}

void read(HfConfig& c, ModelArch& m) {
  c.ignore({"chunk_size",
            "expand",
            "time_step_rank",
            "time_step_limit",
            "time_step_min",
            "time_step_max",
            "time_step_floor",
            "mamba_hidden_act",
            "mamba_proj_bias",
            "use_conv_bias",
            "use_mamba_kernels",
            "num_logits_to_keep",
            "n_group",
            "topk_group",
            "norm_topk_prob",
            "routed_scaling_factor",
            "moe_shared_expert_overlap",
            "mtp_hybrid_override_pattern",
            "mtp_layers_block_type",
            "rescale_prenorm_residual",
            "residual_in_fp32",
            "sliding_window",
            "partial_rotary_factor"});
  std::vector<Block> blocks;
  const char* list_key = "layers_block_type";
  if (c.has("layers_block_type")) {
    blocks = blocks_from_names(c);
    if (c.has("hybrid_override_pattern") && blocks_from_letters(c) != blocks) {
      throw InputError("disagrees with layers_block_type; give one list of the layers",
                       c.at(c.node("hybrid_override_pattern"), "hybrid_override_pattern"));
    }
  } else if (c.has("hybrid_override_pattern")) {
    blocks = blocks_from_letters(c);
    list_key = "hybrid_override_pattern";
  } else {
    c.missing("layers_block_type", " (or hybrid_override_pattern: Nemotron-H's blocks)");
  }
  const auto n = static_cast<int>(blocks.size());
  if (const auto stated = c.integer("num_hidden_layers", 1, kMaxLayers); stated && *stated != n) {
    throw InputError(fmt::format("has {} layers, num_hidden_layers says {}", n, *stated),
                     c.at(c.node(list_key), list_key));
  }
  const auto count = [&](Block b) { return std::count(blocks.begin(), blocks.end(), b); };
  AttentionSpec attention;
  if (count(Block::attention) > 0) attention = standard_attention(c, m.hidden_size);
  const MambaSpec mamba = count(Block::mamba) > 0 ? read_mamba(c) : MambaSpec{};
  const std::string act = detail::lowercase(c.text("mlp_hidden_act").value_or("relu2"));
  const bool gated = act != "relu2" && act != "relu";
  long long width = 0;
  if (count(Block::mlp) > 0) {
    width = c.required("intermediate_size", 1, kMaxWidth, " (the width of the MLP layers, -)");
  }
  std::optional<MoeSpec> moe;
  if (count(Block::moe) > 0) {
    const auto read = read_moe(c);
    if (!read) c.missing("n_routed_experts", " (the pattern has MoE layers, E)");
    moe = read->spec;
    if (moe->expert_intermediate_size <= 0) {
      c.missing("moe_intermediate_size", " (the width of one expert)");
    }
  }
  if (!c.has("intermediate_size") || count(Block::mlp) == 0) c.ignore({"intermediate_size"});
  m.layers = plan_of(n, [&](int i) {
    LayerSpec layer;
    layer.mixer.kind = Mixer::none;
    layer.ffn.kind = FfnKind::none;
    layer.ffn.gated = gated;
    switch (blocks[static_cast<std::size_t>(i)]) {
      case Block::mamba:
        layer.mixer.kind = Mixer::mamba;
        layer.mixer.mamba = mamba;
        break;
      case Block::attention:
        layer.mixer.kind = Mixer::attention;
        layer.mixer.attention = attention;
        break;
      case Block::mlp:
        layer.ffn = dense_ffn(width, gated);
        break;
      case Block::moe:
        layer.ffn = moe_ffn(*moe, gated);
        break;
    }
    return layer;
  });
}

}  // namespace nemotron_h_family

extern const FamilyRule family_nemotron_h{"Nemotron-H / Nemotron 3",
                                          {"nemotron_h"},
                                          nemotron_h_family::read,
                                          nullptr,
                                          {"NemotronHForCausalLM"}};

}  // namespace tpnet::hf
