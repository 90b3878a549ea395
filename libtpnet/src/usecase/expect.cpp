#include "tpnet/usecase/expect.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tpnet/base/error.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/fabric/expected_rates.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/model/weights.hpp"
#include "tpnet/sim/expected_compute.hpp"
#include "tpnet/sim/expert_alltoall_time.hpp"
#include "tpnet/sim/expert_parallel_step.hpp"
#include "tpnet/sim/kv_transfer_time.hpp"
#include "tpnet/sim/step_cost.hpp"
#include "tpnet/sim/step_schedule.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/kv_transfer.hpp"
#include "tpnet/usecase/predict.hpp"

namespace tpnet {
namespace {

constexpr RateEnd kEnds[] = {RateEnd::slow, RateEnd::typical, RateEnd::fast};

void require(bool ok, const char* field, const std::string& why) {
  if (!ok) throw InputError(why, InputLocation::for_key(field));
}

double& at(ExpectedValue& v, RateEnd end) {
  return end == RateEnd::slow ? v.slow : end == RateEnd::fast ? v.fast : v.typical;
}

/// Every layout of `nodes` nodes: TP x PP whose nodes divide them, TP first.
std::vector<ParallelLayout> layouts_of(int nodes, int layers) {
  std::vector<ParallelLayout> out;
  for (int pp = 1; pp <= std::min(nodes, layers); ++pp) {
    for (int tp = 1; tp <= kMaxTp && tp * pp <= nodes; ++tp) {
      if (nodes % (tp * pp) == 0) out.push_back(ParallelLayout{tp, pp, 1});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const ParallelLayout& a, const ParallelLayout& b) {
    return a.pp < b.pp || (a.pp == b.pp && a.tp < b.tp);
  });
  return out;
}

/// An MoE model's TP x EP layouts of `nodes` nodes (data-parallel attention,
/// dp >= 2 ranks of tp nodes, tp x dp dividing the nodes), TP first.
std::vector<ParallelLayout> expert_parallel_layouts_of(int nodes, const ModelArch& model) {
  std::vector<ParallelLayout> out;
  const MoeSpec* moe = first_moe(model.layers);
  if (moe == nullptr) return out;
  for (int tp = 1; tp <= kMaxTp && 2 * tp <= nodes; ++tp) {
    for (int dp = 2; tp * dp <= nodes; ++dp) {
      const int ep = tp * dp;
      if (nodes % ep == 0 && ep <= moe->routed_experts) out.push_back(ParallelLayout{tp, 1, ep});
    }
  }
  return out;
}

/// One TP size's forwards priced at one end of the spread, as predict prices
/// them (step_cost): a decode step of a batch, a prompt alone.
class Forwards {
 public:
  Forwards(const ExpectRequest& r, const EngineConfig& engine, RateEnd end, double accepted,
           const ExpertParallel& expert_parallel = {})
      : r_(r), engine_(engine), accepted_(accepted) {
    const int tp = engine.tensor_parallel_size;
    const bool eager = !(r.memory.cuda_graphs.count() > 0.0);
    const ExpectedCompute e = expected_compute(*r.node.expected, r.model, end, eager);
    cost_.prefill = e.prefill;
    cost_.decode = e.decode;
    cost_.decode.reads = decode_weight_reads(r.model);
    cost_.decode.tp = tp;
    cost_.decode.memory_bandwidth = r.node.memory_bandwidth;
    cost_.flops_per_token = gemm_flops_per_token(r.model, tp);
    cost_.expert_flops_per_token = expert_gemm_flops_per_token(r.model, tp);
    cost_.kv_dtype_bytes = r.memory.kv_cache_dtype_bytes;
    pricer_.emplace(r.model, engine_, r.fabric, cost_, expert_parallel);
  }

  /// One decode forward of `batch` requests at `context` tokens each.
  [[nodiscard]] double decode_step(int batch, TokenCount context) {
    ScheduledStep step;
    const int tokens_each = 1 + engine_.num_speculative_tokens;
    for (int i = 0; i < batch; ++i)
      step.work.push_back(StepWork{i, 0, context, tokens_each, false});
    return (*pricer_)(step).cost.total.value();
  }

