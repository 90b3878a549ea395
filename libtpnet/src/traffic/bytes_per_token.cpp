#include "tpnet/traffic/bytes_per_token.hpp"

#include <algorithm>
#include <string>

#include "tpnet/base/checked_math.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/model/layer_plan.hpp"
#include "tpnet/model/layout.hpp"

namespace tpnet {

int layer_allreduces(const ModelArch& model, const EngineConfig& engine, int begin, int end) {
  const auto plan = layer_plan(model);
  const LayerTally t = tally_layers(plan, begin, end);
  return engine.allreduces_per_layer ? t.layers * *engine.allreduces_per_layer : t.reduced_blocks;
}

int allreduces_per_forward(const ModelArch& model, const EngineConfig& engine) {
  return layer_allreduces(model, engine, 0, std::max(0, model.num_layers)) +
         engine.extra_allreduces_per_forward;
}

Bytes activation_block(const ModelArch& model, const EngineConfig& engine, TokenCount tokens) {
  // A whole number of bytes, multiplied in checked 64-bit integers.
  const long long values =
      checked_mul(tokens, model.hidden_size, "activation values (tokens x hidden size)");
  return Bytes(static_cast<double>(checked_mul(values, engine.activation_bytes,
                                               "activation block (tokens x hidden size x bytes)")));
}

Bytes bytes_per_prompt_token(const ModelArch& model, const EngineConfig& engine) {
  return activation_block(model, engine, 1) * allreduces_per_forward(model, engine) *
         allreduce_sent_factor(engine.tensor_parallel_size, engine.algorithm);
}

void require_network_tp(const EngineConfig& engine) {
  if (engine.tensor_parallel_size < 2) {
    throw InputError(std::to_string(engine.tensor_parallel_size) +
                         " is not allowed here; use 2 or more (TP1 sends nothing over the "
                         "network)",
                     InputLocation::for_key("layout.tp"));
  }
  validate(engine);
}

std::vector<std::string> layout_warnings(const ModelArch& model, const EngineConfig& engine) {
  std::vector<std::string> warnings;
  const int tp = engine.tensor_parallel_size;
  if (std::string refusal = tp_refusal(model, tp); !refusal.empty()) {
    warnings.push_back(std::move(refusal));
  }
  return warnings;
}

BytesReport analyze_bytes(const ModelArch& model, const EngineConfig& engine, const Link& link,
                          Seconds fixed_overhead) {
  require_network_tp(engine);
  BytesReport report;
  report.allreduces_per_forward = allreduces_per_forward(model, engine);
  report.per_token_bytes = bytes_per_prompt_token(model, engine);
  report.sent_factor = allreduce_sent_factor(engine.tensor_parallel_size, engine.algorithm);
  report.chunk_allreduce =
      plan_allreduce(activation_block(model, engine, engine.max_num_batched_tokens),
                     engine.tensor_parallel_size, engine.algorithm);
  report.chunk_forward_bytes = report.chunk_allreduce.sent_per_node * report.allreduces_per_forward;
  report.link = link;
  report.chunk_allreduce_transfer = allreduce_transfer_time(report.chunk_allreduce, link.rate);
  report.chunk_latency_pricing = price_allreduce_latency(report.chunk_allreduce, link);
  report.chunk_allreduce_latency = report.chunk_latency_pricing.alpha;
  report.chunk_regime = report.chunk_allreduce_latency >= report.chunk_allreduce_transfer
                            ? CommRegime::latency_bound
                            : CommRegime::bandwidth_bound;
  report.fixed_overhead = fixed_overhead;
  report.bytes_in_fixed_overhead = link.rate * fixed_overhead;

  const double reference = report.sent_factor;
  for (int tp : {2, 4, 8, 16}) {
    EngineConfig other = engine;
    other.tensor_parallel_size = tp;
    TpShare row;
    row.tp = tp;
    row.per_token_bytes = bytes_per_prompt_token(model, other);
    row.bytes_vs_reference = allreduce_sent_factor(tp, engine.algorithm) / reference;
    row.compute_vs_reference = static_cast<double>(engine.tensor_parallel_size) / tp;
    report.tp_scaling.push_back(row);
  }
  report.warnings = layout_warnings(model, engine);
  return report;
}

}  // namespace tpnet
