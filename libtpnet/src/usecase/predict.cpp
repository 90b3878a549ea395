#include "tpnet/usecase/predict.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

#include "predict_data_parallel.hpp"
#include "predict_disaggregated.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/sim/expected_compute.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/collective.hpp"
#include "tpnet/traffic/transfer_time.hpp"
#include "tpnet/usecase/decode.hpp"

namespace tpnet {
namespace {

/// Adds one step to a request's spans, merging it into the last when that
/// is of the same kind and ends where the step starts.
void add_span(std::vector<RequestSpan>& spans, double start, double end, bool prefill) {
  for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
    if (it->prefill != prefill) continue;
    if (std::fabs(it->end_s - start) < 1e-12 || spans.size() >= kMaxSpansPerRequest) {
      it->end_s = end;
      return;
    }
    break;
  }
  spans.push_back(RequestSpan{start, end, prefill});
}

/// One scenario at one link. `fabric` (the range's runs, s.29) replaces the
/// link's profile; such a run keeps no steps or spans and feeds no sink.
/// With DP ranks, each rank's requests run on their own (`share`, its
/// requests' numbers in the whole scenario), the steps of rank 0 kept and sunk.
PredictLink run_link(const PredictRequest& r, const StepCostModel& cost,
                     const SchedulerSettings& scheduler, const PredictScenario& scenario,
                     std::size_t scenario_index, std::size_t link_index,
                     const FabricProfile* fabric = nullptr,
                     const DataParallelShare* share = nullptr) {
  if (r.disaggregation) {
    return run_disaggregated_link(r, cost, scheduler, scenario, link_index, fabric);
  }
  if (share == nullptr && r.data_parallel_size > 1) {
    return run_data_parallel(scenario, r.data_parallel_size,
                             [&](const PredictScenario& part, const DataParallelShare& rank) {
                               return run_link(r, cost, scheduler, part, scenario_index, link_index,
                                               fabric, &rank);
                             });
  }
  PredictLink out;
  const bool central = fabric == nullptr;
  const bool first_rank = share == nullptr || share->rank == 0;
  const bool keep = central && first_rank && r.keep_steps && scenario_index == 0 && link_index == 0;
  const bool sink = central && first_rank && static_cast<bool>(r.step_sink);
  const auto number_in_scenario = [share](int request) {
    return share == nullptr ? static_cast<std::size_t>(request)
                            : share->requests[static_cast<std::size_t>(request)];
  };
  const std::size_t requests_in_scenario =
      share == nullptr ? scenario.requests.size() : r.scenarios[scenario_index].requests.size();
  if (central) out.spans.resize(std::min(r.spans_of_requests, requests_in_scenario));
  int number = 0;
  out.link = r.links[link_index].link;
  out.fabric = central ? *r.links[link_index].fabric : *fabric;
  // Sums over the steps so far, and as they stood after the latest step that
  // completed a prompt: steps run in time order, so at the end that is the
  // last first token's, without keeping a record per step.
  double sent = 0.0;
  double comm_sum = 0.0;
  double busy_sum = 0.0;
  double comm_at_first = 0.0;
  double busy_at_first = 0.0;
  double last_end = 0.0;
  double alltoall_sum = 0.0;
  StepPricer pricer(r.model, r.engine, out.fabric, cost, predict_expert_parallel(r));
  const StepSeconds price = [&](const ScheduledStep& step) {
    int prefills = 0;
    for (const StepWork& w : step.work) prefills += w.prefill_tokens > 0 ? 1 : 0;
    out.most_prefills_in_a_step = std::max(out.most_prefills_in_a_step, prefills);
    PricedForward forward = pricer(step, keep);
    StepCommunication& comm = forward.communication;
    const StepCost& c = forward.cost;
    ++number;
    sent += comm.sent_per_node.count();
    comm_sum += c.communication.value();
    alltoall_sum += forward.alltoall.value() * (1.0 - cost.overlap);
    busy_sum += c.total.value();
    last_end = step.start_s + c.total.value();
    if (std::any_of(step.work.begin(), step.work.end(),
                    [](const StepWork& w) { return w.completes_prompt; })) {
      comm_at_first = comm_sum;
      busy_at_first = busy_sum;
    }
    const double end = step.start_s + c.total.value();
    for (const StepWork& w : step.work) {
      const std::size_t request = number_in_scenario(w.request);
      if (request < out.spans.size()) {
        add_span(out.spans[request], step.start_s, end, w.prefill_tokens > 0);
      }
    }
    if (keep || sink) {
      PricedStep priced{step, c.compute, c.communication, comm.sent_per_node, std::move(comm.each)};
      priced.step.end_s = end;
      for (StepWork& w : priced.step.work)
        w.request = static_cast<int>(number_in_scenario(w.request));
      if (sink) r.step_sink(PricedStepEvent{scenario_index, link_index, number, priced});
      if (keep) out.steps.push_back(std::move(priced));
    }
    return c.total.value();
  };
  out.schedule = simulate_schedule(scenario.requests, scheduler, price, false);
  out.sent_per_node = Bytes(sent);
  RequestSummary summary = summarize_requests(out.schedule.requests, scenario.requests);
  out.first_token = std::move(summary.ttft);
  out.last_first_token = summary.last_first_token;
  out.mean_ttft = summary.mean_ttft;
  out.decode_tokens_per_s = summary.decode_tokens_per_s;
  out.communication = Seconds(comm_at_first);
  out.network_share = busy_at_first > 0.0 ? comm_at_first / busy_at_first : 0.0;
  out.finished = Seconds(last_end);
  if (r.data_parallel_size > 1) out.alltoall_share = comm_sum > 0.0 ? alltoall_sum / comm_sum : 0.0;
  return out;
}

std::vector<std::string> why_lines(const PredictScenarioResult& s, const PredictLink& first,
                                   const SchedulerSettings& scheduler) {
  std::vector<std::string> why;
  const int steps = first.schedule.step_count;
  if (s.requests > 1) {
    why.push_back(fmt::format(
        "up to {} prompt(s) shared a step: each step has {} tokens{}", s.most_prefills_in_a_step,
        scheduler.max_num_batched_tokens,
        scheduler.long_prefill_token_threshold > 0
            ? fmt::format(", at most {} of them for one request (long_prefill_token_threshold)",
                          scheduler.long_prefill_token_threshold)
            : std::string()));
  } else if (scheduler.long_prefill_token_threshold > 0 &&
             scheduler.long_prefill_token_threshold < scheduler.max_num_batched_tokens) {
    why.push_back(
        fmt::format("one prompt takes at most {} tokens a step of the {}-token budget "
                    "(long_prefill_token_threshold)",
                    scheduler.long_prefill_token_threshold, scheduler.max_num_batched_tokens));
  }
  why.push_back(
      fmt::format("{} step(s) in all; {} mixed prefill with decode (the earlier "
                  "requests decode inside the later ones' prefill)",
                  steps, first.schedule.mixed_steps));
  return why;
}

}  // namespace

