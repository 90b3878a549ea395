// Point estimates from a calibration (tpnet/measured/point_estimate.hpp,
// docs/formulas.md s.19): a prefill's and a decode forward's all-reduces
// priced on the measured curve, and compute per token moved to another layout.

#include <memory>
#include <string>

#include "calibration_fixtures.hpp"
#include "catch.hpp"
#include "golden.hpp"
#include "tpnet/fabric/measured_allreduce.hpp"
#include "tpnet/io/calibration_yaml.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/measured/point_estimate.hpp"
#include "tpnet/traffic/transfer_time.hpp"

using namespace tpnet;
using tpnet::test::four_ranks;
using tpnet::test::full_calibration;
using tpnet::test::point;

namespace {

/// glm-5.3 TP8 on 200G, measured at exactly the blocks of 1,024 and 4,096
/// tokens (S = t x 6,144 x 2): 1,000 us and 3,800 us; alpha 20 us.
AllReduceCalibration glm_tp8() {
  AllReduceCalibration c = four_ranks();
  c.ranks = 8;
  c.alpha = Seconds::microseconds(20.0);
  c.beta = BitRate::gigabits_per_second(190.0);
  c.curve = {point(1e3, 30.0), point(12582912.0, 1000.0), point(50331648.0, 3800.0),
             point(1e9, 75000.0)};
  return c;
}

}  // namespace

TEST_CASE("prefill point: 157 all-reduces per forward, a full chunk and a partial one",
          "[calibration][golden]") {
  const ModelArch model = resolve_model("glm-5.3");
  EngineConfig engine;
  engine.tensor_parallel_size = 8;
  const AllReduceCalibration c = glm_tp8();
  const BitRate g200 = BitRate::gigabits_per_second(200.0);
  const BitRate g100 = BitRate::gigabits_per_second(100.0);
  // 5,120 tokens = one 4,096-token forward and one of 1,024.
  const PrefillPoint p = point_prefill(c, model, engine, ParallelLayout{8, 1, 1},
                                       PromptSpec{1, 5120}, g200, g100, Seconds(0.5e-3));
  CHECK(p.forwards == 2);
  CHECK(p.last_tokens == 1024);
  // 157 x (3,800 + 1,000) us at 200G; at 100G the transfer doubles:
  // 157 x ((20 + 2 x 3,780) + (20 + 2 x 980)) us.
  CHECK_THAT(p.comm_from.value(), WithinRel(157 * 4800e-6, 1e-12));
  CHECK_THAT(p.comm_to.value(), WithinRel(157 * 9560e-6, 1e-12));
  CHECK_THAT(p.extra.value(), WithinRel(157 * 4760e-6, 1e-12));
  // Compute 0.5 ms x 5,120 = 2.56 s: share 0.7536 / 3.3136, increase 0.74732 / 3.3136.
  REQUIRE(p.compute);
  CHECK_THAT(p.compute->value(), WithinRel(2.56, 1e-12));
  CHECK_THAT(*p.network_share, WithinRel(0.7536 / 3.3136, 1e-12));
  CHECK_THAT(*p.ttft_increase, WithinRel(0.74732 / 3.3136, 1e-12));
  // Without compute: no share.
  const PrefillPoint bare =
      point_prefill(c, model, engine, ParallelLayout{8, 1, 1}, PromptSpec{1, 5120}, g200, g100);
  CHECK_FALSE(bare.network_share);
}

