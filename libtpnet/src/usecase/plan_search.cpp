#include "tpnet/usecase/plan_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "plan_families.hpp"
#include "tpnet/traffic/transfer_time.hpp"

#include "tpnet/base/limits.hpp"
#include "tpnet/measured/calibration_fabric.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/sim/prefill_communication.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/usecase/predict.hpp"

namespace tpnet {
namespace {

/// The catalog switch plan with the fewest switches, then the least port
/// capacity bought (a cost proxy), then the least oversubscription.
std::optional<Fabric> best_switch(const PlanSearchRequest& in, BitRate speed, bool by_price) {
  std::vector<Fabric> candidates;
  for (const auto& sw : in.switches) {
    const SwitchAnswer answer = answer_for_switch(sw, in.node, in.nodes, speed);
    for (const auto& plan : answer.plans) {
      std::string text = fmt::format("{} x {}", plan.switches, sw.name);
      if (plan.isl) {
        text +=
            fmt::format(" joined by {} x {} ISL", plan.isl->cables(), rate_label(plan.isl->rate));
      }
      Fabric f;
      f.topology = FabricTopology::switched;
      f.description = text;
      f.switches = plan.switches;
      f.capacity = sw.data_port_capacity() * plan.switches;
      f.plan = plan;
      f.switch_name = sw.name;
      f.cables = plan.cables;
      candidates.push_back(std::move(f));
    }
  }
  if (candidates.empty()) return std::nullopt;
  std::stable_sort(candidates.begin(), candidates.end(), [](const Fabric& a, const Fabric& b) {
    if (a.switches != b.switches) return a.switches < b.switches;
    if (a.capacity != b.capacity) return a.capacity < b.capacity;
    return a.plan->oversubscription() < b.plan->oversubscription();
  });
  if (by_price && in.prices) {
    // The cheapest fabric whose whole bill is priced; then those whose
    // switches are priced but a cable is not; then the rest. Nothing of
    // unknown price is ever taken as free.
    struct FabricBill {
      int known = 0;  ///< 2: every line priced, 1: the switches, 0: not even those
      double total = 0.0;
    };
    const auto fabric_cost = [&](const Fabric& f) {
      Purchase bought;
      bought.switch_name = f.switch_name;
      bought.switch_count = f.switches;
      for (const auto& line : f.cables) bought.cables.push_back({line.count, line.description});
      const PlanCost cost = price_purchase(bought, *in.prices, in.today);
      const bool switch_known = !cost.lines.empty() && cost.lines.front().unit_price.has_value();
      return FabricBill{cost.complete ? 2 : switch_known ? 1 : 0, cost.total};
    };
    std::stable_sort(candidates.begin(), candidates.end(), [&](const Fabric& a, const Fabric& b) {
      const FabricBill ca = fabric_cost(a);
      const FabricBill cb = fabric_cost(b);
      if (ca.known != cb.known) return ca.known > cb.known;
      return ca.known > 0 && ca.total < cb.total;
    });
  }
  Fabric best = candidates.front();
  const auto switches_cost = [&](const Fabric& f) -> std::optional<double> {
    const Price* price =
        in.prices ? in.prices->find(PricedKind::switch_model, f.switch_name) : nullptr;
    if (price == nullptr || !price->amount) return std::nullopt;
    return *price->amount * f.switches;
  };
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    if (candidates[i].switches != best.switches ||
        candidates[i].plan->switch_name == best.plan->switch_name) {
      continue;
    }
    // Ranked by money, an alternative is one that costs the same.
    const auto cost = switches_cost(candidates[i]);
    if (by_price && in.prices && !(cost && cost == switches_cost(best))) continue;
    best.alternatives.push_back(candidates[i].plan->switch_name);
  }
  return best;
}

/// Every instance sits on one switch when the switches hold whole instances.
bool instances_local(const Fabric& fabric, int tp) {
  if (!fabric.plan || fabric.plan->units.empty()) return true;
  for (const auto& unit : fabric.plan->units) {
    if (unit.nodes % tp != 0) return false;
  }
  return true;
}

PlanObjective resolve_objective(const PlanSearchRequest& in) {
  if (in.objective != PlanObjective::automatic) return in.objective;
  // Layouts of different kinds differ in what they serve, not in what they
  // buy: ranked by what they are expected to give.
  if (in.beyond_tp()) {
    return in.prices ? PlanObjective::tokens_per_dollar : PlanObjective::throughput;
  }
  if (!in.users_per_instance.empty() && in.prices) return PlanObjective::users_per_dollar;
  if (in.ttft_budget && in.prices) return PlanObjective::cheapest;
  return PlanObjective::fewest_switches;
}

std::string describe_reason(const PlanOption& r, const PlanOption* best_same_speed_tp,
                            const PlanSearchReport& report) {
  if (r.family != LayoutFamily::tp) return plan_detail::describe_beyond_tp(r, report);
  if (!r.vllm_refusal.empty()) return r.vllm_refusal;
  if (!r.fits_memory) return fmt::format("TP{} does not fit: {}", r.tp, r.memory.fit_summary);
  if (!r.fabric) {
    return fmt::format("no catalog switch carries {} nodes at {}", r.instances * r.tp,
                       r.speed.name);
  }
  if (r.fabric->topology == FabricTopology::none) {
    std::string text =
        r.instances == 1
            ? std::string("1 x TP1 on one node, no fabric to buy")
            : fmt::format(
                  "{} x TP1 replicas, no fabric to buy (they exchange nothing over RoCE; "
                  "a load balancer's ordinary network reaches them)",
                  r.instances);
    text += ": no TTFT loss against the fastest link";
    text += r.instances > 1 ? fmt::format("; {} instances keep serving if one fails", r.instances)
                            : std::string("; one instance is a single point of failure");
    return text;
  }
  std::string text =
      fmt::format("{} x TP{} on {} at {}", r.instances, r.tp, r.fabric->description, r.speed.name);
  if (!r.fabric->alternatives.empty()) {
    text += " (or";
    for (std::size_t i = 0; i < r.fabric->alternatives.size(); ++i) {
      text += (i == 0 ? " " : ", ");
      text += r.fabric->alternatives[i];
    }
    text += ")";
  }
  // What the ranking weighs first: the fabric's cost.
  if (r.fabric->switches == 0) {
    text += ", no switch to buy";
  } else {
    text += fmt::format(", {} switch{} with {} of data ports bought", r.fabric->switches,
                        r.fabric->switches == 1 ? "" : "es", rate_label(r.fabric->capacity));
  }
  if (r.fabric->topology == FabricTopology::ring) {
    // Only a communicator spanning the ring needs the missing diagonal; a
    // TP2 pair of neighbours talks over its own cable.
    text += r.tp > 3 ? " but a ring-only NCCL build (stock NCCL's tree needs the missing diagonal)"
                     : " but NCCL's subnet-aware routing (NCCL_IB_SUBNET_AWARE_ROUTING=1)";
  }
  const bool predicted_loss =
      r.worst_predicted_extra_ttft && r.worst_predicted_extra_ttft->value() > 0.005;
  if (r.worst_extra_ttft.value() <= 0.0) {
    text += predicted_loss ? ": the fastest link's nominal rate"
                           : ": no TTFT loss against the fastest link";
  } else {
    text += fmt::format(": at most +{:.2f} s TTFT per request against {}",
                        r.worst_extra_ttft.value(), report.reference.name);
    if (r.worst_ttft_increase) text += fmt::format(" ({:+.1f}%)", *r.worst_ttft_increase * 100.0);
  }
  // The reference's own option would be priced against itself: +0.00 s says nothing.
  if (r.tp > 1 && r.worst_predicted_extra_ttft && r.fabric->profile && report.reference_profile &&
      r.fabric->profile->name != report.reference_profile->name) {
    text +=
        fmt::format("; predicted {:+.2f} s on {} against {}", r.worst_predicted_extra_ttft->value(),
                    r.fabric->profile->name, report.reference_profile->name);
  }
  if (best_same_speed_tp != nullptr && best_same_speed_tp->tp < r.tp &&
      best_same_speed_tp->worst_extra_ttft.value() > 0.0) {
    const PlanOption& smaller = *best_same_speed_tp;
    if (r.worst_ttft_increase && smaller.worst_ttft_increase) {
      text += fmt::format("; TP{} loses {:.1f}x the share of TTFT that TP{} loses", r.tp,
                          *r.worst_ttft_increase / *smaller.worst_ttft_increase, smaller.tp);
    } else {
      text += fmt::format(
          "; TP{} sends {:.2f}x TP{}'s bytes with {:.0f}x less compute per node, so its share "
          "of TTFT grows faster (a measured `projection.ttft` quantifies it)",
          r.tp, r.worst_extra_ttft / smaller.worst_extra_ttft, smaller.tp,
          static_cast<double>(r.tp) / smaller.tp);
    }
  }
  if (r.instances > 1) {
    text += fmt::format("; {} instances keep serving if one fails", r.instances);
    if (r.fabric->switches > 1 && r.fabric->instances_stay_local) {
      text += ", and each sits on its own switch so no TP traffic crosses the ISL";
    }
  } else {
    text += "; one instance is a single point of failure";
  }
  if (!r.within_budget) text += "; exceeds the TTFT budget";
  return text;
}

/// Reorders the options (already in fewest-switches order, which breaks
/// every tie) by the objective: usable first, then the priced total or the
/// users per dollar (docs/formulas.md s.30.3).
void rank_by_objective(PlanObjective objective, std::vector<PlanOption>& options) {
  if (objective == PlanObjective::cheapest) {
    // A part without a price is never free: an option that lacks one ranks
    // after every option whose whole bill is priced, whatever its partial sum.
    // Among bills with a gap, one whose switches are priced (only cables
    // missing) comes before one with a switch of unknown price.
    const auto priced = [](const PlanOption& o) { return o.cost && o.cost->complete; };
    const auto switches_priced = [](const PlanOption& o) {
      return o.cost &&
             std::none_of(o.cost->lines.begin(), o.cost->lines.end(), [](const CostLine& l) {
               return l.kind == PricedKind::switch_model && !l.unit_price;
             });
    };
    std::stable_sort(options.begin(), options.end(), [&](const PlanOption& a, const PlanOption& b) {
      if (a.usable != b.usable) return a.usable;
      if (priced(a) != priced(b)) return priced(a);
      if (switches_priced(a) != switches_priced(b)) return switches_priced(a);
      if (a.cost.has_value() != b.cost.has_value()) return a.cost.has_value();
      return a.cost && a.cost->total < b.cost->total;
    });
  } else if (objective == PlanObjective::tokens_per_dollar ||
             objective == PlanObjective::throughput) {
    // Per dollar where the bill is complete; the rest (a part without a
    // price is never free) after them, by what they are expected to give.
    std::stable_sort(options.begin(), options.end(), [&](const PlanOption& a, const PlanOption& b) {
      if (a.usable != b.usable) return a.usable;
      if (objective == PlanObjective::tokens_per_dollar) {
        if (a.tokens_per_dollar.has_value() != b.tokens_per_dollar.has_value()) {
          return a.tokens_per_dollar.has_value();
        }
        if (a.tokens_per_dollar) return *a.tokens_per_dollar > *b.tokens_per_dollar;
      }
      const auto ta = a.expected_throughput();
      const auto tb = b.expected_throughput();
      if (ta.has_value() != tb.has_value()) return ta.has_value();
      return ta && *ta > *tb;
    });
  } else if (objective == PlanObjective::users_per_dollar) {
    std::stable_sort(options.begin(), options.end(), [](const PlanOption& a, const PlanOption& b) {
      if (a.usable != b.usable) return a.usable;
      if (a.users_per_dollar.has_value() != b.users_per_dollar.has_value()) {
        return a.users_per_dollar.has_value();
      }
      return a.users_per_dollar && *a.users_per_dollar > *b.users_per_dollar;
    });
  }
}

/// What the ranking by money could not see: prices unknown, or old.
void add_price_warnings(PlanSearchReport& report, const PlanSearchRequest& in) {
  if (!in.prices) return;
  std::vector<std::string> unpriced;
  std::vector<std::string> stale;
  for (const auto& r : report.options) {
    if (!r.usable || !r.cost) continue;
    for (const auto& line : r.cost->lines) {
      const std::string item = fmt::format("{} {}", to_string(line.kind), line.item);
      auto& list = line.unit_price ? stale : unpriced;
      if (line.unit_price && !line.stale) continue;
      const std::string entry =
          line.unit_price ? fmt::format("{} (seen {})", item, line.seen->text()) : item;
      if (std::find(list.begin(), list.end(), entry) == list.end()) list.push_back(entry);
    }
  }
  const auto joined = [](const std::vector<std::string>& items) {
    std::string text;
    for (std::size_t i = 0; i < items.size(); ++i) text += (i == 0 ? "" : ", ") + items[i];
    return text;
  };
  if (!unpriced.empty()) {
    report.warnings.push_back(fmt::format(
        "no known price for {}: costs count only what is priced{}; give a quote with a price file",
        joined(unpriced),
        report.objective == PlanObjective::fewest_switches ? "" : ", and so does the ranking"));
  }
  if (!stale.empty()) {
    report.warnings.push_back(fmt::format("prices older than a year on {}: {}; check them",
                                          in.today.text(), joined(stale)));
  }
  if (report.objective == PlanObjective::tokens_per_dollar &&
      std::none_of(report.options.begin(), report.options.end(),
                   [](const PlanOption& r) { return r.tokens_per_dollar.has_value(); })) {
    report.warnings.emplace_back(
        "no option has both an expected throughput and a complete price: tokens per dollar "
        "ranks none");
  }
  if (report.objective == PlanObjective::users_per_dollar &&
      std::none_of(report.options.begin(), report.options.end(),
                   [](const PlanOption& r) { return r.users_per_dollar.has_value(); })) {
    report.warnings.emplace_back(
        "no option has both served users and a complete price: users per dollar ranks none");
  }
}

}  // namespace