std::vector<PredictScenario> scenarios_from_baseline(const std::vector<PrefillScenario>& baseline,
                                                     TokenCount output) {
  std::vector<PredictScenario> out;
  for (const auto& b : baseline) {
    PredictScenario s;
    s.name = b.name;
    const TokenCount outputs = b.output_tokens.value_or(output);
    for (long long i = 0; i < b.prompt.requests; ++i) {
      s.requests.push_back(ScheduledRequest{0.0, b.prompt.tokens_each, outputs});
    }
    out.push_back(std::move(s));
  }
  return out;
}

PredictReport run_predict(const PredictRequest& r) {
  require_field(!r.links.empty(), "predict.links", "give at least one link");
  for (const ProfiledLink& l : r.links) {
    require_field(l.fabric.has_value(), "fabric",
                  fmt::format("{} has no fabric profile; every link needs one", l.link.name));
  }
  require_field(!r.scenarios.empty(), "workload.prompts",
                "give at least one prompt scenario or a trace");
  require_scenario_count(r.scenarios.size());
  require_field(
      std::isfinite(r.overlap) && r.overlap >= 0.0 && r.overlap < 1.0, "predict.overlap",
      fmt::format("{} is out of range; allowed 0 (no overlap) up to, not including, 1", r.overlap));
  validate(r.engine);
  require_tp_accepted(r.model, r.engine.tensor_parallel_size);
  const ExpertParallel expert_parallel = predict_expert_parallel(r);

  PredictReport report;
  if (r.disaggregation) check_disaggregated_predict(r, report);
  if (r.memory) {
    // A layout that does not fit is said first: nothing after it runs.
    report.memory = analyze_memory(r.model, *r.memory);
    if (!report.memory->fits) {
      report.warnings.push_back(fmt::format("does not fit in memory ({}): {}",
                                            to_string(report.memory->limit),
                                            report.memory->fit_summary));
    }
  }
  for (const auto& doubt : r.model.doubts()) report.warnings.push_back(doubt);
  const bool eager = r.memory && !(r.memory->settings.cuda_graphs.count() > 0.0);
  const int drafts = r.engine.num_speculative_tokens;
  report.accepted_tokens = accepted_tokens_per_decode(r.engine, r.accepted_tokens);
  if (!r.accepted_tokens && drafts > 0) {
    report.warnings.push_back(fmt::format(
        "accepted tokens per decode forward not given: assumed 1 + {} drafts = {} (every draft "
        "accepted); decode speeds and the decode work inside prefill scale with it",
        drafts, report.accepted_tokens));
  }
  const SchedulerSettings scheduler = scheduler_settings(r.engine, report.accepted_tokens);
  const int tp = r.engine.tensor_parallel_size;
  require_predicted_work(
      estimated_work(r.engine, r.scenarios, r.links.size(), report.accepted_tokens),
      static_cast<bool>(r.step_sink));

  StepCostModel& cost = report.cost;
  cost.overlap = r.overlap;
  if (r.memory) cost.kv_dtype_bytes = r.memory->settings.kv_cache_dtype_bytes;
  cost.flops_per_token = gemm_flops_per_token(r.model, tp);
  cost.expert_flops_per_token = expert_gemm_flops_per_token(r.model, tp);
  if (!r.baseline.empty()) {
    report.fit = fit_prefill_compute(r.model, r.engine, scheduler, *r.links.front().fabric,
                                     r.overlap, r.baseline, r.baseline_origin);
  } else if (r.compute) {
    report.fit.model = r.compute->model;
    report.fit.source = r.compute->source;
    report.fit.warnings = r.compute->warnings;
  } else if (r.expected) {
    report.fit.model = expected_compute(*r.expected, r.model, RateEnd::typical, eager).prefill;
    report.fit.source = "expected from public runs on the node";
    report.prefill_expected = true;
  } else {
    throw InputError(
        "prefill compute is needed: a measured baseline (single-request TTFTs), a calibration "
        "with GEMM timings, given coefficients, or a node whose catalog entry has expected rates",
        InputLocation::for_key("workload.baseline"));
  }
  cost.prefill = report.fit.model;
  for (const auto& w : report.fit.warnings) report.warnings.push_back(w);

  report.decode_model.reads = decode_weight_reads(r.model);
  report.decode_model.tp = tp;
  report.decode_model.data_parallel = expert_parallel.data_parallel;
  report.decode_model_drafts = drafts;
  report.decode_model.memory_bandwidth = r.memory_bandwidth;
  // A measured ITL of one request says nothing of how a batch's tokens share
  // experts: that comes from the node's public runs, the fit's and predict's alike.
  const double concentration = r.expected
                                   ? expected_compute(*r.expected, r.model, RateEnd::typical, eager)
                                         .decode.expert_concentration
                                   : 1.0;
  report.decode =
      fit_decode_efficiency(r.model, r.engine, *r.links.front().fabric, r.memory_bandwidth,
                            report.accepted_tokens, r.decode_measurements, concentration);
  report.decode_model.expert_concentration = concentration;
  if (r.decode_measurements.empty() && r.expected) {
    const DecodeComputeModel expected =
        expected_compute(*r.expected, r.model, RateEnd::typical, eager).decode;
    report.decode.efficiency = expected.efficiency;
    report.decode.source = "expected from public runs on the node";
    report.decode_model.per_step = expected.per_step;
    report.decode_model.seconds_per_flop = expected.seconds_per_flop;
    report.decode_model.expert_concentration = expected.expert_concentration;
    report.decode_expected = true;
  } else if (r.decode_measurements.empty()) {
    report.warnings.emplace_back(
        "no measured decode latency (a decode ITL or a baseline decode rate): decode forwards "
        "read the weights at the full memory bandwidth, the fastest they can be");
  }
  report.decode_model.efficiency = report.decode.efficiency;
  cost.decode = report.decode_model;
  if (report.prefill_expected || report.decode_expected)
    report.expected_source = r.expected->source;
  // The ends of the expected rates' spread, for the parts they price.
  auto at_end = [&](RateEnd end) {
    StepCostModel c = cost;
    const ExpectedCompute e = expected_compute(*r.expected, r.model, end, eager);
    if (report.prefill_expected) c.prefill = e.prefill;
    if (report.decode_expected) {
      c.decode.efficiency = e.decode.efficiency;
      c.decode.per_step = e.decode.per_step;
      c.decode.seconds_per_flop = e.decode.seconds_per_flop;
      c.decode.expert_concentration = e.decode.expert_concentration;
    }
    return c;
  };
  const bool ranged = report.prefill_expected || report.decode_expected;
  const StepCostModel slow = ranged ? at_end(RateEnd::slow) : cost;
  const StepCostModel fast = ranged ? at_end(RateEnd::fast) : cost;

  for (const PredictScenario& scenario : r.scenarios) {
    PredictScenarioResult s;
    s.name = scenario.name;
    s.requests = static_cast<int>(scenario.requests.size());
    s.prompt_tokens_each = scenario.requests.front().prompt_tokens;
    s.output_tokens_each = scenario.requests.front().output_tokens;
    for (const auto& q : scenario.requests) {
      if (q.prompt_tokens != s.prompt_tokens_each) s.prompt_tokens_each = 0;
      if (q.output_tokens != s.output_tokens_each) s.output_tokens_each = 0;
      s.prompt_tokens += q.prompt_tokens;
    }
    for (std::size_t i = 0; i < r.links.size(); ++i) {
      s.links.push_back(run_link(r, cost, scheduler, scenario, report.scenarios.size(), i));
      if (ranged) {
        const FabricProfile& fabric = *r.links[i].fabric;
        const PredictLink low =
            run_link(r, slow, scheduler, scenario, report.scenarios.size(), i, &fabric);
        const PredictLink high =
            run_link(r, fast, scheduler, scenario, report.scenarios.size(), i, &fabric);
        s.links.back().expected = ExpectedRange{low.last_first_token, high.last_first_token,
                                                low.decode_tokens_per_s, high.decode_tokens_per_s};
      }
    }
    s.most_prefills_in_a_step = s.links.front().most_prefills_in_a_step;
    if (s.links.size() >= 2) {
      const PredictLink& a = s.links[0];
      const PredictLink& b = s.links[1];
      s.extra_last_first_token = b.last_first_token - a.last_first_token;
      s.extra_mean_ttft = b.mean_ttft - a.mean_ttft;
      s.increase_last_first_token = *s.extra_last_first_token / a.last_first_token;
      const std::size_t index = report.scenarios.size();
      s.extra_last_first_token_range = extra_range(
          a.fabric, b.fabric, *s.extra_last_first_token,
          [&](const FabricProfile& from, const FabricProfile& to) {
            return run_link(r, cost, scheduler, scenario, index, 1, &to).last_first_token -
                   run_link(r, cost, scheduler, scenario, index, 0, &from).last_first_token;
          });
      s.increase_mean_ttft = *s.extra_mean_ttft / a.mean_ttft;
      if (tp >= 2 && !expert_parallel.enabled()) {
        // The nominal bound of s.4, as penalty prices the same prompt.
        s.bound_extra = extra_transfer_time(
            bytes_per_prompt_token(r.model, r.engine) * static_cast<double>(s.prompt_tokens),
            r.links[0].link.rate, r.links[1].link.rate);
      }
    }
    s.why = why_lines(s, s.links.front(), scheduler);
    report.scenarios.push_back(std::move(s));
  }
  report.notes.push_back(
      r.overlap > 0.0
          ? fmt::format("communication overlaps compute by {:.0f}% (given)", r.overlap * 100.0)
          : "no overlap: every collective waits for its compute and the next compute for it");
  report.notes.emplace_back(
      "decode-only forwards read the active weights, the routed experts by the distinct experts "
      "their tokens touch; steps with prompt tokens cost the fitted prefill model, their decode "
      "tokens counted as more GEMM rows");
  if (expert_parallel.enabled()) {
    for (auto& note : expert_parallel_notes(r)) report.notes.push_back(std::move(note));
  }
  report.notes.insert(report.notes.end(), r.notes.begin(), r.notes.end());
  return report;
}

