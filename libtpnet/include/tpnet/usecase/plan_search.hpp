#pragma once
/// `tpnet plan`: layouts of a cluster (instances x TP) that fit in memory,
/// the switch plans that carry them at each per-node speed, each layout's
/// TTFT cost for a workload, ranked with a reason per row
/// (docs/formulas.md s.15).

#include <optional>
#include <string>
#include <vector>

#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/fabric/switch_plan.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/usecase/compare.hpp"
#include "tpnet/usecase/memory.hpp"
#include "tpnet/workload/workload.hpp"

namespace tpnet {

/// A TTFT measured on one layout and prompt; `tpnet plan` takes it as
/// measured on the fastest speed considered, as the study measured at 200G.
struct MeasuredTtft {
  ParallelLayout layout;
  Seconds ttft;
  PromptSpec prompt;
};

struct PlanSearchRequest {
  ModelArch model;
  int nodes = 8;
  std::vector<Link> speeds;  ///< per-node link speeds to consider
  Workload workload;
  std::optional<Seconds> ttft_budget;    ///< most extra TTFT a request may gain
  std::optional<MeasuredTtft> baseline;  ///< projection: a measured TTFT to project shares from
  EngineConfig engine;                   ///< tensor_parallel_size is each layout's
  NodeSpec node;
  MemorySettings memory;
  std::vector<SwitchSpec> switches;
};

/// How the nodes are connected at one speed.
struct Fabric {
  std::string description;  ///< "1 x CRS804", "2 x CRS804 joined by 1 x 400G ISL", "direct cable"
  int switches = 0;         ///< 0 for switchless
  BitRate capacity;         ///< data-port capacity of the switches bought: a cost proxy
  std::vector<std::string> alternatives;  ///< other switches that do it with as few switches
  std::optional<SwitchPlan> plan;
  bool instances_stay_local = true;  ///< every instance on one switch: no TP traffic on an ISL
};

struct PlanOption {
  int rank = 0;
  int instances = 0;
  int tp = 0;
  Link speed;
  bool fits_memory = false;
  MemoryReport memory;
  std::optional<Fabric> fabric;  ///< absent: no catalog switch carries the nodes at this speed
  Bytes per_token_bytes;
  /// Against the fastest speed considered, per workload prompt: the worst and the mean.
  Seconds worst_extra_ttft;
  Seconds mean_extra_ttft;
  std::optional<double> worst_ttft_increase;  ///< projected from the baseline
  bool within_budget = true;
  /// Why vLLM refuses this TP for the model (tp_refusal); empty when it runs.
  std::string vllm_refusal;
  bool usable = false;  ///< vLLM runs it, fits memory, has a fabric and stays within the budget
  std::string reason;
};

struct PlanSearchReport {
  Link reference;                        ///< the fastest speed: extra TTFT is counted against it
  std::optional<TtftBaseline> baseline;  ///< the measured TTFT, on `reference`
  std::vector<int> layouts_tried;        ///< TP sizes that divide the nodes
  std::vector<PlanOption> options;       ///< best first
  std::vector<std::string> warnings;
};

/// Throws InputError naming `nodes`, `speeds` or `workload` for fewer than 2
/// nodes, no speeds, or an empty workload.
[[nodiscard]] PlanSearchReport search_plans(const PlanSearchRequest& request);

}  // namespace tpnet