FabricProfile priced_profile(const std::vector<FabricProfile>& catalog, FabricTopology topology,
                             const Link& speed, const CollectiveSettings& settings,
                             const NodeSpec& node,
                             const std::shared_ptr<const Calibration>& calibration) {
  // The same order as choose_fabrics with nothing asked: the cluster's own
  // measured sweep, then the built-in profile of this topology, then nominal.
  if (calibration && calibration->allreduce) {
    return calibration_fabric(*calibration, speed);
  }
  return default_fabric(catalog, speed, settings, node.name, topology);
}

std::vector<FabricProfile> priced_profiles(const PlanSearchRequest& in, const Fabric& fabric,
                                           const std::vector<Link>& links) {
  const FabricTopology topology =
      fabric.topology == FabricTopology::none ? FabricTopology::switched : fabric.topology;
  std::vector<FabricProfile> out;
  out.reserve(links.size());
  for (const auto& link : links)
    out.push_back(
        priced_profile(in.fabric_catalog, topology, link, in.collective, in.node, in.calibration));
  return out;
}

std::vector<Fabric> fabrics_for_layout(const PlanSearchRequest& in, int tp, const Link& speed) {
  std::vector<Fabric> out;
  if (tp == 1) {
    // Replicas behind a load balancer: no collective crosses RoCE.
    Fabric none;
    none.topology = FabricTopology::none;
    none.description = in.nodes == 1 ? "none: one node" : "none: TP1 replicas exchange nothing";
    out.push_back(std::move(none));
    return out;
  }
  for (const auto& option : switchless_options(in.node, in.nodes)) {
    if (option.cables == 0 || !(option.link_rate >= speed.rate)) continue;
    const bool ring = option.nodes > 2;
    // A ring is bought to run its cables at the port's rate (no breakout, no
    // switch): at a slower speed it is nothing anyone measured or would cable.
    if (ring && !same_rate(option.link_rate, speed.rate)) continue;
    Fabric f;
    f.topology = ring ? FabricTopology::ring : FabricTopology::direct;
    f.description = fmt::format("{} ({} x {})", option.topology, option.cables, option.cable);
    f.notes = option.notes;
    f.cables = {CableLine{option.cables, option.cable}};
    out.push_back(std::move(f));
  }
  // Two nodes never need a switch; three or four weigh one against the ring.
  if (in.nodes > 2) {
    if (auto sw =
            best_switch(in, speed.rate, resolve_objective(in) != PlanObjective::fewest_switches)) {
      out.push_back(std::move(*sw));
    }
  }
  for (auto& f : out) {
    f.profile = priced_profile(in.fabric_catalog, f.topology, speed, in.collective, in.node,
                               in.calibration);
    for (const auto& setting : f.profile->nccl_settings) f.notes.push_back("NCCL: " + setting);
  }
  return out;
}