PredictWork estimated_work(const EngineConfig& engine,
                           const std::vector<PredictScenario>& scenarios, std::size_t links,
                           double accepted_tokens) {
  PredictWork work;
  const TokenCount budget = std::max<TokenCount>(1, engine.max_num_batched_tokens);
  const TokenCount chunk = engine.long_prefill_token_threshold > 0
                               ? std::min(budget, engine.long_prefill_token_threshold)
                               : budget;
  const double accepted = std::max(1.0, accepted_tokens);
  for (const PredictScenario& scenario : scenarios) {
    // Requests share steps up to max_num_seqs at a time; each takes its own
    // chunks of prompt and its own decode forwards.
    const double sharing = std::max(1.0, std::min(static_cast<double>(engine.max_num_seqs),
                                                  static_cast<double>(scenario.requests.size())));
    double prompt_tokens = 0.0;
    for (const ScheduledRequest& q : scenario.requests) {
      const auto prompt = static_cast<double>(q.prompt_tokens);
      prompt_tokens += prompt;
      work.prefill_request_steps += std::ceil(prompt / static_cast<double>(chunk));
      const double decodes = std::ceil(static_cast<double>(q.output_tokens - 1) / accepted);
      work.decode_request_steps += decodes;
      work.decode_steps += decodes / sharing;
    }
    // A step takes up to the budget, and at most `chunk` of each prompt.
    work.prefill_steps += std::ceil(prompt_tokens / std::min(static_cast<double>(budget),
                                                             sharing * static_cast<double>(chunk)));
  }
  const auto n = static_cast<double>(links);
  work.prefill_steps *= n;
  work.decode_steps *= n;
  work.prefill_request_steps *= n;
  work.decode_request_steps *= n;
  return work;
}

