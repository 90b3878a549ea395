#include "predict_data_parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "tpnet/base/error.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/sim/expert_alltoall_time.hpp"
#include "tpnet/sim/expert_parallel_step.hpp"
#include "tpnet/traffic/expert_alltoall.hpp"

namespace tpnet {

ExpertParallel predict_expert_parallel(const PredictRequest& r) {
  require_field(r.data_parallel_size >= 1 && r.data_parallel_size <= kMaxEp,
                "layout.data_parallel_size",
                fmt::format("{} is not allowed; use 1 to {}", r.data_parallel_size, kMaxEp));
  require_field(r.data_parallel_size == 1 || r.enable_expert_parallel, "layout.data_parallel_size",
                "data-parallel ranks without expert parallelism: vLLM then shards the experts by "
                "TP across the DP ranks, which tpnet does not model; enable expert parallelism");
  require_field(!r.enable_expert_parallel || first_moe(r.model.layers) != nullptr,
                "layout.enable_expert_parallel",
                fmt::format("{} is dense: expert parallelism needs routed experts", r.model.name));
  ExpertParallel ep;
  ep.data_parallel = r.enable_expert_parallel ? r.data_parallel_size : 1;
  ep.alltoall = r.alltoall;
  if (ep.enabled())
    validate_layout(expert_parallel_layout(r.engine.tensor_parallel_size, ep), r.model);
  return ep;
}

std::vector<std::string> expert_parallel_notes(const PredictRequest& r) {
  const int tp = r.engine.tensor_parallel_size;
  const int dp = r.data_parallel_size;
  std::vector<std::string> notes;
  notes.push_back(fmt::format(
      "layout TP{} x DP{}: expert parallelism over {} ranks with data-parallel attention on {} "
      "nodes (vLLM's tensor_parallel_size {}, data_parallel_size {}, enable_expert_parallel, "
      "all2all_backend {})",
      tp, dp, tp * dp, tp * dp, tp, dp, to_string(r.engine.all2all_backend)));
  notes.emplace_back(
      "not validated on Spark: no public measurement of an expert-parallel step or its "
      "all-to-all between Sparks exists that tpnet knows of; the numbers are the formulas' "
      "(docs/formulas.md s.31)");
  notes.push_back(fmt::format(
      "requests dealt to the {} DP ranks in arrival order, round robin (vLLM's DP load balancer "
      "sends each to the least loaded rank); each rank's scheduler runs its own, and every rank "
      "is taken to carry as many tokens as the one priced (vLLM runs the DP ranks in lockstep "
      "through the MoE layers, idle ranks on dummy batches)",
      dp));
  notes.push_back(
      r.alltoall.routing_imbalance
          ? fmt::format("routing imbalance {:.2f} (given): the busiest rank's expert copies over "
                        "the mean bind each MoE layer's GEMMs and DeepEP's phases",
                        *r.alltoall.routing_imbalance)
          : std::string("routing imbalance: uniform random top-k routing's, a floor real routers "
                        "exceed; the busiest rank's expert copies bind each MoE layer's GEMMs"));
  // What prices the all-to-all, over the run's smallest (one token a rank)
  // and largest (a full token budget) forwards, once per distinct profile.
  const ExpertParallel ep = predict_expert_parallel(r);
  const ParallelLayout layout = expert_parallel_layout(tp, ep);
  const ExpertAllToAll fewest = expert_alltoall(r.model, r.engine, layout, ep.alltoall, 1.0);
  const ExpertAllToAll most = expert_alltoall(r.model, r.engine, layout, ep.alltoall,
                                              static_cast<double>(r.engine.max_num_batched_tokens));
  for (const ProfiledLink& link : r.links) {
    if (!link.fabric) continue;
    for (std::string& note : expert_alltoall_pricing_notes(*link.fabric, fewest, most)) {
      if (std::find(notes.begin(), notes.end(), note) == notes.end())
        notes.push_back(std::move(note));
    }
  }
  return notes;
}

std::vector<DataParallelShare> round_robin_shares(const std::vector<ScheduledRequest>& requests,
                                                  int ranks) {
  std::vector<std::size_t> order(requests.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return requests[a].arrival_s < requests[b].arrival_s;
  });
  std::vector<DataParallelShare> shares(static_cast<std::size_t>(std::max(1, ranks)));
  for (std::size_t i = 0; i < shares.size(); ++i) shares[i].rank = static_cast<int>(i);
  for (std::size_t i = 0; i < order.size(); ++i) {
    shares[i % shares.size()].requests.push_back(order[i]);
  }
  return shares;
}

PredictLink run_data_parallel(
    const PredictScenario& scenario, int ranks,
    const std::function<PredictLink(const PredictScenario&, const DataParallelShare&)>& run_rank) {
  const std::size_t count = scenario.requests.size();
  std::vector<std::pair<DataParallelShare, PredictLink>> runs;
  for (DataParallelShare& share : round_robin_shares(scenario.requests, ranks)) {
    if (share.requests.empty()) continue;  // fewer requests than ranks: an idle rank
    PredictScenario part;
    part.name = scenario.name;
    part.requests.reserve(share.requests.size());
    for (const std::size_t i : share.requests) part.requests.push_back(scenario.requests[i]);
    PredictLink run = run_rank(part, share);
    runs.emplace_back(std::move(share), std::move(run));
  }
  require_field(!runs.empty(), "workload.prompts", "give at least one request");

  // The rank whose last first token comes last binds the answer.
  const auto first_token_end = [](const PredictLink& run) {
    double last = 0.0;
    for (const RequestTimeline& t : run.schedule.requests) last = std::max(last, t.first_token_s);
    return last;
  };
  std::size_t binding = 0;
  for (std::size_t i = 1; i < runs.size(); ++i) {
    if (first_token_end(runs[i].second) > first_token_end(runs[binding].second)) binding = i;
  }
  PredictLink out;
  PredictLink& first = runs.front().second;
  const PredictLink& bound = runs[binding].second;
  out.link = first.link;
  out.fabric = first.fabric;
  out.steps = std::move(first.steps);
  out.schedule.requests.resize(count);
  out.schedule.step_count = bound.schedule.step_count;
  out.schedule.mixed_steps = bound.schedule.mixed_steps;
  out.communication = bound.communication;
  out.network_share = bound.network_share;
  out.alltoall_share = bound.alltoall_share;
  out.spans.resize(first.spans.size());
  double sent = 0.0;
  double finished = 0.0;
  for (auto& [share, run] : runs) {
    for (std::size_t local = 0; local < share.requests.size(); ++local) {
      const std::size_t global = share.requests[local];
      out.schedule.requests[global] = run.schedule.requests[local];
      if (global < out.spans.size() && global < run.spans.size()) {
        out.spans[global] = std::move(run.spans[global]);
      }
    }
    sent = std::max(sent, run.sent_per_node.count());
    finished = std::max(finished, run.finished.value());
    out.most_prefills_in_a_step =
        std::max(out.most_prefills_in_a_step, run.most_prefills_in_a_step);
  }
  out.sent_per_node = Bytes(sent);
  out.finished = Seconds(finished);

  // Each request as run_link words it, over the whole scenario.
  RequestSummary summary = summarize_requests(out.schedule.requests, scenario.requests);
  out.first_token = std::move(summary.ttft);
  out.last_first_token = summary.last_first_token;
  out.mean_ttft = summary.mean_ttft;
  out.decode_tokens_per_s = summary.decode_tokens_per_s;
  return out;
}

}  // namespace tpnet
