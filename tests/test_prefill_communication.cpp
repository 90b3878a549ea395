// A prompt's communication at two links through the scheduler: the extra
// the slower link adds to the last first token, its range over the
// profiles' measurements, and its achieved-rate bound (docs/formulas.md
// s.25, s.29).

#include "catch.hpp"
#include "study_fixtures.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/sim/prefill_communication.hpp"

using namespace tpnet;
using Catch::Matchers::WithinRel;
using tpnet::test::builtin_profile;
using tpnet::test::glm_engine;

TEST_CASE("GLM-5.3 TP8 P5: penalty's predicted extra carries the profiles' measured range",
          "[golden]") {
  const ModelArch model = resolve_model("glm-5.3");
  const EngineConfig engine = glm_engine();
  const FabricProfile& from = builtin_profile("dgx-spark-200g-switch");
  const FabricProfile& to = builtin_profile("dgx-spark-one-half-switch");
  const PromptSpec p5{1, 65536};
  const PrefillCommunication c =
      prefill_communication(model, engine, from, to, p5, 1024, 2.5, true);
  // The ends are the communication at the crossed ends of the curves.
  const PrefillCommunication low =
      prefill_communication(model, engine, fabric_at_end(from, FabricEnd::slowest),
                            fabric_at_end(to, FabricEnd::fastest), p5, 1024, 2.5);
  const PrefillCommunication high =
      prefill_communication(model, engine, fabric_at_end(from, FabricEnd::fastest),
                            fabric_at_end(to, FabricEnd::slowest), p5, 1024, 2.5);
  CHECK_THAT(c.extra_range.low.value(), WithinRel(low.extra.value(), 1e-12));
  CHECK_THAT(c.extra_range.high.value(), WithinRel(high.extra.value(), 1e-12));
  CHECK(c.extra_range.low < c.extra);
  CHECK(c.extra < c.extra_range.high);
  // docs/prediction.md's table: +6.16 s (+4.50 to +7.71 s).
  CHECK_THAT(c.extra.value(), WithinRel(6.16, 0.005));
  CHECK_THAT(c.extra_range.low.value(), WithinRel(4.50, 0.005));
  CHECK_THAT(c.extra_range.high.value(), WithinRel(7.71, 0.005));
  // Without asking, no extra schedules: the range is the value.
  const PrefillCommunication plain = prefill_communication(model, engine, from, to, p5, 1024, 2.5);
  CHECK(plain.extra_range.low == plain.extra);
  CHECK(plain.extra_range.high == plain.extra);
}

TEST_CASE("GLM-5.3 TP8 4x8k: the achieved-rate bound holds the extra, one link costs nothing") {
  const ModelArch model = resolve_model("glm-5.3");
  const EngineConfig engine = glm_engine();
  const FabricProfile& from = builtin_profile("dgx-spark-200g-switch");
  const FabricProfile& to = builtin_profile("dgx-spark-one-half-switch");
  const PrefillCommunication c =
      prefill_communication(model, engine, from, to, PromptSpec{4, 8192}, 1024, 2.5);
  CHECK(c.steps >= 8);  // 32,768 prompt tokens at 4,096 a step at least
  CHECK(c.extra.value() > 0.0);
  CHECK(c.bound >= c.extra);
  CHECK(c.gap.seconds_per_byte > 0.0);
  const PrefillCommunication same =
      prefill_communication(model, engine, from, from, PromptSpec{4, 8192}, 1024, 2.5);
  CHECK(same.extra.value() == 0.0);
  CHECK_THROWS_WITH(prefill_communication(model, engine, from, to, PromptSpec{0, 8192}, 1024, 2.5),
                    ContainsSubstring("workload.prompts"));
}
