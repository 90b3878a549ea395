#include "tpnet/usecase/decision_report.hpp"
#include "tpnet/usecase/memory.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "tpnet/base/error.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/sim/compute_fit.hpp"

namespace tpnet {
namespace {

const Link& fastest(const std::vector<Link>& links) {
  return *std::max_element(links.begin(), links.end(), [](const Link& a, const Link& b) {
    return a.rate.bits_per_second() < b.rate.bits_per_second();
  });
}

const Link& slowest(const std::vector<Link>& links) {
  return *std::min_element(links.begin(), links.end(), [](const Link& a, const Link& b) {
    return a.rate.bits_per_second() < b.rate.bits_per_second();
  });
}

std::vector<PrefillScenario> workload_scenarios(const Workload& w) {
  std::vector<PrefillScenario> out;
  for (const auto& p : w.prompts) out.push_back(PrefillScenario{p.name, p.prompt, {}});
  return out;
}

/// The best TP layout that uses the network: usable first, then any. The
/// report's penalty, decode and prediction are of instances x TP; other
/// kinds of layout are ranked beside them in the plan's table.
int networked_tp(const PlanSearchReport& plan, int nodes) {
  for (const bool need_usable : {true, false}) {
    for (const auto& opt : plan.options) {
      if (opt.family == LayoutFamily::tp && opt.tp >= 2 && (opt.usable || !need_usable)) {
        return opt.tp;
      }
    }
  }
  throw InputError(fmt::format("no layout of {} nodes spreads an instance over two or more "
                               "(every one is TP1), so there is no network to report on; "
                               "give `layout.tp`",
                               nodes),
                   InputLocation::for_key("layout.tp"));
}

/// The fabric the layout drawn buys: the plan's choice when it is that
/// layout, else the best option of that TP (a switch when none has one, as
/// the bound assumes).
Fabric drawn_fabric(const DecisionReport& g) {
  if (const PlanOption* chosen = g.chosen_option(); chosen != nullptr &&
                                                    chosen->family == LayoutFamily::tp &&
                                                    chosen->tp == g.tp && chosen->fabric) {
    return *chosen->fabric;
  }
  for (const auto& opt : g.plan.options) {
    if (opt.family == LayoutFamily::tp && opt.tp == g.tp && opt.fabric) return *opt.fabric;
  }
  return Fabric{};
}

}  // namespace

const PlanOption* DecisionReport::chosen_option() const {
  return chosen ? &plan.options[*chosen] : nullptr;
}

const PlanOption* DecisionReport::switch_drawn() const {
  const PlanOption* bought = chosen_option();
  return bought != nullptr && bought->fabric && bought->fabric->plan ? bought : nullptr;
}

const ScenarioPenalty* DecisionReport::worst_scenario() const {
  const auto worst = std::max_element(penalty.scenarios.begin(), penalty.scenarios.end(),
                                      [](const ScenarioPenalty& a, const ScenarioPenalty& b) {
                                        return a.nominal_bound.value() < b.nominal_bound.value();
                                      });
  return worst == penalty.scenarios.end() ? nullptr : &*worst;
}

DecisionReport run_decision_report(const DecisionRequest& request) {
  const PlanSearchRequest& in = request.plan;
  if (in.nodes < 2) {
    throw InputError(fmt::format("{} node(s) send nothing over the network, so there is nothing "
                                 "to report on; give 2 or more",
                                 in.nodes),
                     InputLocation::for_key("nodes"));
  }
  DecisionReport g;
  g.model = in.model;
  g.node = in.node;
  g.workload = in.workload.name;
  g.nodes = in.nodes;
  g.speeds = in.speeds;
  // With sweeps the plan knows the users each layout serves, as `plan
  // --sweep` does, so both rank the same way.
  PlanSearchRequest planned = in;
  planned.capacity = request.capacity;
  g.plan = search_plans(planned);
  g.capacity = g.plan.capacity;
  for (const auto& w : g.plan.warnings) g.warnings.push_back(w);
  for (std::size_t i = 0; i < g.plan.options.size(); ++i) {
    if (g.plan.options[i].usable) {
      g.chosen = i;
      break;
    }
  }

  g.tp_given = request.tp.has_value();
  if (g.tp_given) {
    g.tp = *request.tp;
    require_tp_accepted(in.model, g.tp);  // as predict and check: vLLM would not start it
  } else {
    g.tp = networked_tp(g.plan, in.nodes);
  }
  g.engine = in.engine;
  g.engine.tensor_parallel_size = g.tp;
  g.from = fastest(in.speeds);
  g.to = slowest(in.speeds);
  if (!request.baseline.empty()) {
    g.scenarios = request.baseline;
    if (!g.tp_given) {
      g.warnings.push_back(fmt::format(
          "`workload.baseline` {} taken as measured at TP{} on {} (the recommended layout and the "
          "fastest speed); give `layout.tp` if it was measured at another size",
          request.baseline_origin, g.tp, g.from.name));
    }
  } else {
    g.scenarios = workload_scenarios(in.workload);
  }
  if (!request.fabrics.empty()) {
    if (request.fabrics.size() != 2) {
      throw InputError(fmt::format("{} fabric profiles; give the fastest speed's and the slowest's",
                                   request.fabrics.size()),
                       InputLocation::for_key("fabric"));
    }
    g.fabrics = request.fabrics;
  } else {
    g.fabrics = priced_profiles(in, drawn_fabric(g), {g.from, g.to});
  }

  PenaltyRequest pr;
  pr.model = in.model;
  pr.engine = g.engine;
  pr.from = ProfiledLink{g.from, g.fabrics[0]};
  pr.to = ProfiledLink{g.to, g.fabrics[1]};
  pr.collective = in.collective;
  pr.scenarios = g.scenarios;
  pr.calibration = request.calibration;
  g.penalty = run_penalty(pr);
  for (const auto& w : g.penalty.warnings) g.warnings.push_back(w);

  DecodeRequest dr;
  dr.model = in.model;
  dr.engine = g.engine;
  dr.from = ProfiledLink{g.from, g.fabrics[0]};
  dr.to = ProfiledLink{g.to, g.fabrics[1]};
  dr.collective = in.collective;
  dr.node = in.node;
  dr.calibration = request.calibration;
  g.decode = run_decode(dr);

  CompareRequest cr;
  cr.model = in.model;
  cr.engine = g.engine;
  for (const int tp : g.plan.layouts_tried) {
    if (tp >= 2) cr.layouts.push_back(ParallelLayout{tp, 1, 1});  // one node sends nothing
  }
  cr.from = {ProfiledLink{g.from, std::nullopt}};
  for (const auto& s : in.speeds) {
    if (s.rate.bits_per_second() < g.from.rate.bits_per_second()) {
      cr.to.push_back(ProfiledLink{s, std::nullopt});
    }
  }
  if (cr.to.empty()) cr.to = cr.from;
  cr.prompts = g.scenarios;
  cr.measured_layout = ParallelLayout{g.tp, 1, 1};
  cr.node = in.node;
  cr.memory = in.memory;
  if (!cr.layouts.empty()) {
    auto compare = std::make_shared<CompareReport>(run_compare(cr));
    for (const auto& w : compare->warnings) g.warnings.push_back(w);
    g.compare = std::move(compare);
  }

  MemoryRequest mr;
  mr.layout = ParallelLayout{g.tp, 1, 1};
  mr.engine = g.engine;
  mr.node = in.node;
  mr.settings = in.memory;
  std::vector<int> tps = g.plan.layouts_tried;
  if (std::find(tps.begin(), tps.end(), g.tp) == tps.end()) tps.push_back(g.tp);
  std::sort(tps.begin(), tps.end());
  g.memory = memory_by_tp(in.model, mr, tps);

  if (g.capacity) {
    for (const auto& w : g.capacity->warnings) g.warnings.push_back(w);
  }

  // The step timeline needs compute from the baseline's single requests; a
  // model or a baseline that cannot give it leaves the chart out, saying why.
  if (!request.baseline.empty()) {
    PredictRequest req;
    req.model = in.model;
    req.engine = g.engine;
    req.memory_bandwidth = in.node.memory_bandwidth;
    req.links = {ProfiledLink{g.from, g.fabrics[0]}, ProfiledLink{g.to, g.fabrics[1]}};
    req.baseline = g.scenarios;
    req.baseline_origin = request.baseline_origin;
    req.scenarios = scenarios_from_baseline(g.scenarios, kDefaultOutputTokens);
    if (auto m = baseline_decode_measurement(g.scenarios, g.tp, request.baseline_origin)) {
      req.decode_measurements.push_back(std::move(*m));
    }
    req.spans_of_requests = kReportChartRequests;
    try {
      g.predict = run_predict(req);
    } catch (const InputError& e) {
      g.predict_refused = e.what();
    }
  }
  if (in.node.expected) {
    ExpectRequest ask;
    ask.model = in.model;
    ask.engine = g.engine;
    ask.engine.tensor_parallel_size = 1;
    ask.node = in.node;
    ask.nodes = in.nodes;
    ask.fabric = g.fabrics.front();
    ask.memory = in.memory;
    ask.prompt_tokens = in.workload.prompts.front().prompt.tokens_each;
    try {
      g.expected = run_expect(ask);
    } catch (const InputError& e) {
      g.expected_refused = e.what();
    }
  }
  // The plan, penalty and compare it joins each warn of the model's doubts: once.
  std::vector<std::string> unique;
  for (auto& w : g.warnings) {
    if (std::find(unique.begin(), unique.end(), w) == unique.end()) unique.push_back(std::move(w));
  }
  g.warnings = std::move(unique);
  return g;
}

}  // namespace tpnet
