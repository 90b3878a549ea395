#pragma once
/// What one scheduled forward pass costs: compute from its tokens and the
/// context they attend to, plus every collective of its block priced on a
/// fabric profile (docs/formulas.md s.23).

#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/kv_cache.hpp"
#include "tpnet/model/mixer_compute.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/model/weights.hpp"
#include "tpnet/sim/step_schedule.hpp"

namespace tpnet {

/// Coefficients of a forward that carries prompt tokens (mixed steps too):
///   compute = per_step + (gemm_flops - expert_flops) x seconds_per_gemm_flop
///           + expert_flops x seconds_per_expert_flop
///           + mixer_flops x seconds_per_mixer_flop
struct PrefillComputeModel {
  Seconds per_step;                     ///< fixed: weights read once a forward, launches
  double seconds_per_gemm_flop = 0.0;   ///< the weight GEMMs (1 / achieved FLOP/s)
  double seconds_per_mixer_flop = 0.0;  ///< attention and the other token mixers
  /// The routed experts' grouped GEMMs at their own rate; unset: at the
  /// GEMMs' (a fit to measured TTFTs prices every GEMM FLOP alike).
  std::optional<double> seconds_per_expert_flop;
};

/// A forward of decodes only (docs/formulas.md s.23):
///   compute = per_step + max((weights read + KV cache read) / (bandwidth x efficiency),
///                            gemm_flops x seconds_per_flop)
/// the weights its tokens read per node (routed experts by the distinct
/// experts they touch), each request's cache as far as its context.
struct DecodeComputeModel {
  DecodeWeightReads reads;
  int tp = 1;
  BitRate memory_bandwidth;
  double efficiency = 1.0;  ///< (0, 1]
  Seconds per_step;         ///< fixed per decode forward (launches, sampling); 0 when fitted
  /// The batch's GEMM work beside its reads (1 / achieved FLOP/s); 0 when fitted.
  double seconds_per_flop = 0.0;
  /// How a batch's tokens spread over the experts (decode_weight_bytes); 1 = uniform.
  double expert_concentration = 1.0;
  /// DP ranks of an expert-parallel layout, each of `tp` nodes: reads by
  /// expert_parallel_weight_bytes (sim/expert_parallel_step.hpp); 1: plain TP.
  int data_parallel = 1;
  /// Reading a forward's weights at the full bandwidth: the time at
  /// efficiency 1.
  [[nodiscard]] Seconds weight_read(TokenCount tokens) const;
};

/// What a step's compute is made of.
struct StepFeatures {
  double gemm_flops = 0.0;         ///< weight GEMMs over every token of the step
  double expert_gemm_flops = 0.0;  ///< of them, the routed experts'
  double mixer_flops = 0.0;        ///< token mixing, by each request's context
  bool has_prefill = false;
  TokenCount tokens = 0;  ///< every token of the step
  /// A decode-only step: the KV cache its requests read, each as far as its
  /// context, on one node (DecodeCacheReads).
  Bytes kv_read;
};

/// One node's GEMM FLOPs per token (prefill_gemm_shapes over a full chunk).
[[nodiscard]] double gemm_flops_per_token(const ModelArch& model, int tp);

/// Of gemm_flops_per_token, the routed experts' GEMMs.
[[nodiscard]] double expert_gemm_flops_per_token(const ModelArch& model, int tp);

/// The step's compute work on one node at TP `tp`.
[[nodiscard]] StepFeatures step_features(const ModelArch& model, int tp, double flops_per_token,
                                         const ScheduledStep& step);

/// step_features for the many steps of one run: the mixer's rates
/// (MixerFlopsRates) worked out at the first step with prompt tokens, not
/// for every request of every step. The same numbers as step_features, bit
/// for bit. Keeps a reference to `model`, which must outlive it.
class StepFeaturesCache {
 public:
  StepFeaturesCache(const ModelArch& model, int tp, double flops_per_token,
                    double expert_flops_per_token = 0.0, int kv_dtype_bytes = 2)
      : model_(model),
        tp_(tp),
        flops_per_token_(flops_per_token),
        expert_flops_per_token_(expert_flops_per_token),
        kv_dtype_bytes_(kv_dtype_bytes) {}
  [[nodiscard]] StepFeatures operator()(const ScheduledStep& step);

 private:
  const ModelArch& model_;
  int tp_;
  double flops_per_token_;
  double expert_flops_per_token_;
  int kv_dtype_bytes_;
  std::optional<MixerFlopsRates> mixer_;  ///< from the first step that mixes prompt tokens
  std::optional<DecodeCacheReads> kv_;    ///< from the first step of decodes only
};

/// The step's collectives on one node.
struct StepCommunication {
  Seconds time;         ///< all of them, one after another
  Bytes sent_per_node;  ///< what each node transmits (and receives)
  int collectives = 0;
  /// Each collective's bytes and time, in the order a forward runs them.
  std::vector<std::pair<Bytes, Seconds>> each;
};

/// The all-reduces of the step's block (allreduces_per_forward of S(tokens))
/// and the vocab-parallel logits all-gather of the tokens sampled (each
/// decode's tokens and each completed prompt's last token), on `fabric`.
[[nodiscard]] StepCommunication step_communication(const ModelArch& model,
                                                   const EngineConfig& engine,
                                                   const FabricProfile& fabric,
                                                   const ScheduledStep& step,
                                                   bool keep_each = false);

/// step_communication for the many steps of one run on one fabric: the
/// all-reduces of a forward counted once, and each collective priced once
/// per size (a step's all-reduce by its tokens, its logits gather by the
/// tokens sampled; a run repeats a few thousand sizes at most). The same
/// numbers as step_communication, bit for bit. Keeps references to its
/// arguments, which must outlive it.
class StepCommunicationCache {
 public:
  StepCommunicationCache(const ModelArch& model, const EngineConfig& engine,
                         const FabricProfile& fabric)
      : model_(model), engine_(engine), fabric_(fabric) {}
  [[nodiscard]] StepCommunication operator()(const ScheduledStep& step, bool keep_each = false);

 private:
  const ModelArch& model_;
  const EngineConfig& engine_;
  const FabricProfile& fabric_;
  std::optional<int> allreduces_;  ///< per forward, from the first step
  /// One all-reduce's bytes sent per node and time, by the step's tokens.
  std::unordered_map<TokenCount, std::pair<Bytes, Seconds>> allreduce_;
  /// The logits gather's bytes sent per node and time, by the tokens sampled.
  std::unordered_map<TokenCount, std::pair<Bytes, Seconds>> gather_;
};

struct StepCostModel {
  PrefillComputeModel prefill;
  DecodeComputeModel decode;
  double flops_per_token = 0.0;         ///< gemm_flops_per_token at the engine's TP
  double expert_flops_per_token = 0.0;  ///< expert_gemm_flops_per_token at the engine's TP
  int kv_dtype_bytes = 2;               ///< what decodes read their KV cache at
  double overlap = 0.0;                 ///< share of communication hidden under compute, [0, 1)
};

struct StepCost {
  Seconds compute;
  Seconds communication;  ///< after overlap
  Seconds total;
};

[[nodiscard]] Seconds compute_seconds(const StepCostModel& cost, const StepFeatures& features);

/// compute + communication x (1 - overlap).
[[nodiscard]] StepCost price_step(const StepCostModel& cost, const StepFeatures& features,
                                  const StepCommunication& comm);

}  // namespace tpnet
