// What bounds one decode forward from below (tpnet/sim/decode_floor.hpp,
// docs/formulas.md s.6): each node's share of the active weights read at the
// memory bandwidth, and the logits' all-gather.

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/sim/decode_floor.hpp"

using namespace tpnet;

TEST_CASE("the logits gather sends tokens x vocabulary x bytes x (N-1)/N", "[decode]") {
  const ModelArch tiny = tpnet::test::tiny_dense();  // vocabulary 100
  const EngineConfig bf16;
  // 5 tokens x 100 x 2 B x 3/4 = 750 B at TP4; one rank gathers nothing.
  CHECK(logits_gather_bytes(tiny, bf16, 4, 5).count() == 750.0);
  CHECK(logits_gather_bytes(tiny, bf16, 1, 5).count() == 0.0);
  // formulas.md s.6: GLM-5.3 TP8 with 4 drafts, 5 x 129,280 x 2 x 7/8 = 1,131,200 B.
  CHECK(logits_gather_bytes(builtin_model("glm-5.3"), bf16, 8, 5).count() == 1131200.0);
}

TEST_CASE("the weight-read floor: active weights over nodes at the memory bandwidth",
          "[decode][golden]") {
  // formulas.md s.6: 40e9 x 4.5 / 8 / 8 = 2.8125 GB at 273 GB/s, 10.302 ms.
  const ModelArch glm = builtin_model("glm-5.3");
  const BitRate spark = BitRate::gigabytes_per_second(273);
  CHECK_THAT(weight_read_floor(glm, 8, spark).value(), WithinRel(2.8125e9 / 273e9, 1e-12));
  CHECK_THAT(weight_read_floor(glm, 8, spark).value() * 1e3, WithinAbs(10.302, 5e-4));
  CHECK_THAT(weight_read_floor(glm, 4, spark).value(),
             WithinRel(2 * weight_read_floor(glm, 8, spark).value(), 1e-12));
  // A dense model by hand: 1B active at 16 bits is 2 GB; 1 GB a node over 2 at 100 GB/s.
  ModelArch tiny = tpnet::test::tiny_dense();
  tiny.active_params = 1e9;
  CHECK_THAT(weight_read_floor(tiny, 2, BitRate::gigabytes_per_second(100)).value(),
             WithinRel(0.01, 1e-12));
}
