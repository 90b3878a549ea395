// The weights each node holds and reads (tpnet/model/weights.hpp,
// docs/formulas.md s.12.1 and s.23): expert parallelism spreads the experts,
// and a decode forward reads the routed experts its tokens touch.

#include <cmath>
#include <string>

#include "catch.hpp"
#include "study_fixtures.hpp"
#include "tpnet/io/hf_config.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/model/weights.hpp"

using namespace tpnet;
using tpnet::test::glm53;

namespace {

const std::string kSource = TPNET_SOURCE_DIR;

}  // namespace

TEST_CASE("expert parallelism spreads the experts' weights over more nodes", "[layout]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  auto per_node = [&](ParallelLayout l) { return weight_memory(v3, l).per_node().count(); };
  const double tp8 = per_node(ParallelLayout{8, 1, 1});
  const double ep16 = per_node(ParallelLayout{8, 1, 16});
  CHECK(ep16 < tp8);
  CHECK(ep16 > tp8 / 2);  // attention and dense parts stay split only 8 ways
  // TP4 x PP2 holds half the layers split four ways: the split parts as TP8,
  // the replicated ones (router, MLA down-projections) halved instead of whole.
  const WeightMemory tp8_parts = weight_memory(v3, ParallelLayout{8, 1, 1});
  const WeightMemory pp2 = weight_memory(v3, ParallelLayout{4, 2, 1});
  CHECK_THAT(pp2.split.count(), WithinRel(tp8_parts.split.count(), 1e-12));
  CHECK_THAT(pp2.replicated_bytes.count(),
             WithinRel(tp8_parts.replicated_bytes.count() / 2, 1e-12));
  CHECK(per_node(ParallelLayout{4, 2, 1}) < tp8);
}

TEST_CASE("a decode forward reads the routed experts its tokens touch") {
  const DecodeWeightReads glm = decode_weight_reads(glm53());
  REQUIRE(glm.experts == 256);
  REQUIRE(glm.experts_per_token == 8);
  CHECK(glm.routed.count() > 0.5 * glm.active.count());
  CHECK(decode_weight_bytes(glm, 1).count() == glm.active.count());
  // Five tokens touch 256 x (1 - (248/256)^5) = 37.6 experts a layer, not 8.
  const double touched = 256.0 * (1.0 - std::pow(248.0 / 256.0, 5.0));
  CHECK_THAT(decode_weight_bytes(glm, 5).count(),
             WithinRel(glm.active.count() + glm.routed.count() * (touched / 8.0 - 1.0), 1e-12));
  // Never more than every expert.
  CHECK(decode_weight_bytes(glm, 100000).count() <
        glm.active.count() + glm.routed.count() * (256.0 / 8.0 - 1.0) + 1.0);
  // A dense model reads the same weights however many tokens.
  const DecodeWeightReads qwen =
      decode_weight_reads(load_hf_config(kSource + "/tests/data/hf/nvidia__Qwen3.6-27B-NVFP4"));
  CHECK(qwen.routed.count() == 0.0);
  CHECK(decode_weight_bytes(qwen, 64).count() == qwen.active.count());
}
