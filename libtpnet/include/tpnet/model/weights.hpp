#pragma once
/// The weights each node holds under a parallel layout: the parts vLLM splits
/// over the ranks and the parts every rank holds whole. The one answer to
/// "weights per node" for memory, compare, check, plan and models show
/// (docs/formulas.md s.12.1).

#include <string>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// A part of the weights every rank of a stage holds whole (or, for KV heads,
/// in part) instead of its share.
struct ReplicatedPart {
  std::string name;  ///< "router", "mla_down_projections", "sparse_indexer", "kv_heads"
  WeightPart part = WeightPart::attention;  ///< whose bits per weight it is stored at
  double params = 0.0;                      ///< the part's parameters in the whole model
  double node_params = 0.0;                 ///< what each rank holds of them (its stage's layers)
  Bytes node_bytes;                         ///< node_params at the model's bits per weight
};

struct WeightMemory {
  double total_params = 0.0;  ///< the model's stated total
  std::vector<ReplicatedPart> replicated;
  /// Per rank: (total - replicated parts) x bits / 8, dense parts over tp x pp
  /// and, with expert parallelism, routed experts over ep x pp.
  Bytes split;
  Bytes replicated_bytes;  ///< per rank: the replicated parts' node_params x bits / 8
  /// The routed experts' share of the total used for the EP split; 0 without
  /// EP, or when the model lacks the shapes to estimate it (then every part
  /// splits over tp x pp, which overstates an EP node's weights).
  double routed_expert_share = 0.0;
  /// The whole model's weights by part, at each part's bits (the stated total
  /// spread over the parts as the estimate places them); empty when the shapes
  /// do not give the parts.
  std::vector<std::pair<WeightPart, Bytes>> model_bytes_by_part;
  /// What one node holds of each part (split and replicated together), in the
  /// same order; sums to per_node().
  std::vector<std::pair<WeightPart, Bytes>> node_bytes_by_part;
  /// The MTP layers one rank holds when drafting loads them (apart from the
  /// parts above); 0 otherwise.
  Bytes mtp;

  [[nodiscard]] Bytes per_node() const { return split + replicated_bytes + mtp; }
};

/// The mean bits per weight over the whole model: each part's parameters at
/// its own bits (ModelArch::bits_of); bits_per_weight when the shapes do not
/// place the parts or no part differs.
[[nodiscard]] double effective_bits_per_weight(const ModelArch& model);

/// The weights one token reads (the stated active parameters), in bytes at
/// each part's bits.
[[nodiscard]] Bytes active_weight_bytes(const ModelArch& model);

/// What a decode forward reads as its tokens grow: the active weights, of
/// which `routed` are the routed experts one token reads (k of E per MoE
/// layer). Without the shapes or experts, routed is 0 (docs/formulas.md s.23).
struct DecodeWeightReads {
  Bytes active;  ///< active_weight_bytes
  Bytes routed;  ///< the routed experts' part of it
  int experts = 0;
  int experts_per_token = 0;
};
[[nodiscard]] DecodeWeightReads decode_weight_reads(const ModelArch& model);

/// The weights a forward of `tokens` tokens reads: the routed experts by the
/// distinct experts the tokens touch, E x (1 - (1 - k/E)^n) per layer with
/// n = tokens^concentration (1: each token routed independently and
/// uniformly; below 1, the repetition real routing shows) instead of k; the
/// active weights for one token.
[[nodiscard]] Bytes decode_weight_bytes(const DecodeWeightReads& reads, TokenCount tokens,
                                        double concentration = 1.0);

/// The weights of one node of `layout`: a pipeline stage holds its layers'
/// share (1/pp, the layers spread evenly); within it, dense parts split over
/// tp, routed experts over ep (over tp without EP), and the parts vLLM keeps
/// as ReplicatedLinear (the router, MLA's down-projections, the DSA indexer,
/// and KV heads when tp exceeds them) held whole by every rank. With
/// `with_mtp` (drafting by MTP is on), the MTP layers too, over tp, at the
/// bits the checkpoint stores them in, unless the stated total already
/// holds them (docs/formulas.md s.26.5).
[[nodiscard]] WeightMemory weight_memory(const ModelArch& model, const ParallelLayout& layout,
                                         bool with_mtp = false);

}  // namespace tpnet
