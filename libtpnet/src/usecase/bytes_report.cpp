#include "tpnet/usecase/bytes_report.hpp"
#include "tpnet/fabric/allreduce_time.hpp"

namespace tpnet {

BytesReport analyze_bytes(const ModelArch& model, const EngineConfig& engine, const Link& link,
                          const CollectiveSettings& settings, Seconds fixed_overhead) {
  require_network_tp(engine);
  BytesReport report;
  report.allreduces_per_forward = allreduces_per_forward(model, engine);
  report.per_token_bytes = bytes_per_prompt_token(model, engine);
  report.sent_factor = allreduce_sent_factor(engine.tensor_parallel_size, engine.algorithm);
  report.chunk_allreduce =
      allreduce_traffic(activation_block(model, engine, engine.max_num_batched_tokens),
                        engine.tensor_parallel_size, engine.algorithm);
  report.chunk_forward_bytes = report.chunk_allreduce.sent_per_node * report.allreduces_per_forward;
  report.link = link;
  report.chunk_allreduce_transfer = allreduce_transfer_time(report.chunk_allreduce, link.rate);
  report.chunk_latency_pricing = price_allreduce_latency(report.chunk_allreduce, link, settings);
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
  // The model's doubts first: every command that uses a model shows them.
  report.warnings = model.doubts();
  for (auto& w : layout_warnings(model, engine)) report.warnings.push_back(std::move(w));
  return report;
}

}  // namespace tpnet