void require_predicted_work(const PredictWork& work, bool timeline) {
  // Blame what the work is mostly made of: the prompts, or the outputs.
  const bool outputs = work.decode_steps > work.prefill_steps;
  require_simulated_steps(work.steps(), outputs ? "workload.output_tokens" : "workload.prompts",
                          kMaxPredictedSteps);
  const bool output_rows = work.decode_request_steps > work.prefill_request_steps;
  require_field(
      work.request_steps() <= kMaxPredictedRequestSteps,
      output_rows ? "workload.output_tokens" : "workload.prompts",
      fmt::format("would simulate about {:.3g} request-steps (each request's share of each "
                  "step, over all links); at most {:.0f} in one run (fewer requests, fewer "
                  "output tokens or fewer links)",
                  work.request_steps(), kMaxPredictedRequestSteps));
  require_field(!timeline || work.request_steps() <= kMaxTimelineRows, "predict.timeline",
                fmt::format("would write about {:.3g} rows (one per request and step, over all "
                            "links); a timeline may have at most {:.0f} (fewer requests, fewer "
                            "output tokens or one link)",
                            work.request_steps(), kMaxTimelineRows));
}

CounterSeries predicted_counters(const PredictLink& run, Seconds interval, double overlap) {
  require_field(interval.value() > 0.0, "predict.traffic_interval",
                "the interval must be positive");
  const double end = run.finished.value();
  const double samples = std::floor(end / interval.value()) + 2.0;
  require_field(
      samples <= 1e7, "predict.traffic",
      fmt::format("{:.0f} samples at {} s; at most 10,000,000 (predict a shorter workload or "
                  "a longer interval)",
                  samples, interval.value()));
  struct Burst {
    double start;
    double end;
    double bytes;
  };
  std::vector<Burst> bursts;
  for (const PricedStep& p : run.steps) {
    const std::size_t n = p.collectives.size();
    if (n == 0) continue;
    const double slice = p.compute.value() / static_cast<double>(n);
    double t = p.step.start_s;
    for (const auto& [bytes, time] : p.collectives) {
      t += slice;
      const double duration = std::max(time.value(), 1e-9);
      bursts.push_back(Burst{t, t + duration, bytes.count()});
      t += duration * (1.0 - overlap);
    }
  }
  const int devices = std::max(1, run.fabric.rdma_devices);
  CounterSeries series;
  for (int d = 0; d < devices; ++d) {
    series.devices.push_back(DeviceSeries{fmt::format("rdma{}", d), "1", {}});
  }
  std::size_t done = 0;  // bursts wholly before the sample time
  double done_bytes = 0.0;
  const auto count = static_cast<long long>(samples);
  for (long long i = 0; i < count; ++i) {
    const double t = std::min(static_cast<double>(i) * interval.value(), end);
    // Reads print to the microsecond; a last read closer than that to the
    // one before would not be later.
    if (i > 0 && t - series.devices.front().samples.back().time.value() < 1e-6) break;
    while (done < bursts.size() && bursts[done].end <= t) done_bytes += bursts[done++].bytes;
    double partial = 0.0;
    for (std::size_t j = done; j < bursts.size() && bursts[j].start < t; ++j) {
      partial += bursts[j].bytes *
                 std::clamp((t - bursts[j].start) / (bursts[j].end - bursts[j].start), 0.0, 1.0);
    }
    const double per_device = (done_bytes + partial) / devices;
    for (auto& dev : series.devices) {
      dev.samples.push_back(CounterSample{Seconds(t), Bytes(per_device), Bytes(per_device)});
    }
    ++series.reads;
    if (t >= end) break;
  }
  series.reads *= devices;
  return series;
}