  /// One request alone: its TTFT and how many steps its prompt took.
  [[nodiscard]] std::pair<double, int> prompt_alone() {
    const SchedulerSettings scheduler = scheduler_settings(engine_, accepted_);
    int steps = 0;
    const StepSeconds price = [&](const ScheduledStep& step) {
      ++steps;
      return (*pricer_)(step).cost.total.value();
    };
    const ScheduleResult result =
        simulate_schedule({ScheduledRequest{0.0, r_.prompt_tokens, 1}}, scheduler, price, false,
                          ScheduleUntil::first_tokens);
    return {result.requests.front().first_token_s, steps};
  }

  /// The weight reads of one request's forward at the full bandwidth.
  [[nodiscard]] double floor_step() const {
    return pricer_->cost().decode.weight_read(1 + engine_.num_speculative_tokens).value();
  }

 private:
  const ExpectRequest& r_;
  const EngineConfig& engine_;
  double accepted_;
  StepCostModel cost_;
  std::optional<StepPricer> pricer_;  ///< plain TP or one DP rank of an EP layout
};

/// What one pipeline hop of `tokens` tokens' activations takes between two
/// nodes: a two-rank all-reduce of the same bytes on the link's profile,
/// whose latency and byte time a send and receive also pay.
double hop_seconds(const ExpectRequest& r, TokenCount tokens) {
  const Bytes bytes(static_cast<double>(tokens) * static_cast<double>(r.model.hidden_size) *
                    r.engine.activation_bytes);
  return fabric_allreduce(r.fabric, bytes, 2, r.engine.algorithm).time.value();
}

/// Requests of one replica run at once: what it was given, at most
/// max_num_seqs and what its KV cache holds (at least one).
int running(int given, const EngineConfig& engine, long long kv_sequences) {
  long long n = std::min<long long>(given, engine.max_num_seqs);
  if (kv_sequences > 0) n = std::min(n, kv_sequences);
  return static_cast<int>(std::max<long long>(n, 1));
}

void fill_layout(const ExpectRequest& r, double accepted, ExpectLayout& row) {
  const int tp = row.layout.tp;
  const int pp = row.layout.pp;
  const int dp = row.layout.data_parallel();
  const ExpertParallel expert_parallel{dp, {}};
  EngineConfig engine = r.engine;
  engine.tensor_parallel_size = tp;
  const TokenCount context = r.prompt_tokens + r.output_tokens / 2;
  MemoryRequest memory{row.layout, engine, r.node, r.memory};
  memory.settings.max_model_len = r.prompt_tokens + r.output_tokens;
  const MemoryReport fit = analyze_memory(r.model, memory);
  row.fits = fit.fits;
  row.limit = fit.limit;
  if (!row.fits || !row.refusal.empty()) return;
  const long long kv_sequences = fit.max_sequences.value_or(0);
  for (const RateEnd end : kEnds) {
    Forwards forwards(r, engine, end, accepted, expert_parallel);
    const auto [ttft_tp, steps] = forwards.prompt_alone();
    double ttft = ttft_tp;
    if (pp > 1) {
      // vLLM schedules a request again only once its batch has left the last
      // stage: one prompt's chunks pass the stages one after another, each
      // stage doing its layers' share, each chunk crossing pp - 1 hops.
      const double n = std::max(1, steps);
      const TokenCount chunk = std::min(r.prompt_tokens, engine.max_num_batched_tokens);
      ttft = ttft_tp + n * (pp - 1) * hop_seconds(r, chunk);
    }
    at(row.ttft_s, end) = ttft;
    if (end == RateEnd::typical) {
      row.floor_tokens_per_s = accepted / forwards.floor_step();
    }
    for (const int requests : r.concurrency) {
      if (end == RateEnd::slow) {
        ExpectConcurrency added;
        added.requests = requests;
        row.decode.push_back(added);
      }
      ExpectConcurrency& c = *std::find_if(row.decode.begin(), row.decode.end(),
                                           [&](const auto& x) { return x.requests == requests; });
      // Requests spread over the replicas as evenly as they go.
      const int base = requests / row.replicas;
      const int extra = requests % row.replicas;
      double aggregate = 0.0;
      double per_request_sum = 0.0;
      int served = 0;
      for (int replica = 0; replica < row.replicas; ++replica) {
        const int given = base + (replica < extra ? 1 : 0);
        if (given == 0) continue;
        // Then over its DP ranks, in lockstep at the busiest rank's pace.
        const int batch = running((given + dp - 1) / dp, engine, kv_sequences);
        int runs = 0;
        for (int rank = 0; rank < dp; ++rank) {
          const int on_rank = given / dp + (rank < given % dp ? 1 : 0);
          if (on_rank > 0) runs += running(on_rank, engine, kv_sequences);
        }
        // With PP, up to pp micro-batches of the batch share the pipeline;
        // each request's token comes once per trip through every stage.
        const int microbatches = std::min(batch, pp);
        const int each = (batch + microbatches - 1) / microbatches;
        const TokenCount tokens =
            static_cast<TokenCount>(each) * (1 + engine.num_speculative_tokens);
        const double period =
            pp > 1 ? pp * (forwards.decode_step(each, context) / pp + hop_seconds(r, tokens))
                   : forwards.decode_step(batch, context);
        const double rate = accepted / period;
        aggregate += rate * runs;
        per_request_sum += rate * runs;
        served += runs;
        if (replica == 0) {
          c.batch = batch;
          c.kv_sequences = kv_sequences;
        }
      }
      at(c.aggregate, end) = aggregate;
      at(c.per_request, end) = served > 0 ? per_request_sum / served : 0.0;
    }
  }
  const double one = row.decode.empty() ? 0.0 : row.decode.front().per_request.typical;
  row.request_seconds =
      row.ttft_s.typical + (one > 0.0 ? static_cast<double>(r.output_tokens - 1) / one : 0.0);
}

/// An xPyD layout: the decode instances of every replica of the group serve
/// the requests as replicas of their TP do; one request alone waits for its
/// prompt on a prefill instance, the hand-off, and a decode step at the
/// prompt (docs/formulas.md s.32). Returns the note that shows the hand-off.
std::string fill_disaggregated(const ExpectRequest& r, double accepted, ExpectLayout& row) {
  const DisaggregationLayout& d = *row.disaggregation;
  ExpectLayout decode = row;
  decode.layout = ParallelLayout{d.decode_tp, 1, 1};
  decode.replicas = row.replicas * d.decode_instances;
  decode.refusal = tp_refusal(r.model, d.decode_tp);
  fill_layout(r, accepted, decode);
  row.decode = decode.decode;
  row.floor_tokens_per_s = decode.floor_tokens_per_s;
  row.fits = decode.fits;
  row.limit = decode.limit;
  const std::string prefill_refusal = tp_refusal(r.model, d.prefill_tp);
  row.refusal = !prefill_refusal.empty() ? prefill_refusal : decode.refusal;
  EngineConfig prefill_engine = r.engine;
  prefill_engine.tensor_parallel_size = d.prefill_tp;
  MemoryRequest memory{ParallelLayout{d.prefill_tp, 1, 1}, prefill_engine, r.node, r.memory};
  memory.settings.max_model_len = r.prompt_tokens + 1;
  const MemoryReport prefill_fit = analyze_memory(r.model, memory);
  if (row.fits && !prefill_fit.fits) {
    row.fits = false;
    row.limit = prefill_fit.limit;
  }
  const KvTransfer kv = kv_transfer(r.model, d.prefill_tp, d.decode_tp, r.prompt_tokens,
                                    KvTransferSettings{16, r.memory.kv_cache_dtype_bytes});
  const KvTransferTime hand_off = kv_transfer_time(r.fabric, kv, r.node, Seconds(0.0));
  std::string note = fmt::format(
      "{}: a {}-token prompt hands {:.1f} MB to each decode rank ({} blocks) in {:.1f} ms{}; not "
      "validated on Spark",
      d.name(), r.prompt_tokens, kv.per_decode_rank.count() / 1e6, kv.blocks,
      hand_off.total.value() * 1e3,
      hand_off.host_staged ? fmt::format(", {:.1f} ms of it staged through host memory",
                                         hand_off.staging.value() * 1e3)
                           : std::string());
  if (!row.fits || !row.refusal.empty()) return note;
  EngineConfig decode_engine = r.engine;
  decode_engine.tensor_parallel_size = d.decode_tp;
  for (const RateEnd end : kEnds) {
    Forwards prefill(r, prefill_engine, end, accepted);
    Forwards decoder(r, decode_engine, end, accepted);
    at(row.ttft_s, end) = prefill.prompt_alone().first + hand_off.total.value() +
                          decoder.decode_step(1, r.prompt_tokens);
  }
  const double one = row.decode.empty() ? 0.0 : row.decode.front().per_request.typical;
  row.request_seconds =
      row.ttft_s.typical + (one > 0.0 ? static_cast<double>(r.output_tokens - 1) / one : 0.0);
  return note;
}

}  // namespace

ExpectReport run_expect(const ExpectRequest& r) {
  require(r.node.expected.has_value(), "node",
          fmt::format("{} has no expected rates in its catalog entry (`expected`): measure the "
                      "cluster (workload.baseline, decode.itl) or give a node that has them",
                      r.node.name));
  require(r.nodes >= 1 && r.nodes <= kMaxClusterNodes, "cluster.nodes",
          fmt::format("{} is out of range; allowed 1 to {}", r.nodes, kMaxClusterNodes));
  require(!r.concurrency.empty(), "expect.concurrency", "give at least one concurrency");
  for (const int c : r.concurrency) {
    require(c >= 1 && c <= 1000000, "expect.concurrency",
            fmt::format("{} is out of range; allowed 1 to 1000000 requests", c));
  }
  require(r.prompt_tokens >= 1 && r.prompt_tokens <= kMaxTokens, "workload.prompts",
          fmt::format("{} prompt tokens is out of range; allowed 1 to {}", r.prompt_tokens,
                      kMaxTokens));
  require(r.output_tokens >= 1 && r.output_tokens <= kMaxTokens, "workload.output_tokens",
          fmt::format("{} output tokens is out of range; allowed 1 to {}", r.output_tokens,
                      kMaxTokens));
  validate(r.engine);

  ExpectReport report;
  report.source = r.node.expected->source;
  report.warnings = r.model.doubts();
  report.accepted_tokens = accepted_tokens_per_decode(r.engine, r.accepted_tokens);
  if (!r.accepted_tokens && r.engine.num_speculative_tokens > 0) {
    report.warnings.push_back(fmt::format(
        "accepted tokens per decode forward not given: assumed 1 + {} drafts = {} (every draft "
        "accepted)",
        r.engine.num_speculative_tokens, report.accepted_tokens));
  }
  std::vector<ParallelLayout> layouts =
      r.layouts.empty() ? layouts_of(r.nodes, r.model.num_layers()) : r.layouts;
  if (r.layouts.empty()) {
    for (const ParallelLayout& ep : expert_parallel_layouts_of(r.nodes, r.model))
      layouts.push_back(ep);
  }
  std::string expert_parallel_left_out;
  for (const ParallelLayout& layout : layouts) {
    const bool expert_parallel = layout.data_parallel() > 1;
    if (expert_parallel) {
      validate_layout(layout, r.model);
      require(layout.pp == 1, "layout.pp",
              fmt::format("{}: pipeline stages with expert parallelism are not modelled",
                          layout.name()));
    }
    const int nodes = layout.nodes();
    if (nodes > r.nodes || r.nodes % nodes != 0) continue;
    if (layout.pp > r.model.num_layers()) continue;
    ExpectLayout row;
    row.layout = layout;
    row.replicas = r.nodes / nodes;
    row.refusal = tp_refusal(r.model, layout.tp);
    if (expert_parallel && r.layouts.empty()) {
      // An enumerated EP layout the fabric cannot run (an all-to-all over
      // cables that do not join every pair) is left out, and said.
      try {
        fill_layout(r, report.accepted_tokens, row);
      } catch (const InputError& e) {
        expert_parallel_left_out = e.what();
        continue;
      }
    } else {
      fill_layout(r, report.accepted_tokens, row);
    }
    report.layouts.push_back(std::move(row));
  }
  for (const DisaggregationLayout& d : r.disaggregations) {
    const int nodes = d.nodes();
    if (nodes > r.nodes || r.nodes % nodes != 0) {
      report.warnings.push_back(fmt::format("{} takes {} nodes, which do not divide the {} asked",
                                            d.name(), nodes, r.nodes));
      continue;
    }
    ExpectLayout row;
    row.layout = ParallelLayout{d.decode_tp, 1, 1};
    row.disaggregation = d;
    row.replicas = r.nodes / nodes;
    report.notes.push_back(fill_disaggregated(r, report.accepted_tokens, row));
    report.layouts.push_back(std::move(row));
  }
  double least = 0.0;
  double most = 0.0;
  for (std::size_t i = 0; i < report.layouts.size(); ++i) {
    const ExpectLayout& row = report.layouts[i];
    if (!row.fits || !row.refusal.empty() || row.decode.empty()) continue;
    if (report.best_latency < 0 || row.request_seconds < least) {
      least = row.request_seconds;
      report.best_latency = static_cast<int>(i);
    }
    const double aggregate = row.decode.back().aggregate.typical;
    if (report.best_throughput < 0 || aggregate > most) {
      most = aggregate;
      report.best_throughput = static_cast<int>(i);
    }
  }
  if (report.best_latency >= 0) {
    const ExpectLayout& best = report.layouts[static_cast<std::size_t>(report.best_latency)];
    EngineConfig engine = r.engine;
    engine.tensor_parallel_size = best.layout.tp;
    Forwards forwards(r, engine, RateEnd::typical, report.accepted_tokens,
                      ExpertParallel{best.layout.data_parallel(), {}});
    for (const TokenCount context : {TokenCount{4096}, TokenCount{32768}, TokenCount{131072}}) {
      const double period = forwards.decode_step(1, context);
      report.context_slowdown.emplace_back(context, report.accepted_tokens / period);
    }
  } else {
    report.warnings.push_back(
        fmt::format("no layout of {} on {} x {} fits in memory and starts: see tpnet memory",
                    r.model.name, r.nodes, r.node.name));
  }
  report.notes.emplace_back(
      "expected from public runs on the node; a measured baseline or ITL (tpnet predict) replaces "
      "them");
  report.notes.push_back(fmt::format(
      "decode at a context of {} tokens each (the prompt and half the output); concurrent requests "
      "spread over the replicas, each running at most max_num_seqs and what its KV cache holds",
      r.prompt_tokens + r.output_tokens / 2));
  if (std::any_of(report.layouts.begin(), report.layouts.end(),
                  [](const ExpectLayout& l) { return l.layout.data_parallel() > 1; })) {
    report.notes.emplace_back(
        "TPxEP layouts are expert parallelism with data-parallel attention (vLLM's "
        "enable_expert_parallel, data_parallel_size ep / tp): not validated on Spark, no public "
        "measurement of one between Sparks exists that tpnet knows of; requests spread over the "
        "replicas, then over each one's DP ranks, which run in lockstep at the busiest rank's "
        "pace, every rank taken to carry as many tokens as it (docs/formulas.md s.31.2)");
    for (const ExpectLayout& row : report.layouts) {
      if (row.layout.data_parallel() <= 1 || !row.fits || !row.refusal.empty()) continue;
      EngineConfig engine = r.engine;
      engine.tensor_parallel_size = row.layout.tp;
      const auto alltoall = [&](TokenCount tokens) {
        return expert_alltoall(r.model, engine, row.layout, {}, static_cast<double>(tokens));
      };
      for (std::string& note : expert_alltoall_pricing_notes(
               r.fabric, alltoall(1), alltoall(engine.max_num_batched_tokens))) {
        if (std::find(report.notes.begin(), report.notes.end(), note) == report.notes.end())
          report.notes.push_back(std::move(note));
      }
    }
  }
  if (!expert_parallel_left_out.empty()) {
    report.notes.push_back(
        fmt::format("some TPxEP layouts are left out: {}", expert_parallel_left_out));
  }
  if (std::any_of(report.layouts.begin(), report.layouts.end(),
                  [](const ExpectLayout& l) { return l.layout.pp > 1; })) {
    report.notes.emplace_back(
        "pipeline stages are taken as balanced, up to pp micro-batches of different requests in "
        "flight (one request's forwards cross the stages one after another), each hop a two-rank "
        "transfer of the activations");
  }
  return report;
}

SingleLayoutExpectation expect_single_layout(
    ExpectRequest request, const ParallelLayout& layout,
    const std::optional<DisaggregationLayout>& disaggregation) {
  request.layouts.clear();
  request.disaggregations.clear();
  if (disaggregation) {
    request.disaggregations = {*disaggregation};
  } else {
    request.layouts = {layout};
  }
  SingleLayoutExpectation out;
  try {
    const ExpectReport report = run_expect(request);
    for (const auto& row : report.layouts) {
      const bool same = disaggregation ? row.disaggregation.has_value()
                                       : !row.disaggregation && row.layout == layout;
      if (same) {
        out.row = row;
        break;
      }
    }
  } catch (const InputError& e) {
    out.refused = e;
  }
  return out;
}

}  // namespace tpnet
