#include "tpnet/usecase/compare.hpp"
#include "tpnet/sim/decode_floor.hpp"
#include "tpnet/traffic/layout_traffic.hpp"
#include "tpnet/traffic/transfer_time.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

#include "tpnet/base/checked_math.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/sim/prefill_communication.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/collective.hpp"
#include "tpnet/usecase/decode.hpp"
#include "tpnet/usecase/predict.hpp"

namespace tpnet {

std::uint64_t compare_row_count(const CompareRequest& request) {
  const std::size_t prompts =
      request.prompts.empty() ? study_scenarios().size() : request.prompts.size();
  // Multiply in long double so a huge product is reported, not wrapped.
  const long double rows = static_cast<long double>(request.layouts.size()) * request.from.size() *
                           request.to.size() * prompts;
  if (rows < 1) {
    throw InputError("the grid is empty: give at least one TP size, link pair and prompt",
                     InputLocation::for_key("layout.tp"));
  }
  if (rows > static_cast<long double>(kMaxCompareRows)) {
    throw InputError(fmt::format("the grid has {:.0f} rows, more than the {} allowed; narrow the "
                                 "lists",
                                 static_cast<double>(rows), kMaxCompareRows),
                     InputLocation::for_key("layout.tp"));
  }
  return static_cast<std::uint64_t>(rows);
}

ParallelLayout reference_layout(const CompareRequest& request) {
  if (request.reference) return *request.reference;
  if (request.projection && request.projection->layout.nodes() > 1) {
    return request.projection->layout;
  }
  const ParallelLayout tp8{8, 1, 1};
  for (const auto& layout : request.layouts) {
    if (layout.tp == 8) return tp8;
  }
  return request.layouts.front();
}

namespace {

/// Per-node bytes of one decode forward: the layout's collectives for
/// requests x (1 + drafts) tokens, plus the vocab-parallel logits all-gather.
Bytes decode_bytes(const ModelArch& model, const EngineConfig& engine, const ParallelLayout& layout,
                   int requests) {
  const TokenCount tokens =
      checked_mul(requests, 1 + static_cast<TokenCount>(engine.num_speculative_tokens),
                  "decode tokens per forward (requests x (1 + speculative tokens))",
                  InputLocation::for_key("workload.decode_requests"));
  const LayoutTraffic traffic = layout_traffic(model, engine, layout, tokens);
  return traffic.total_bytes + logits_gather_bytes(model, engine, layout.tp, tokens);
}

std::string subject(const CompareRow& row) {
  return fmt::format("{} {}->{}", row.layout->layout.name(), row.from->name, row.to->name);
}

}  // namespace

Seconds compute_node_seconds_per_token(const ModelArch& model, const EngineConfig& engine,
                                       const TtftBaseline& b, const std::string& field) {
  const auto tokens = static_cast<double>(b.prompt.total_tokens());
  if (b.layout.nodes() >= 2 && !(b.link.rate.bits_per_second() > 0.0)) {
    // Its network time needs the link's rate; without one it would be infinite.
    throw InputError(fmt::format("a TTFT measured on {} nodes needs the link it was measured on; "
                                 "none was given",
                                 b.layout.nodes()),
                     InputLocation::for_key(field));
  }
  // A single node's TTFT (TP1) is all compute: nothing crosses the network.
  const Seconds comm = b.layout.nodes() < 2
                           ? Seconds(0.0)
                           : layout_bytes_per_token(model, engine, b.layout) * tokens / b.link.rate;
  const Seconds compute = b.ttft - comm;
  if (compute.value() <= 0.0) {
    throw InputError(fmt::format("the baseline TTFT ({:.3f} s) is not longer than its own network "
                                 "time at {} ({:.3f} s); check the measured TTFT and its prompt",
                                 b.ttft.value(), b.link.name, comm.value()),
                     InputLocation::for_key(field));
  }
  return compute / tokens * b.layout.nodes();
}

bool CompareReport::projected() const {
  return std::any_of(compute_node_seconds.begin(), compute_node_seconds.end(),
                     [](const std::optional<Seconds>& s) { return s.has_value(); });
}

CompareReport run_compare(CompareRequest request) {
  validate(request.engine);
  if (request.decode_requests < 1 || request.decode_requests > kMaxRunningRequests) {
    throw InputError(fmt::format("{} is not allowed; use 1 to {} running requests",
                                 request.decode_requests, kMaxRunningRequests),
                     InputLocation::for_key("workload.decode_requests"));
  }
  if (request.prompts.empty()) request.prompts = study_scenarios();
  require_scenario_count(request.prompts.size());
  CompareReport report;
  // A grid crosses every TP with every PP and EP, so some cells cannot run
  // (EP8 with TP16: EP is not a multiple of TP). They are skipped with a
  // note; only a grid with no cell that runs is refused.
  std::vector<ParallelLayout> runnable;
  std::optional<InputError> first_refusal;
  std::string skipped;
  for (const auto& layout : request.layouts) {
    try {
      validate_layout(layout, request.model);
      runnable.push_back(layout);
    } catch (const InputError& e) {
      if (!first_refusal) first_refusal = e;
      skipped += fmt::format("{}{} ({})", skipped.empty() ? "" : ", ", layout.name(), e.detail());
    }
  }
  if (runnable.empty() && first_refusal) throw *first_refusal;
  if (!skipped.empty()) {
    report.warnings.push_back(fmt::format("skipped the layouts that cannot run: {}", skipped));
  }
  request.layouts = std::move(runnable);
  report.row_count = compare_row_count(request);
  report.reference = reference_layout(request);
  const ModelArch& model = request.model;
  const EngineConfig& engine = request.engine;
  const Bytes reference_bytes = layout_bytes_per_token(model, engine, report.reference);
  const BitRate bandwidth = request.memory_bandwidth.value_or(request.node.memory_bandwidth);
  if (!(bandwidth.bits_per_second() > 0.0)) {
    throw InputError(
        "must be positive: decode's floor reads the weights at it",
        InputLocation::for_key(request.memory_bandwidth ? "memory.memory_bandwidth" : "node"));
  }

  // Each prompt's compute: from its own measured TTFT, else the projection.
  std::optional<Seconds> projected;
  if (request.projection) {
    projected = compute_node_seconds_per_token(model, engine, *request.projection);
  }
  for (const auto& prompt : request.prompts) {
    if (prompt.baseline_ttft) {
      const TtftBaseline own{request.measured_layout, *prompt.baseline_ttft, prompt.prompt,
                             request.from.front().link};
      report.compute_node_seconds.emplace_back(
          compute_node_seconds_per_token(model, engine, own, "workload.baseline"));
    } else {
      report.compute_node_seconds.push_back(projected);
    }
  }
  if (request.budgets.max_ttft_increase) {
    for (std::size_t i = 0; i < request.prompts.size(); ++i) {
      if (!report.compute_node_seconds[i]) {
        throw InputError(
            fmt::format("needs a TTFT for scenario {}: give `workload.baseline` (measured) or "
                        "`projection` (a TTFT measured elsewhere to project from)",
                        request.prompts[i].name),
            InputLocation::for_key("budgets.max_ttft_increase"));
      }
    }
  }

  report.layouts.reserve(request.layouts.size());
  for (const auto& layout : request.layouts) {
    LayoutSummary s;
    s.layout = layout;
    const LayoutTraffic chunk =
        layout_traffic(model, engine, layout, engine.max_num_batched_tokens);
    s.per_token_bytes = chunk.total_bytes / static_cast<double>(engine.max_num_batched_tokens);
    s.bytes_ratio = s.per_token_bytes / reference_bytes;
    s.compute_ratio = static_cast<double>(report.reference.nodes()) / layout.nodes();
    s.steps_per_forward = chunk.sequential_steps;
    s.prefill_forward_bytes = chunk.total_bytes;
    s.prefill_messages = chunk.messages;
    // Decode runs the same collectives as prefill, one message per ring step,
    // plus the logits all-gather's N-1 steps.
    s.decode_messages = chunk.messages + (layout.tp - 1);
    s.memory = analyze_memory(model, MemoryRequest{layout, engine, request.node, request.memory});
    s.decode_forward_bytes = decode_bytes(model, engine, layout, request.decode_requests);
    s.decode_floor = weight_read_floor(model, layout.nodes(), bandwidth);
    if (!s.memory.fits) {
      report.warnings.push_back(
          fmt::format("{} does not fit: {}", layout.name(), s.memory.fit_summary));
    }
    report.layouts.push_back(std::move(s));
  }

  if (request.calibration) {
    CalibrationAsk ask;
    for (const auto& layout : request.layouts) ask.tps.push_back(layout.tp);
    ask.from = links_of(request.from);
    ask.project_compute = true;
    report.calibration = check_calibration(*request.calibration, model, engine, ask);
    for (const auto& w : report.calibration->warnings) report.warnings.push_back(w);
  }
  // Each TP size of the grid once: the engine's own is only the first layout's.
  std::vector<int> warned;
  for (const auto& layout : request.layouts) {
    if (std::find(warned.begin(), warned.end(), layout.tp) != warned.end()) continue;
    warned.push_back(layout.tp);
    EngineConfig at_tp = engine;
    at_tp.tensor_parallel_size = layout.tp;
    for (const auto& w : layout_warnings(model, at_tp)) report.warnings.push_back(w);
  }
  const auto doubts = model.doubts();
  report.warnings.insert(report.warnings.begin(), doubts.begin(), doubts.end());
  report.expectations = compare_expectations(request);
  report.request = std::move(request);
  return report;
}

void for_each_compare_row(const CompareReport& report,
                          const std::function<void(const CompareRow&)>& visit) {
  const CompareRequest& request = report.request;
  const CalibrationUse* calibration = report.calibration ? &*report.calibration : nullptr;
  CompareRow row;
  const bool predict = request.predicted();
  const double accepted = accepted_tokens_per_decode(request.engine, request.accepted_tokens);
  if (predict) {
    double steps = 0.0;
    for (const auto& layout : report.layouts) {
      if (layout.layout.pp != 1 || layout.layout.ep != 1) continue;
      for (const auto& prompt : request.prompts) {
        steps += estimated_steps(request.engine, prompt.prompt, 1, accepted, false);
      }
    }
    require_simulated_steps(steps * static_cast<double>(request.from.size() * request.to.size()),
                            "fabric");
  }
  for (const auto& layout : report.layouts) {
    row.layout = &layout;
    EngineConfig at_tp = request.engine;
    at_tp.tensor_parallel_size = layout.layout.tp;
    const bool tp_only = layout.layout.pp == 1 && layout.layout.ep == 1;
    for (std::size_t f = 0; f < request.from.size(); ++f) {
      const Link& from = request.from[f].link;
      row.from = &from;
      row.from_index = f;
      for (std::size_t t = 0; t < request.to.size(); ++t) {
        const Link& to = request.to[t].link;
        row.to = &to;
        row.to_index = t;
        row.extra_per_1k = extra_transfer_time(layout.per_token_bytes * 1000.0, from.rate, to.rate);
        row.comm_per_1k = layout.per_token_bytes * 1000.0 / from.rate;
        row.decode_slowdown = extra_transfer_time(layout.decode_forward_bytes, from.rate, to.rate) /
                              layout.decode_floor;
        for (std::size_t p = 0; p < request.prompts.size(); ++p) {
          const PrefillScenario& prompt = request.prompts[p];
          row.prompt = &prompt;
          row.prompt_index = p;
          const auto tokens = static_cast<double>(prompt.prompt.total_tokens());
          row.prefill_bytes = layout.per_token_bytes * tokens;
          row.comm_time_from = row.prefill_bytes / from.rate;
          row.extra_bound = extra_transfer_time(row.prefill_bytes, from.rate, to.rate);
          row.ttft_increase.reset();
          row.ttft_measured = false;
          if (const auto& compute = report.compute_node_seconds[p]) {
            const Seconds per_token = *compute / layout.layout.nodes();
            const Seconds ttft_from = per_token * tokens + row.comm_time_from;
            row.ttft_increase = row.extra_bound / ttft_from;
            row.ttft_measured = prompt.baseline_ttft.has_value();
          }
          row.calibrated_point.reset();
          if (calibration != nullptr) {
            std::optional<Seconds> per_token;
            if (calibration->compute != nullptr) {
              per_token = compute_per_token_for(*calibration->compute, layout.layout);
            }
            row.calibrated_point =
                point_prefill(*calibration->allreduce, request.model, request.engine, layout.layout,
                              prompt.prompt, from.rate, to.rate, per_token);
          }
          row.predicted_extra.reset();
          row.achieved_bound.reset();
          if (predict && tp_only) {
            const PrefillCommunication c = prefill_communication(
                request.model, at_tp, *request.from[f].fabric, *request.to[t].fabric, prompt.prompt,
                prompt.output_tokens.value_or(kDefaultOutputTokens), accepted);
            row.predicted_extra = c.extra;
            row.achieved_bound = c.bound;
          }
          row.within_budget =
              within_budgets(request.budgets, BudgetValues{row.extra_bound, row.ttft_increase,
                                                           row.extra_per_1k, row.decode_slowdown});
          visit(row);
        }
      }
    }
  }
}

void row_verdicts(const CompareRow& row, const Budgets& budgets, std::vector<Verdict>& out) {
  BudgetValues values{row.extra_bound, row.ttft_increase, std::nullopt, std::nullopt};
  if (row.prompt_index == 0) {
    values.extra_per_1k = row.extra_per_1k;
    values.decode_slowdown = row.decode_slowdown;
  }
  const std::string link = subject(row);
  append_verdicts(budgets, values, link + " " + row.prompt->name, link, out);
}

WorstByLayout worst_by_layout(const CompareReport& report) {
  const CompareRequest& request = report.request;
  WorstByLayout out;
  out.projected = report.projected();
  out.by_pair.assign(request.from.size() * request.to.size(),
                     std::vector<std::optional<double>>(report.layouts.size()));
  for_each_compare_row(report, [&](const CompareRow& r) {
    const auto layout = static_cast<std::size_t>(r.layout - report.layouts.data());
    double value = 0.0;
    if (out.projected) {
      if (!r.ttft_increase) return;
      value = *r.ttft_increase;
    } else {
      value = r.extra_per_1k.value();
    }
    std::optional<double>& worst =
        out.by_pair[r.from_index * request.to.size() + r.to_index][layout];
    worst = worst ? std::max(*worst, value) : value;
  });
  return out;
}

}  // namespace tpnet
