#pragma once
/// `tpnet plan`: layouts of a cluster (instances x TP) that fit in memory,
/// the switch plans that carry them at each per-node speed, each layout's
/// TTFT cost for a workload, ranked with a reason per row
/// (docs/formulas.md s.15).

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tpnet/fabric/collective_settings.hpp"
#include "tpnet/fabric/cost.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/fabric/switch_plan.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/sim/disaggregation.hpp"
#include "tpnet/usecase/capacity.hpp"
#include "tpnet/usecase/compare.hpp"
#include "tpnet/usecase/document.hpp"
#include "tpnet/usecase/expect.hpp"
#include "tpnet/usecase/memory.hpp"
#include "tpnet/workload/workload.hpp"

namespace tpnet {

/// What `plan` ranks by (docs/formulas.md s.30.3).
enum class PlanObjective {
  automatic,         ///< users_per_dollar with served users, cheapest with a TTFT budget, else
                     ///< fewest_switches
  fewest_switches,   ///< fewest switches, least port capacity, least TTFT loss (the order before
                     ///< prices)
  cheapest,          ///< least priced total among usable options
  users_per_dollar,  ///< most served users per unit of money (needs served users per TP)
  /// Most expected decode tokens/s (kPlanExpectedRequests at once) per unit
  /// of money: what the node's public runs say each layout gives.
  tokens_per_dollar,
  /// Most expected decode tokens/s at kPlanExpectedRequests, whatever it costs.
  throughput,
};
/// "automatic", "fewest-switches", "cheapest", "users-per-dollar",
/// "tokens-per-dollar", "throughput"
[[nodiscard]] std::string_view to_string(PlanObjective objective);
/// The inverse; throws InputError at `where` naming the six.
[[nodiscard]] PlanObjective parse_plan_objective(std::string_view text, const InputLocation& where);

/// The kinds of layout `plan` lays side by side (docs/formulas.md s.30.5).
enum class LayoutFamily {
  tp,             ///< instances x TP: today's plan
  pp,             ///< instances x TP x PP (pp >= 2)
  ep,             ///< instances x (TP inside DP ranks, EP = TP x DP >= 2 TP): MoE only
  disaggregated,  ///< instances x xPyD, both pools at one TP
};
/// "tp", "pp", "ep", "pd"
[[nodiscard]] std::string_view to_string(LayoutFamily family);
/// A comma list of "tp", "pp", "ep", "pd", or "all"; throws InputError at
/// `where` naming them. The result keeps tp first when given and has no repeats.
[[nodiscard]] std::vector<LayoutFamily> parse_layout_families(std::string_view text,
                                                              const InputLocation& where);

struct PlanSearchRequest {
  ModelArch model;
  int nodes = 8;
  std::vector<Link> speeds;       ///< per-node link speeds to consider
  CollectiveSettings collective;  ///< the cluster's NCCL settings, for every speed
  Workload workload;
  std::optional<Seconds> ttft_budget;  ///< most extra TTFT a request may gain
  /// `baseline`: a measured TTFT to project shares from, measured on the
  /// fastest speed considered (as the study measured at 200G). Its link may
  /// be left empty, which means that speed; another rate is refused.
  std::optional<TtftBaseline> baseline;
  EngineConfig engine;  ///< tensor_parallel_size is each layout's
  NodeSpec node;
  MemorySettings memory;
  std::vector<SwitchSpec> switches;
  /// A measured all-reduce sweep of this cluster: prices every fabric (it
  /// measured the one there is). Null: each fabric's built-in profile.
  std::shared_ptr<const Calibration> calibration;
  /// The fabric profiles each fabric is priced on when no calibration is
  /// given: the built-in ones (io/fabric_catalog.hpp), read at the edge.
  std::vector<FabricProfile> fabric_catalog;
  /// Prices to cost each option with; absent: no option is priced.
  std::optional<PriceCatalog> prices;
  /// What reading the prices found to say (a quote for a part no plan bills).
  std::vector<std::string> price_warnings;
  CalendarDate today;  ///< prices seen more than a year before it draw a warning
  PlanObjective objective = PlanObjective::automatic;
  /// Served users of one instance per TP size (a capacity sweep's Little's
  /// law figure): users_per_dollar ranks by instances x these over the cost.
  std::map<int, double> users_per_instance;
  /// Measured sweeps under SLOs (`sweeps`): when users_per_instance is
  /// empty, the users each TP serves come from them (served_users_by_tp).
  std::optional<CapacityRequest> capacity;
  /// Which kinds of layout to rank; beyond tp, each is priced by what the
  /// node's public runs give (ExpectRequest), so the node needs expected rates.
  std::vector<LayoutFamily> families{LayoutFamily::tp};