std::string_view to_string(PlanObjective objective) {
  switch (objective) {
    case PlanObjective::automatic:
      return "automatic";
    case PlanObjective::fewest_switches:
      return "fewest-switches";
    case PlanObjective::cheapest:
      return "cheapest";
    case PlanObjective::users_per_dollar:
      return "users-per-dollar";
    case PlanObjective::tokens_per_dollar:
      return "tokens-per-dollar";
    case PlanObjective::throughput:
      return "throughput";
  }
  return "automatic";
}

PlanObjective parse_plan_objective(std::string_view text, const InputLocation& where) {
  for (const auto objective : {PlanObjective::automatic, PlanObjective::fewest_switches,
                               PlanObjective::cheapest, PlanObjective::users_per_dollar,
                               PlanObjective::tokens_per_dollar, PlanObjective::throughput}) {
    if (text == to_string(objective)) return objective;
  }
  throw InputError(fmt::format("'{}' is not an objective; use automatic, fewest-switches, "
                               "cheapest, users-per-dollar, tokens-per-dollar or throughput",
                               text),
                   where);
}

std::string_view to_string(LayoutFamily family) {
  switch (family) {
    case LayoutFamily::tp:
      return "tp";
    case LayoutFamily::pp:
      return "pp";
    case LayoutFamily::ep:
      return "ep";
    case LayoutFamily::disaggregated:
      return "pd";
  }
  return "tp";
}

