#include "tpnet/sim/expected_compute.hpp"

namespace tpnet {

ExpectedCompute expected_compute(const ExpectedRates& rates, const ModelArch& model, RateEnd end,
                                 bool enforce_eager) {
  ExpectedCompute c;
  const ExpectedPrefill& p = rates.prefill;
  const bool sixteen_bit = model.bits_per_weight >= 16.0;
  c.prefill.per_step = Seconds(value_at(p.step_overhead_s, end));
  c.prefill.seconds_per_gemm_flop =
      1.0 / value_at(sixteen_bit ? p.bf16_gemm_flops_per_s : p.gemm_flops_per_s, end);
  c.prefill.seconds_per_expert_flop = 1.0 / value_at(p.expert_gemm_flops_per_s, end);
  c.prefill.seconds_per_mixer_flop = 1.0 / value_at(p.mixer_flops_per_s, end);
  const ExpectedDecode& d = rates.decode;
  c.decode.efficiency = value_at(d.bandwidth_share, end);
  c.decode.per_step =
      Seconds(value_at(enforce_eager ? d.eager_step_overhead_s : d.step_overhead_s, end));
  c.decode.seconds_per_flop = 1.0 / value_at(d.gemm_flops_per_s, end);
  c.decode.expert_concentration = value_at(d.expert_concentration, end);
  return c;
}

}  // namespace tpnet