  /// Families beyond instances x TP were asked for.
  [[nodiscard]] bool beyond_tp() const;
};

/// How the nodes are connected at one speed: what a layout buys, and the
/// profile its TTFT is priced on (docs/formulas.md s.28).
struct Fabric {
  FabricTopology topology = FabricTopology::switched;
  std::string description;  ///< "1 x CRS804", "2 x CRS804 joined by 1 x 400G ISL", "direct cable"
  int switches = 0;         ///< 0 for switchless
  BitRate capacity;         ///< data-port capacity of the switches bought: a cost proxy
  std::vector<std::string> alternatives;  ///< other switches that do it with as few switches
  std::optional<SwitchPlan> plan;
  bool instances_stay_local = true;  ///< every instance on one switch: no TP traffic on an ISL
  /// What the fabric's collectives are priced on; absent for none (TP1).
  std::optional<FabricProfile> profile;
  /// What the topology needs beyond cables (a ring's NCCL settings).
  std::vector<std::string> notes;
  std::string switch_name;        ///< the catalog switch bought; empty for switchless
  std::vector<CableLine> cables;  ///< the bill of cables, switchless layouts' too
};

struct PlanOption {
  int rank = 0;
  int instances = 0;
  int tp = 0;  ///< layout.tp (for xPyD, the prefill instances')
  LayoutFamily family = LayoutFamily::tp;
  ParallelLayout layout;  ///< one instance's; for xPyD, unused beside `disaggregation`
  std::optional<DisaggregationLayout> disaggregation;  ///< set for xPyD
  /// Why the layout cannot run on this fabric or model (EP's all-to-all over
  /// a ring of four, an EP size the experts do not divide by); empty when it can.
  std::string layout_refusal;
  Link speed;
  bool fits_memory = false;
  MemoryReport memory;
  std::optional<Fabric> fabric;  ///< absent: no catalog switch carries the nodes at this speed
  Bytes per_token_bytes;
  /// Against the fastest speed considered, per workload prompt: the worst and the mean.
  Seconds worst_extra_ttft;
  Seconds mean_extra_ttft;
  std::optional<double> worst_ttft_increase;  ///< projected from the baseline
  /// The worst prompt's extra TTFT predicted on the fabric's profile against
  /// the reference profile (a switch at the fastest speed): the scheduler's
  /// steps priced on both (prefill_communication); with no fabric to buy, a
  /// switch's profile at the option's speed; 0 for TP1 (nothing is sent).
  std::optional<Seconds> worst_predicted_extra_ttft;
  bool within_budget = true;
  /// Why vLLM refuses this TP for the model (tp_refusal); empty when it runs.
  std::string vllm_refusal;
  bool usable = false;  ///< vLLM runs it, fits memory, has a fabric and stays within the budget
  std::string reason;
  std::string worst_prompt;  ///< the workload prompt whose extra TTFT is worst_extra_ttft
  std::optional<PlanCost>
      cost;  ///< nodes, switches and cables priced; absent without prices or a fabric
  std::optional<double> users;  ///< instances x served users per instance, when given for this TP
  std::optional<double> users_per_dollar;  ///< users / cost.total, when both are known
  /// What the layout is expected to give from the node's public runs
  /// (tpnet expect): TTFT at the workload's first prompt, decode of one
  /// request alone and of kPlanExpectedRequests at once; absent on a node
  /// without expected rates, or where it does not fit or start.
  std::optional<ExpectLayout> expected;
  /// expected's aggregate decode at kPlanExpectedRequests / cost.total, when both are known.
  std::optional<double> tokens_per_dollar;