std::vector<LayoutFamily> parse_layout_families(std::string_view text, const InputLocation& where) {
  constexpr LayoutFamily kAll[] = {LayoutFamily::tp, LayoutFamily::pp, LayoutFamily::ep,
                                   LayoutFamily::disaggregated};
  if (text == "all") return {std::begin(kAll), std::end(kAll)};
  std::vector<LayoutFamily> asked;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view name = text.substr(start, comma - start);
    const auto* found = std::find_if(std::begin(kAll), std::end(kAll),
                                     [&](LayoutFamily f) { return to_string(f) == name; });
    if (found == std::end(kAll)) {
      throw InputError(fmt::format("'{}' is not a kind of layout; use a comma list of tp, pp, ep "
                                   "and pd, or all",
                                   name),
                       where);
    }
    if (std::find(asked.begin(), asked.end(), *found) == asked.end()) asked.push_back(*found);
    start = comma + 1;
  }
  // The order plan lays them out in, whatever order they were named in.
  std::sort(asked.begin(), asked.end());
  return asked;
}

bool PlanSearchRequest::beyond_tp() const {
  return std::any_of(families.begin(), families.end(),
                     [](LayoutFamily f) { return f != LayoutFamily::tp; });
}

int PlanOption::nodes_per_instance() const {
  if (disaggregation) return disaggregation->nodes();
  return family == LayoutFamily::tp ? tp : layout.nodes();
}

