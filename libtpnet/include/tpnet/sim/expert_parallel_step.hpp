#pragma once
/// One forward of one data-parallel rank of an expert-parallel layout (vLLM's
/// expert parallelism with data-parallel attention: tp ranks inside each DP
/// rank, ep = tp x dp ranks sharing the routed experts, one GPU per node),
/// and the one place every forward is priced through, plain TP or EP
/// (docs/formulas.md s.31.2). Not validated on a Spark: no public
/// measurement of an EP step between Sparks exists that tpnet knows of.

#include <optional>
#include <unordered_map>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/model/weights.hpp"
#include "tpnet/sim/step_cost.hpp"
#include "tpnet/sim/step_schedule.hpp"
#include "tpnet/traffic/expert_alltoall.hpp"

namespace tpnet {

/// Data-parallel ranks beside the engine's TP, with expert parallelism over
/// all of them. One DP rank (the default) is plain TP.
struct ExpertParallel {
  int data_parallel = 1;
  ExpertAllToAllSettings alltoall;
  [[nodiscard]] bool enabled() const { return data_parallel > 1; }
};

/// {tp, 1, tp x dp}: the layout an engine of TP `tp` and `ep` describes.
[[nodiscard]] ParallelLayout expert_parallel_layout(int tp, const ExpertParallel& ep);

/// The weights one node of a DP rank reads in a decode forward of `tokens`
/// tokens on each of `data_parallel` DP ranks: the dense part over tp, and
/// of the E / (tp x dp) routed experts it holds those the EP group's
/// dp x tokens tokens touch, E(1 - (1 - k/E)^n) of E, n = (dp x tokens)^concentration.
[[nodiscard]] Bytes expert_parallel_weight_bytes(const DecodeWeightReads& reads, int tp,
                                                 int data_parallel, TokenCount tokens,
                                                 double concentration = 1.0);

/// A step as priced, with the all-to-alls' share of its communication.
struct PricedForward {
  StepFeatures features;
  StepCommunication communication;
  StepCost cost;
  Seconds alltoall;  ///< the dispatch, combine and TP all-gathers of its MoE layers, before overlap
};

/// Prices every step of one run on one fabric, plain TP or one DP rank of
/// an EP layout. Plain TP: StepFeaturesCache, StepCommunicationCache and
/// price_step, bit for bit. EP (dp > 1): every DP rank is taken to carry as
/// many tokens as this one (vLLM runs the DP ranks in lockstep through the
/// MoE layers, idle ranks on dummy batches); the attention's and dense
/// layers' all-reduces in the TP group, each MoE layer's dispatch and combine
/// over the EP group instead of its all-reduce (expert_alltoall_time), the
/// logits gather in the TP group; the routed experts' GEMMs of the busiest
/// rank (this rank's tokens x k / tp expert copies, times the routing
/// imbalance); decode reads by expert_parallel_weight_bytes. Keeps references
/// to its arguments, which must outlive it.
class StepPricer {
 public:
  /// Throws InputError naming `layout.ep` for EP on a dense model, and
  /// `fabric` for a profile that cannot join every pair of the EP group.
  StepPricer(const ModelArch& model, const EngineConfig& engine, const FabricProfile& fabric,
             const StepCostModel& cost, const ExpertParallel& ep = {});
  [[nodiscard]] PricedForward operator()(const ScheduledStep& step, bool keep_each = false);
  /// The cost model its steps are priced by: the given one, with EP's GEMM
  /// rates and decode reads when dp > 1.
  [[nodiscard]] const StepCostModel& cost() const { return cost_; }

 private:
  /// What an EP step's MoE layers add, by the tokens of the step.
  struct MoeLayers {
    double imbalance = 1.0;
    Seconds alltoall;
    Bytes sent;
    int collectives = 0;
    Bytes dispatch_sent;
    Bytes combine_sent;
    Bytes tp_allgather_sent;
    Seconds dispatch;
    Seconds combine;
    Seconds tp_allgather;
  };
  [[nodiscard]] const MoeLayers& moe_layers(TokenCount tokens);
  [[nodiscard]] StepCommunication ep_communication(const ScheduledStep& step, const MoeLayers& moe,
                                                   bool keep_each);

  const ModelArch& model_;
  const EngineConfig& engine_;
  const FabricProfile& fabric_;
  ExpertParallel ep_;
  StepCostModel cost_;
  StepFeaturesCache features_;
  StepCommunicationCache tp_communication_;
  int moe_layer_count_ = 0;
  int tp_allreduces_ = 0;  ///< per forward, the MoE layers' taken out (EP)
  std::unordered_map<TokenCount, MoeLayers> moe_;
  std::unordered_map<TokenCount, std::pair<Bytes, Seconds>> allreduce_;
  std::unordered_map<TokenCount, std::pair<Bytes, Seconds>> gather_;
};

}  // namespace tpnet