  /// Nodes one instance takes (an xPyD group's prefill and decode nodes).
  [[nodiscard]] int nodes_per_instance() const;
  /// "2 x TP4", "1 x TP2xPP2", "2 x TP1xEP2", "2 x 1P1D": as every sentence names it.
  [[nodiscard]] std::string layout_name() const;
  /// Expected aggregate decode tokens/s at kPlanExpectedRequests (typical),
  /// when expected.
  [[nodiscard]] std::optional<double> expected_throughput() const;
};

/// The requests at once a plan's expected aggregate decode is for.
inline constexpr int kPlanExpectedRequests = kSideBySideRequests;

struct PlanSearchReport {
  Link reference;                        ///< the fastest speed: extra TTFT is counted against it
  std::optional<TtftBaseline> baseline;  ///< the measured TTFT, on `reference`
  /// What predicted extras are counted against: a switch at `reference`.
  std::optional<FabricProfile> reference_profile;
  std::vector<int> layouts_tried;   ///< TP sizes that divide the nodes
  std::vector<PlanOption> options;  ///< best first
  std::vector<std::string> warnings;
  PlanObjective objective = PlanObjective::fewest_switches;  ///< the one ranked by, resolved
  /// The request's sweeps judged (capacity), when it had any.
  std::optional<CapacityReport> capacity;
};

/// The answer first: what to buy and run, what it costs, and the extra TTFT
/// of the recommended layout; when none is usable, why the best is not.
[[nodiscard]] std::vector<std::string> plan_answer(const PlanSearchReport& report);

/// The answer, the cluster, the recommendation, every option best first and
/// what the faster link buys: `tpnet plan`'s keys (docs/json.md).
[[nodiscard]] Document plan_document(const PlanSearchRequest& request,
                                     const PlanSearchReport& report);

/// The profile a fabric of `topology` at `speed` prices collectives on, in
/// the order every command uses (choose_fabrics): the calibration's sweep,
/// else the node's profile of that link and topology in `catalog` (the
/// built-in profiles), else nominal with the cluster's NCCL `settings`.
[[nodiscard]] FabricProfile priced_profile(
    const std::vector<FabricProfile>& catalog, FabricTopology topology, const Link& speed,
    const CollectiveSettings& settings, const NodeSpec& node,
    const std::shared_ptr<const Calibration>& calibration = {});

/// The profiles `links` are priced on once `fabric` is bought: each link's
/// priced_profile of the fabric's topology (a switch's for none, as the
/// bound assumes). What report's penalty, decode and predict take, so their
/// TTFT is priced on the fabric plan bought.
[[nodiscard]] std::vector<FabricProfile> priced_profiles(const PlanSearchRequest& request,
                                                         const Fabric& fabric,
                                                         const std::vector<Link>& links);

/// The fabrics a layout of `tp` nodes per instance can buy to join the
/// request's nodes at `speed`, cheapest first, each with the profile its
/// TTFT is priced on: none for one node an instance (replicas exchange nothing over RoCE),
/// a direct cable for two nodes, a ring and the best switch plan side by
/// side for three or four, the best switch plan beyond. Empty when nothing
/// carries them. `plan` and `report` both buy and price through here.
[[nodiscard]] std::vector<Fabric> fabrics_for_layout(const PlanSearchRequest& request, int tp,
                                                     const Link& speed);

/// Served users of one instance per TP size, from measured sweeps judged
/// against SLOs (Little's law, docs/formulas.md s.13): the most any config
/// of that TP serves. Configs whose users are unknown are left out.
[[nodiscard]] std::map<int, double> served_users_by_tp(const CapacityReport& capacity);

/// Between the two speeds of one layout: what the faster link costs and
/// what it saves (docs/formulas.md s.30.4). "200G on 1 x crs804 costs $X more
/// than 100G on 1 x crs812 and saves up to Y s (Z%) of TTFT on 32k prompts".
struct SpeedTrade {
  int instances = 0;
  int tp = 0;
  std::string layout;  ///< the option's layout_name: "2 x TP4"
  LayoutFamily family = LayoutFamily::tp;
  Link slower;
  Link faster;
  std::string slower_fabric;  ///< "1 x crs812"
  std::string faster_fabric;
  PlanCost slower_cost;
  PlanCost faster_cost;
  double extra_cost = 0.0;     ///< faster_cost.total - slower_cost.total, of what is priced
  bool cost_complete = false;  ///< both bills are fully priced
  Seconds ttft_saved;          ///< slower's worst extra TTFT - faster's
  std::optional<double>
      ttft_saved_fraction;           ///< of the slower layout's TTFT, projected from a baseline
  std::string prompt;                ///< the workload prompt where the saving is largest
  std::vector<std::string> sources;  ///< where each price used came from, with its date
  std::string sentence;              ///< the trade in one sentence, with the unpriced items named
};

/// For each layout (instances x TP) usable at two or more speeds, the trade
/// between its slowest and fastest usable speed; needs priced options.
[[nodiscard]] std::vector<SpeedTrade> speed_trades(const PlanSearchReport& report);

/// Throws InputError naming `nodes`, `speeds` or `workload` for fewer than 1
/// node, no speeds, or an empty workload.
[[nodiscard]] PlanSearchReport search_plans(const PlanSearchRequest& request);

}  // namespace tpnet