std::string PlanOption::layout_name() const {
  if (disaggregation) return fmt::format("{} x {}", instances, disaggregation->name());
  if (family == LayoutFamily::tp) return fmt::format("{} x TP{}", instances, tp);
  return fmt::format("{} x {}", instances, layout.name());
}

std::optional<double> PlanOption::expected_throughput() const {
  if (!expected || expected->decode.empty()) return std::nullopt;
  return expected->decode.back().aggregate.typical;
}

namespace {

PlanSearchReport search_layouts(const PlanSearchRequest& in) {
  const ModelArch& model = in.model;
  if (in.nodes < 1 || in.nodes > kMaxClusterNodes) {
    throw InputError(
        fmt::format("{} is not allowed; plan 1 to {} nodes", in.nodes, kMaxClusterNodes),
        InputLocation::for_key("nodes"));
  }
  if (in.speeds.empty())
    throw InputError("give at least one speed", InputLocation::for_key("speeds"));
  if (in.workload.prompts.empty()) {
    throw InputError("the workload has no prompts", InputLocation::for_key("workload"));
  }
  const PlanObjective objective = resolve_objective(in);
  if (objective != PlanObjective::fewest_switches && objective != PlanObjective::throughput &&
      !in.prices) {
    throw InputError(fmt::format("ranking by {} needs prices", to_string(objective)),
                     InputLocation::for_key("prices"));
  }
  if (in.families.empty()) {
    throw InputError("give at least one kind of layout", InputLocation::for_key("layouts"));
  }
  if (in.beyond_tp() && !in.node.expected) {
    throw InputError(
        fmt::format("pipeline, expert-parallel and disaggregated layouts are ranked by what "
                    "public runs on the node give, and {} has no expected rates in its catalog "
                    "entry; plan instances x TP only, or give a node that has them",
                    in.node.name),
        InputLocation::for_key("layouts"));
  }
  if ((objective == PlanObjective::tokens_per_dollar || objective == PlanObjective::throughput) &&
      !in.node.expected) {
    throw InputError(fmt::format("ranking by {} needs the node's expected rates, and {} has none",
                                 to_string(objective), in.node.name),
                     InputLocation::for_key("objective"));
  }
  if (objective == PlanObjective::users_per_dollar && in.users_per_instance.empty()) {
    throw InputError(
        "ranking by users-per-dollar needs served users per instance (a capacity sweep)",
        InputLocation::for_key("users_per_instance"));
  }
  PlanSearchReport report;
  report.warnings = in.model.doubts();
  report.reference =
      *std::max_element(in.speeds.begin(), in.speeds.end(),
                        [](const Link& a, const Link& b) { return a.rate < b.rate; });
  // The measured TTFT is taken as measured on the fastest speed considered.
  if (in.baseline) {
    if (in.baseline->link.rate.bits_per_second() > 0.0 &&
        !same_rate(in.baseline->link.rate, report.reference.rate)) {
      throw InputError(fmt::format("a baseline measured at {} cannot be projected: plan takes it "
                                   "as measured at the fastest speed considered, {}",
                                   in.baseline->link.name, report.reference.name),
                       InputLocation::for_key("baseline.link"));
    }
    report.baseline = *in.baseline;
    report.baseline->link = report.reference;
  }

  // Predicted extras count against a switch at the fastest speed, the
  // fabric the nominal bound's reference rate stands for.
  if (in.nodes > 1) {
    report.reference_profile =
        priced_profile(in.fabric_catalog, FabricTopology::switched, report.reference, in.collective,
                       in.node, in.calibration);
  }
  const double accepted = accepted_tokens_per_decode(in.engine, std::nullopt);

  // Up to the largest TP any engine takes: 4,096 nodes are 4 x TP1024, not TP4096.
  const bool plain_tp =
      std::find(in.families.begin(), in.families.end(), LayoutFamily::tp) != in.families.end();
  for (int tp = 1; plain_tp && tp <= std::min(in.nodes, kMaxTp); tp *= 2) {
    if (in.nodes % tp != 0) continue;
    report.layouts_tried.push_back(tp);
    EngineConfig engine = in.engine;
    engine.tensor_parallel_size = tp;
    const MemoryReport mem =
        analyze_memory(model, MemoryRequest{ParallelLayout{tp, 1, 1}, engine, in.node, in.memory});
    const Bytes per_token = tp > 1 ? bytes_per_prompt_token(model, engine) : Bytes(0.0);

    // The projection, when a baseline is given: compute divides over the TP nodes.
    std::optional<Seconds> compute_per_token;
    if (report.baseline) {
      compute_per_token = compute_node_seconds_per_token(model, in.engine, *report.baseline) / tp;
    }

    for (const auto& speed : in.speeds) {
      // TP1 replicas send nothing: one row, at the fastest speed, buying nothing.
      if (tp == 1 && speed.name != report.reference.name) continue;
      std::vector<std::optional<Fabric>> fabrics;
      for (auto& f : fabrics_for_layout(in, tp, speed)) fabrics.emplace_back(std::move(f));
      if (fabrics.empty()) fabrics.emplace_back(std::nullopt);
      for (auto& fabric : fabrics) {
        PlanOption r;
        r.instances = in.nodes / tp;
        r.tp = tp;
        r.layout = ParallelLayout{tp, 1, 1};
        r.speed = speed;
        r.memory = mem;
        r.fits_memory = mem.fits;
        r.vllm_refusal = tp_refusal(model, tp);
        r.fabric = std::move(fabric);
        if (r.fabric) r.fabric->instances_stay_local = instances_local(*r.fabric, tp);
        r.per_token_bytes = per_token;
        // What the fabric bought gives; with none to buy, what a switch would
        // (the nominal bound assumes one too). TP1 sends nothing.
        std::optional<FabricProfile> priced_on;
        if (tp > 1 && report.reference_profile) {
          priced_on = r.fabric && r.fabric->profile
                          ? *r.fabric->profile
                          : priced_profile(in.fabric_catalog, FabricTopology::switched, speed,
                                           in.collective, in.node, in.calibration);
        } else {
          r.worst_predicted_extra_ttft = Seconds(0.0);
        }
        double sum = 0.0;
        for (const auto& prompt : in.workload.prompts) {
          const Bytes bytes = per_token * static_cast<double>(prompt.prompt.total_tokens());
          const Seconds extra = extra_transfer_time(bytes, report.reference.rate, r.speed.rate);
          sum += extra.value();
          if (extra > r.worst_extra_ttft || r.worst_prompt.empty()) r.worst_prompt = prompt.name;
          r.worst_extra_ttft = std::max(r.worst_extra_ttft, extra);
          if (compute_per_token) {
            const Seconds ttft =
                *compute_per_token * static_cast<double>(prompt.prompt.total_tokens()) +
                bytes / report.reference.rate;
            const double increase = extra / ttft;
            r.worst_ttft_increase = std::max(r.worst_ttft_increase.value_or(0.0), increase);
          }
          if (priced_on) {
            const PrefillCommunication c = prefill_communication(
                model, engine, *report.reference_profile, *priced_on, prompt.prompt,
                prompt.output_tokens.value_or(kDefaultOutputTokens), accepted);
            if (!r.worst_predicted_extra_ttft || c.extra > *r.worst_predicted_extra_ttft) {
              r.worst_predicted_extra_ttft = c.extra;
            }
          }
        }
        r.mean_extra_ttft = Seconds(sum / static_cast<double>(in.workload.prompts.size()));
        // A fabric slower than its nominal rate (a ring's one RDMA device)
        // is held to the budget at what it is predicted to give.
        const Seconds held =
            std::max(r.worst_extra_ttft, r.worst_predicted_extra_ttft.value_or(Seconds(0.0)));
        r.within_budget = !in.ttft_budget || held <= *in.ttft_budget;
        r.usable =
            r.vllm_refusal.empty() && r.fits_memory && r.fabric.has_value() && r.within_budget;
        if (in.prices) {
          if (r.fabric) {
            r.cost =
                price_purchase(plan_detail::plan_purchase(in, *r.fabric), *in.prices, in.today);
          } else {
            // The nodes are still bought; what would join them is not known.
            r.cost =
                price_purchase(Purchase{in.node.name, in.nodes, {}, 0, {}}, *in.prices, in.today);
            r.cost->complete = false;
            r.cost->unpriced.emplace_back("a fabric (no catalog switch carries the nodes)");
          }
        }
        if (in.node.expected && r.fits_memory && r.vllm_refusal.empty()) {
          // A model without every weight's shape: no expectation, as predict refuses it.
          std::string ignored;
          r.expected = plan_detail::expect_on(
              in, r,
              priced_on ? *priced_on
                        : priced_profile(in.fabric_catalog, FabricTopology::switched, speed,
                                         in.collective, in.node, in.calibration),
              ignored);
        }
        if (const auto users = in.users_per_instance.find(tp);
            users != in.users_per_instance.end()) {
          r.users = users->second * r.instances;
          if (r.cost) r.users_per_dollar = tpnet::users_per_dollar(*r.users, *r.cost);
        }
        report.options.push_back(std::move(r));
      }
    }
  }
  for (const auto& candidate : plan_detail::beyond_tp_candidates(in)) {
    plan_detail::add_beyond_tp_options(in, candidate, report);
  }
  for (auto& r : report.options) {
    if (const auto throughput = r.expected_throughput(); throughput && r.cost) {
      r.tokens_per_dollar = users_per_dollar(*throughput, *r.cost);
    }
  }

  // Usable first; then the cheapest fabric (fewer switches, less port
  // capacity bought); then less TTFT loss; then more instances (a failure
  // takes out less); then the faster link.
  std::stable_sort(report.options.begin(), report.options.end(),
                   [](const PlanOption& a, const PlanOption& b) {
                     if (a.usable != b.usable) return a.usable;
                     const int sa = a.fabric ? a.fabric->switches : 1 << 20;
                     const int sb = b.fabric ? b.fabric->switches : 1 << 20;
                     if (sa != sb) return sa < sb;
                     const BitRate ca = a.fabric ? a.fabric->capacity : BitRate(0.0);
                     const BitRate cb = b.fabric ? b.fabric->capacity : BitRate(0.0);
                     if (ca != cb) return ca < cb;
                     if (a.worst_extra_ttft != b.worst_extra_ttft) {
                       return a.worst_extra_ttft < b.worst_extra_ttft;
                     }
                     if (a.instances != b.instances) return a.instances > b.instances;
                     return a.speed.rate > b.speed.rate;
                   });
  report.objective = objective;
  rank_by_objective(report.objective, report.options);
  for (std::size_t i = 0; i < report.options.size(); ++i) {
    PlanOption& r = report.options[i];
    r.rank = static_cast<int>(i) + 1;
    // Compare with the smallest TP that fits at the same speed.
    const PlanOption* smaller = nullptr;
    for (const auto& other : report.options) {
      if (other.family == LayoutFamily::tp && other.speed.name == r.speed.name &&
          other.fits_memory && other.vllm_refusal.empty() && other.tp < r.tp &&
          (smaller == nullptr || other.tp > smaller->tp)) {
        smaller = &other;
      }
    }
    r.reason = describe_reason(r, smaller, report);
  }
  if (std::none_of(report.options.begin(), report.options.end(),
                   [](const PlanOption& r) { return r.usable; })) {
    report.warnings.emplace_back(
        "no layout fits in memory, has a switch plan and meets the budget");
  }
  add_price_warnings(report, in);
  for (const auto& w : in.price_warnings) report.warnings.push_back(w);
  return report;
}

}  // namespace

