// The model as data (tpnet/model/model.hpp): the head width a model implies
// when it states none, each part's bits, and the names every kind prints as
// (model YAML keys and JSON values read them back, so they must be distinct).

#include <set>
#include <string>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/model/model.hpp"

using namespace tpnet;
using tpnet::test::tiny_dense;

TEST_CASE("the head width: stated, else MLA's nope + rope, else hidden / heads", "[params]") {
  ModelArch m = tiny_dense();  // head_dim 16 stated, hidden 64, 8 heads
  CHECK(effective_head_dim(m) == 16);
  m.head_dim = 0;
  CHECK(effective_head_dim(m) == 8);  // 64 / 8
  // DeepSeek-V3's MLA: 128 non-rotary + 64 rotary dimensions per query head.
  m.mla = MlaSpec{512, 1536, 64, 128, 128};
  CHECK(effective_head_dim(m) == 192);
  m.mla.reset();
  m.num_attention_heads = 0;  // no attention at all: no width, not a division by zero
  CHECK(effective_head_dim(m) == 0);
}

TEST_CASE("a part is at its own bits when the checkpoint lists it, else bits_per_weight",
          "[params]") {
  ModelArch m = tiny_dense();
  m.bits_per_weight = 8.0;
  m.part_bits = {{WeightPart::routed_experts, 4.25}, {WeightPart::router, 16.0}};
  CHECK(m.bits_of(WeightPart::routed_experts) == 4.25);  // MXFP4: 4 bits and a scale per 32
  CHECK(m.bits_of(WeightPart::router) == 16.0);
  CHECK(m.bits_of(WeightPart::attention) == 8.0);
  CHECK(m.bits_of(WeightPart::lm_head) == 8.0);
}

TEST_CASE("every mixer, FFN kind and weight part has a name of its own", "[params]") {
  std::set<std::string> mixers;
  for (const Mixer x : kMixers) mixers.insert(std::string(to_string(x)));
  CHECK(mixers.size() == 6);
  CHECK(to_string(Mixer::sliding_window) == "sliding_window");
  CHECK(to_string(Mixer::cross_attention) == "cross_attention");
  std::set<std::string> ffns;
  for (const FfnKind x : kFfnKinds) ffns.insert(std::string(to_string(x)));
  CHECK(ffns == std::set<std::string>{"dense", "moe", "none"});
  std::set<std::string> parts;
  for (const WeightPart x : kWeightParts) parts.insert(std::string(to_string(x)));
  CHECK(parts.size() == 7);
  CHECK(to_string(WeightPart::routed_experts) == "routed_experts");
  CHECK(to_string(AttentionKind::hybrid_linear) == "hybrid-linear");
  CHECK(to_string(AttentionKind::compressed) == "compressed");
  CHECK(to_string(TablePlacement::disk) == "disk");
}