std::vector<std::string> predict_answer(const PredictReport& report) {
  if (report.scenarios.empty() || report.scenarios.back().links.empty()) return {};
  // The last scenario: the longest of a baseline's rows, or the one asked.
  const PredictScenarioResult& s = report.scenarios.back();
  const PredictLink& first = s.links.front();
  std::string ttft = fmt::format("{}: TTFT {:.2f} s at {}", s.name, first.last_first_token.value(),
                                 first.link.name);
  std::string decode = fmt::format("Decode: {:.1f} tokens/s a request at {}",
                                   first.decode_tokens_per_s, first.link.name);
  if (s.links.size() > 1) {
    const PredictLink& second = s.links[1];
    ttft += fmt::format(", {:.2f} s at {}", second.last_first_token.value(), second.link.name);
    if (s.extra_last_first_token) {
      ttft += fmt::format(" ({:+.2f} s predicted", s.extra_last_first_token->value());
      if (s.bound_extra) {
        // A bound only at the rates it assumes: a profile slower than its
        // link's nominal rate predicts more than it.
        ttft += fmt::format("; {:+.2f} s if every byte moved at the links' nominal rates",
                            s.bound_extra->value());
      }
      ttft += ")";
    }
    decode += fmt::format(", {:.1f} at {}", second.decode_tokens_per_s, second.link.name);
  }
  std::vector<std::string> out{ttft + ".", decode + "."};
  if (first.disaggregated) out.push_back(disaggregated_answer(first));
  if (report.prefill_expected || report.decode_expected) {
    out.emplace_back(
        "Expected from public runs on the node, with nothing of yours measured; a baseline, ITL "
        "or calibration of yours replaces them.");
  }
  return out;
}

}  // namespace tpnet