PlanSearchReport search_plans(const PlanSearchRequest& request) {
  if (!request.capacity) return search_layouts(request);
  CapacityReport capacity = run_capacity(*request.capacity);
  PlanSearchReport report;
  if (request.users_per_instance.empty()) {
    PlanSearchRequest with_users = request;
    with_users.users_per_instance = served_users_by_tp(capacity);
    if (with_users.users_per_instance.empty()) {
      throw InputError("no config in the sweeps has served users (C_max > 0 with a latency)",
                       InputLocation::for_key("sweeps"));
    }
    report = search_layouts(with_users);
  } else {
    report = search_layouts(request);
  }
  report.capacity = std::move(capacity);
  return report;
}

namespace {

/// "1 x crs804 (or crs812)": the other switches that would do (at the same
/// price, when ranked by money).
std::string fabric_with_alternatives(const Fabric& fabric) {
  std::string text = fabric.description;
  const auto& others = fabric.alternatives;
  if (others.empty()) return text;
  text += " (or";
  for (std::size_t i = 0; i < others.size(); ++i) text += (i == 0 ? " " : ", ") + others[i];
  return text + ")";
}

}  // namespace

std::map<int, double> served_users_by_tp(const CapacityReport& capacity) {
  std::map<int, double> users;
  for (const auto& config : capacity.configs) {
    if (!config.users || config.tp <= 0) continue;
    auto [it, added] = users.emplace(config.tp, *config.users);
    if (!added) it->second = std::max(it->second, *config.users);
  }
  return users;
}

