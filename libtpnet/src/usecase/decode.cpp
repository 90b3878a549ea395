#include "tpnet/usecase/decode.hpp"
#include "tpnet/fabric/allreduce_time.hpp"
#include "tpnet/sim/decode_floor.hpp"

#include "tpnet/sim/step_cost.hpp"

#include <algorithm>
#include <string>

#include "tpnet/base/error.hpp"
#include "tpnet/model/weights.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/transfer_time.hpp"

namespace tpnet {

DecodeReport analyze_decode(const ModelArch& model, const EngineConfig& engine, const Link& from,
                            const Link& to, const DecodeInputs& inputs) {
  require_network_tp(engine);
  if (inputs.requests < 1 || inputs.requests > kMaxRunningRequests) {
    throw InputError(std::to_string(inputs.requests) + " is not allowed; use 1 to " +
                         std::to_string(kMaxRunningRequests) + " running requests",
                     InputLocation::for_key("workload.decode_requests"));
  }
  if (!(inputs.memory_bandwidth.bits_per_second() > 0.0)) {
    throw InputError("must be positive: the weight-read floor reads the weights at it",
                     InputLocation::for_key("memory.memory_bandwidth"));
  }
  const int tp = engine.tensor_parallel_size;
  DecodeReport r;
  r.tokens_per_forward = static_cast<TokenCount>(inputs.requests) *
                         (1 + static_cast<TokenCount>(engine.num_speculative_tokens));
  r.allreduce = allreduce_traffic(activation_block(model, engine, r.tokens_per_forward), tp,
                                  engine.algorithm);
  r.allreduces_per_forward = allreduces_per_forward(model, engine);
  r.transfer_from = allreduce_transfer_time(r.allreduce, from.rate);
  r.transfer_to = allreduce_transfer_time(r.allreduce, to.rate);
  const CollectiveSettings& settings = inputs.collective;
  r.allreduce_pricing = price_allreduce_latency(r.allreduce, from, settings);
  r.allreduce_latency = r.allreduce_pricing.alpha;
  NcclSetup unpinned = nccl_setup(r.allreduce, from, settings);
  unpinned.algorithms = NcclSetup{}.algorithms;
  unpinned.protocols = NcclSetup{}.protocols;
  r.nccl_unpinned = choose_nccl_allreduce(r.allreduce.block, unpinned);
  // alpha at `from` against the transfer at the slower link.
  r.regime =
      r.allreduce_latency >= allreduce_transfer_time(r.allreduce, std::min(from.rate, to.rate))
          ? CommRegime::latency_bound
          : CommRegime::bandwidth_bound;
  r.allreduce_forward_bytes = r.allreduce.sent_per_node * r.allreduces_per_forward;

  // vLLM's vocab-parallel LM head ends with a ring all-gather of the logits of
  // every token it samples or verifies: each node sends (N-1)/N of them.
  const double logits_full = static_cast<double>(r.tokens_per_forward) *
                             static_cast<double>(model.vocab_size) * engine.activation_bytes;
  r.logits_sent = logits_gather_bytes(model, engine, tp, r.tokens_per_forward);
  r.forward_sent = r.allreduce_forward_bytes + r.logits_sent;

  r.weight_bytes_per_node = active_weight_bytes(model) / static_cast<double>(tp);
  r.memory_bandwidth = inputs.memory_bandwidth;
  r.weight_read_floor = weight_read_floor(model, tp, inputs.memory_bandwidth);
  r.traffic_ceiling = r.forward_sent / r.weight_read_floor;
  r.max_added_per_forward = extra_transfer_time(r.forward_sent, from.rate, to.rate);
  r.max_added_share = r.max_added_per_forward / r.weight_read_floor;
  // The gather is a ring of N-1 steps; NCCL prices it on the gathered size.
  if (const auto& alpha = settings.latency_override) {
    r.gather_latency = alpha->base + alpha->per_step * (tp - 1);
  } else {
    r.gather_nccl =
        choose_nccl_allgather(Bytes(logits_full), nccl_setup(r.allreduce, from, settings));
    r.gather_latency = r.gather_nccl->chosen.latency;
  }
  r.latency_per_forward = r.allreduce_latency * r.allreduces_per_forward + r.gather_latency;
  const double request_tokens = 1.0 + static_cast<double>(engine.num_speculative_tokens);
  const Seconds floor_and_bytes_from = r.weight_read_floor + r.forward_sent / from.rate;
  const Seconds floor_and_bytes_to = r.weight_read_floor + r.forward_sent / to.rate;
  r.request_tokens_per_s_bound_from = request_tokens / floor_and_bytes_from.value();
  r.request_tokens_per_s_bound_to = request_tokens / floor_and_bytes_to.value();
  r.request_tokens_per_s_with_latency_from =
      request_tokens / (floor_and_bytes_from + r.latency_per_forward).value();
  r.request_tokens_per_s_with_latency_to =
      request_tokens / (floor_and_bytes_to + r.latency_per_forward).value();

  r.warnings = model.doubts();
  for (auto& w : layout_warnings(model, engine)) r.warnings.push_back(std::move(w));
  if (inputs.requests > engine.max_num_seqs) {
    r.warnings.push_back(
        std::to_string(inputs.requests) + " requests exceed `engine.max_num_seqs` " +
        std::to_string(engine.max_num_seqs) + "; vLLM would run at most that many at once");
  }
  return r;
}

DecodeReport run_decode(const DecodeRequest& request) {
  DecodeInputs inputs;
  inputs.requests = request.requests;
  inputs.collective = request.collective;
  inputs.memory_bandwidth = request.memory_bandwidth.value_or(request.node.memory_bandwidth);
  if (!request.memory_bandwidth && !(inputs.memory_bandwidth.bits_per_second() > 0.0)) {
    throw InputError("states no memory_bandwidth; give `memory.memory_bandwidth`",
                     InputLocation::for_key("node"));
  }
  DecodeReport r =
      analyze_decode(request.model, request.engine, request.from.link, request.to.link, inputs);
  if (request.calibration) {
    CalibrationAsk ask;
    ask.tps = {request.engine.tensor_parallel_size};
    ask.from = {request.from.link};
    ask.use_compute = false;
    r.calibration = check_calibration(*request.calibration, request.model, request.engine, ask);
    r.point =
        point_decode(*r.calibration->allreduce, request.model, request.engine, r.tokens_per_forward,
                     r.logits_sent, request.from.link.rate, request.to.link.rate);
    r.point_added_share = r.point->added_per_forward / r.weight_read_floor;
    for (const auto& w : r.calibration->warnings) r.warnings.push_back(w);
  }
  if (request.from.fabric && request.to.fabric) {
    ScheduledStep step;
    for (int i = 0; i < request.requests; ++i) {
      step.work.push_back(StepWork{i, 0, 0, 1 + request.engine.num_speculative_tokens, false});
    }
    DecodeReport::FabricForward f;
    f.comm_from =
        step_communication(request.model, request.engine, *request.from.fabric, step).time;
    f.comm_to = step_communication(request.model, request.engine, *request.to.fabric, step).time;
    f.added = f.comm_to - f.comm_from;
    f.added_share = f.added / r.weight_read_floor;
    r.fabric = f;
  }
  return r;
}

}  // namespace tpnet
