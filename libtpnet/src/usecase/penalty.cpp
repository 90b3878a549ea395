#include "tpnet/usecase/penalty.hpp"
#include "tpnet/traffic/transfer_time.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "tpnet/base/checked_math.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/sim/engine_schedule.hpp"
#include "tpnet/sim/prefill_communication.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"

namespace tpnet {

namespace {

ScenarioPenalty analyze_scenario(const ModelArch& model, const EngineConfig& engine,
                                 const Link& from, const Link& to, Bytes per_token,
                                 const PrefillScenario& scenario) {
  ScenarioPenalty out;
  out.scenario = scenario;
  out.total_tokens = scenario.prompt.total_tokens();
  out.prefill_bytes_per_node = per_token * static_cast<double>(out.total_tokens);
  const TokenCount budget = prefill_step_budget(engine, scenario.prompt);
  out.prefill_forwards = (out.total_tokens + budget - 1) / budget;
  out.step_block = activation_block(model, engine, std::min(budget, out.total_tokens));
  out.comm_time_from = out.prefill_bytes_per_node / from.rate;
  out.nominal_bound = extra_transfer_time(out.prefill_bytes_per_node, from.rate, to.rate);

  const Bytes step_sent =
      out.step_block * allreduce_sent_factor(engine.tensor_parallel_size, engine.algorithm);
  if (out.total_tokens < engine.max_num_batched_tokens) {
    out.notes.push_back(fmt::format(
        "shorter than one {}-token chunk: each all-reduce sends only {:.1f} MB per node; "
        "transfers this short may not reach full link rate and fixed overheads weigh more, so "
        "the bound overstates the effect",
        engine.max_num_batched_tokens, step_sent.count() / 1e6));
  }
  if (scenario.prompt.requests > 1) {
    out.notes.emplace_back(
        "several prompts at once: bytes per token are unchanged but compute per token drops, "
        "so the network share and the loss exceed those of one prompt of the same total "
        "length; TTFT is until the last request's first token");
  }
  if (scenario.baseline_ttft) {
    const Seconds baseline = *scenario.baseline_ttft;
    double share = out.comm_time_from / baseline;
    if (share > 1.0) {
      out.notes.push_back(fmt::format(
          "the formula's network time at {} ({:.2f} s) exceeds the measured TTFT ({:.2f} s): "
          "bytes or baseline are off; network share capped at 100%",
          from.name, out.comm_time_from.value(), baseline.value()));
      share = 1.0;
    }
    out.network_share = share;
    out.ttft_increase_bound = share * (from.rate / to.rate - 1.0);
    out.ttft_bound_at_to = baseline + out.nominal_bound;
  }
  return out;
}

}  // namespace

PenaltyReport analyze_penalty(const ModelArch& model, const EngineConfig& engine, const Link& from,
                              const Link& to, const std::vector<PrefillScenario>& scenarios,
                              std::optional<Bytes> measured_per_token) {
  require_network_tp(engine);
  require_scenario_count(scenarios.size());
  PenaltyReport report;
  report.from = from;
  report.to = to;
  report.per_token_measured = measured_per_token.has_value();
  report.per_token_bytes = measured_per_token.value_or(bytes_per_prompt_token(model, engine));
  report.extra_per_1k_tokens =
      extra_transfer_time(report.per_token_bytes * 1000.0, from.rate, to.rate);
  for (const auto& scenario : scenarios) {
    report.scenarios.push_back(
        analyze_scenario(model, engine, from, to, report.per_token_bytes, scenario));
  }
  report.warnings = model.doubts();
  for (auto& w : layout_warnings(model, engine)) report.warnings.push_back(std::move(w));
  return report;
}

PenaltyReport run_penalty(const PenaltyRequest& request) {
  const std::vector<PrefillScenario> scenarios =
      request.scenarios.empty() ? study_scenarios() : request.scenarios;
  PenaltyReport r = analyze_penalty(request.model, request.engine, request.from.link,
                                    request.to.link, scenarios, request.measured_per_token);
  if (request.calibration) {
    CalibrationAsk ask;
    ask.tps = {request.engine.tensor_parallel_size};
    ask.from = {request.from.link};
    r.calibration = check_calibration(*request.calibration, request.model, request.engine, ask);
    const ParallelLayout layout{request.engine.tensor_parallel_size, 1, 1};
    std::optional<Seconds> compute;
    if (r.calibration->compute != nullptr) {
      compute = compute_per_token_for(*r.calibration->compute, layout);
    }
    for (auto& s : r.scenarios) {
      s.calibrated_point =
          point_prefill(*r.calibration->allreduce, request.model, request.engine, layout,
                        s.scenario.prompt, request.from.link.rate, request.to.link.rate, compute);
    }
    for (const auto& w : r.calibration->warnings) r.warnings.push_back(w);
  }
  if (request.from.fabric && request.to.fabric) {
    const double accepted = accepted_tokens_per_decode(request.engine, request.accepted_tokens);
    double steps = 0.0;
    for (const auto& s : r.scenarios) {
      steps += estimated_steps(request.engine, s.scenario.prompt, 1, accepted, false);
    }
    require_simulated_steps(steps, "workload.prompts");
    for (auto& s : r.scenarios) {
      // Decodes only share prefill steps of several requests; 1,024 outputs
      // (the studies') unless the baseline row says.
      const PrefillCommunication c = prefill_communication(
          request.model, request.engine, *request.from.fabric, *request.to.fabric,
          s.scenario.prompt, s.scenario.output_tokens.value_or(kDefaultOutputTokens), accepted,
          true);
      s.predicted_comm_from = c.from;
      s.predicted_comm_to = c.to;
      s.predicted_extra = c.extra;
      s.predicted_extra_range = c.extra_range;
      s.achieved_bound = c.bound;
      s.predicted_gap = c.gap;
      if (s.scenario.baseline_ttft) s.predicted_ttft_at_to = *s.scenario.baseline_ttft + c.extra;
    }
  }
  const Budgets& budgets = request.budgets;
  r.gated = budgets.any();
  if (r.gated) {
    append_verdicts(budgets, BudgetValues{{}, {}, r.extra_per_1k_tokens, {}}, "",
                    "per 1,000 prompt tokens", r.verdicts);
    for (const auto& s : r.scenarios) {
      if (budgets.max_ttft_increase && !s.ttft_increase_bound) {
        throw InputError(
            "needs a measured TTFT per scenario: give `workload.baseline` (a CSV of measured TTFT)",
            InputLocation::for_key("budgets.max_ttft_increase"));
      }
      append_verdicts(budgets, BudgetValues{s.nominal_bound, s.ttft_increase_bound, {}, {}},
                      s.scenario.name, "", r.verdicts);
    }
  }
  if (request.decode_node) {
    DecodeRequest decode;
    decode.model = request.model;
    decode.engine = request.engine;
    decode.from = request.from;
    decode.to = request.to;
    decode.collective = request.collective;
    decode.node = *request.decode_node;
    // Decode is the answer's third sentence only: a node the decode formulas
    // cannot price leaves it out rather than failing the penalty.
    try {
      r.decode = run_decode(decode);
    } catch (const InputError&) {
      r.decode.reset();
    }
  }
  return r;
}

}  // namespace tpnet