std::vector<SpeedTrade> speed_trades(const PlanSearchReport& report) {
  std::vector<SpeedTrade> trades;
  std::vector<std::string> layouts;
  for (const auto& r : report.options) {
    if (!r.usable || !r.cost) continue;
    const std::string layout = r.layout_name();
    if (std::find(layouts.begin(), layouts.end(), layout) == layouts.end()) {
      layouts.push_back(layout);
    }
  }
  for (const auto& layout : layouts) {
    const PlanOption* slower = nullptr;
    const PlanOption* faster = nullptr;
    for (const auto& r : report.options) {
      if (!r.usable || !r.cost || r.layout_name() != layout) continue;
      if (slower == nullptr || r.speed.rate < slower->speed.rate) slower = &r;
      if (faster == nullptr || r.speed.rate > faster->speed.rate) faster = &r;
    }
    if (slower == nullptr || faster == nullptr || !(faster->speed.rate > slower->speed.rate)) {
      continue;
    }
    SpeedTrade t;
    t.instances = slower->instances;
    t.tp = slower->tp;
    t.layout = layout;
    t.family = slower->family;
    t.slower = slower->speed;
    t.faster = faster->speed;
    t.slower_fabric = fabric_with_alternatives(*slower->fabric);
    t.faster_fabric = fabric_with_alternatives(*faster->fabric);
    t.slower_cost = *slower->cost;
    t.faster_cost = *faster->cost;
    t.extra_cost = t.faster_cost.total - t.slower_cost.total;
    t.cost_complete = t.slower_cost.complete && t.faster_cost.complete;
    t.ttft_saved = slower->worst_extra_ttft - faster->worst_extra_ttft;
    if (slower->worst_ttft_increase) {
      // Both losses are against the same reference TTFT, so their difference
      // is the share of the slower layout's projected TTFT that the faster link saves.
      const double slow = *slower->worst_ttft_increase;
      const double fast = faster->worst_ttft_increase.value_or(0.0);
      t.ttft_saved_fraction = (slow - fast) / (1.0 + slow);
    }
    t.prompt = slower->worst_prompt;
    for (const auto* cost : {&t.slower_cost, &t.faster_cost}) {
      for (const auto& line : cost->lines) {
        if (!line.unit_price) continue;
        const std::string entry = fmt::format(
            "{} {}: {} {:.0f} ({}, seen {})", to_string(line.kind), line.item, cost->currency,
            *line.unit_price, line.source, line.seen ? line.seen->text() : "?");
        if (std::find(t.sources.begin(), t.sources.end(), entry) == t.sources.end()) {
          t.sources.push_back(entry);
        }
      }
    }
    const std::string currency =
        t.faster_cost.currency.empty() ? t.slower_cost.currency : t.faster_cost.currency;
    const double gap = std::abs(t.extra_cost);
    // A switch without a price is most of what differs between the two
    // speeds: a difference of what is priced would be a number that lies.
    std::vector<std::string> unpriced_switches;
    for (const auto* cost : {&t.slower_cost, &t.faster_cost}) {
      for (const auto& line : cost->lines) {
        if (line.kind == PricedKind::switch_model && !line.unit_price &&
            std::find(unpriced_switches.begin(), unpriced_switches.end(), line.item) ==
                unpriced_switches.end()) {
          unpriced_switches.push_back(line.item);
        }
      }
    }
    std::string sentence =
        !unpriced_switches.empty()
            ? fmt::format(
                  "{}: {} on {} against {} on {} has no price difference to give "
                  "(no price for switch {})",
                  layout, t.faster.name, t.faster_fabric, t.slower.name, t.slower_fabric,
                  fmt::join(unpriced_switches, ", "))
        : gap == 0.0 && t.cost_complete
            ? fmt::format("{}: {} on {} costs the same as {} on {}", layout, t.faster.name,
                          t.faster_fabric, t.slower.name, t.slower_fabric)
        : t.cost_complete
            ? fmt::format("{}: {} on {} costs {} {:.0f} {} than {} on {}", layout, t.faster.name,
                          t.faster_fabric, currency, gap, t.extra_cost > 0.0 ? "more" : "less",
                          t.slower.name, t.slower_fabric)
            // A cable without a price: the priced parts differ by this much,
            // which is not what the two cost apart.
            : fmt::format(
                  "{}: {} on {} against {} on {}: the priced parts differ by {} "
                  "{:.0f}",
                  layout, t.faster.name, t.faster_fabric, t.slower.name, t.slower_fabric, currency,
                  t.extra_cost);
    sentence += t.cost_complete || !unpriced_switches.empty()
                    ? fmt::format(" and saves up to {:.2f} s", t.ttft_saved.value())
                    : fmt::format("; {} saves up to {:.2f} s", t.faster.name, t.ttft_saved.value());
    if (t.ttft_saved_fraction)
      sentence += fmt::format(" ({:.1f}%)", *t.ttft_saved_fraction * 100.0);
    sentence += fmt::format(" of TTFT on {} prompts", t.prompt);
    if (!t.cost_complete) {
      std::vector<std::string> missing = t.slower_cost.unpriced;
      for (const auto& item : t.faster_cost.unpriced) {
        if (std::find(missing.begin(), missing.end(), item) == missing.end())
          missing.push_back(item);
      }
      sentence += "; not counting";
      for (std::size_t i = 0; i < missing.size(); ++i)
        sentence += (i == 0 ? " " : ", ") + missing[i];
      sentence += " (price unknown)";
    }
    t.sentence = std::move(sentence);
    trades.push_back(std::move(t));
  }
  return trades;
}

}  // namespace tpnet