TEST_CASE("decode point: one all-reduce of the decode block, all of a forward, the gather",
          "[calibration][golden]") {
  const ModelArch model = resolve_model("glm-5.3");
  EngineConfig engine;
  engine.tensor_parallel_size = 8;
  const AllReduceCalibration c = glm_tp8();
  const BitRate g200 = BitRate::gigabits_per_second(200.0);
  const BitRate g100 = BitRate::gigabits_per_second(100.0);
  const Bytes logits(1e6);
  const DecodePoint d = point_decode(c, model, engine, 1, logits, g200, g100);
  CHECK(d.block.count() == 12288.0);
  const Seconds at200 = measured_allreduce_time(c, Bytes(12288.0));
  CHECK_THAT(d.allreduce_from.value(), WithinRel(at200.value(), 1e-12));
  CHECK_THAT(d.allreduce_to.value(), WithinRel(20e-6 + (at200.value() - 20e-6) * 2.0, 1e-12));
  // Gather: 7 steps of 20/14 us plus 1 MB at 190 Gb/s (95 at 100G).
  const double gather200 = 7 * 20e-6 / 14 + 8e6 / 190e9;
  const double gather100 = 7 * 20e-6 / 14 + 8e6 / 95e9;
  CHECK_THAT(d.forward_comm_from.value(), WithinRel(157 * at200.value() + gather200, 1e-12));
  CHECK_THAT(
      d.added_per_forward.value(),
      WithinRel(157 * (d.allreduce_to - d.allreduce_from).value() + gather100 - gather200, 1e-9));
}

TEST_CASE("compute per token divides evenly over another layout's nodes", "[calibration]") {
  ComputeCalibration m;
  m.tp = 8;
  m.per_prompt_token = Seconds(0.6e-3);
  CHECK_THAT(compute_per_token_for(m, ParallelLayout{8, 1, 1}).value(), WithinRel(0.6e-3, 1e-12));
  CHECK_THAT(compute_per_token_for(m, ParallelLayout{16, 1, 1}).value(), WithinRel(0.3e-3, 1e-12));
  CHECK_THAT(compute_per_token_for(m, ParallelLayout{4, 2, 1}).value(), WithinRel(0.6e-3, 1e-12));
}

TEST_CASE("GLM-5.3 P2 from the synthetic calibration: +1.13 s and 18.8% beside the +1.11 s bound",
          "[calibration][golden]") {
  const Calibration c =
      load_calibration_yaml(std::string(TPNET_SOURCE_DIR) +
                            "/examples/calibration/calibration_glm53_tp8_200g_synthetic.yaml");
  REQUIRE(c.allreduce);
  REQUIRE(c.compute);
  const ModelArch model = resolve_model("glm-5.3");
  EngineConfig engine;
  engine.tensor_parallel_size = 8;
  const BitRate g200 = BitRate::gigabits_per_second(200.0);
  const BitRate g100 = BitRate::gigabits_per_second(100.0);
  const Bytes block(50331648.0);
  // formulas.md s.19's worked example, to its printed precision.
  CHECK(test::prints_as(calibrated_allreduce_time(*c.allreduce, block, 8, g200).value() * 1e6,
                        3635.21, 2));
  CHECK(test::prints_as(calibrated_allreduce_time(*c.allreduce, block, 8, g100).value() * 1e6,
                        7232.62, 2));
  const PrefillPoint p =
      point_prefill(*c.allreduce, model, engine, ParallelLayout{8, 1, 1}, PromptSpec{1, 8192}, g200,
                    g100, compute_per_token_for(*c.compute, ParallelLayout{8, 1, 1}));
  CHECK(p.forwards == 2);
  CHECK(test::prints_as(p.comm_from.value(), 1.1415, 4));
  CHECK(test::prints_as(p.comm_to.value(), 2.2710, 4));
  CHECK(test::prints_as(p.extra.value(), 1.1296, 4));
  CHECK(test::prints_as(p.compute->value(), 4.9153, 4));
  CHECK(test::prints_as(*p.network_share * 100.0, 18.85, 2));
  CHECK(test::prints_as(*p.ttft_increase * 100.0, 18.65, 2));
  // The bound it stands beside: 27,657,240,576 B x 8 / 200 Gb/s.
  const Seconds bound = extra_transfer_time(Bytes(27657240576.0), g200, g100);
  CHECK(test::prints_as(bound.value(), 1.1063, 4));
  CHECK(p.extra > bound);
}
