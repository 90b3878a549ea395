// The model as data (tpnet/model/model.hpp): the head width a model implies
// when it states none, each part's bits, and the names every kind prints as
// (model YAML keys and JSON values read them back, so they must be distinct).

#include <set>
#include <string>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/model/model.hpp"

using namespace tpnet;
using namespace tpnet::test;
using tpnet::test::tiny_dense;

TEST_CASE("the model's layer count is its plan's", "[params]") {
  ModelArch m = tiny_dense();
  CHECK(m.num_layers() == 2);
  m.layers.append(m.layers.at(0), 3);
  CHECK(m.num_layers() == 5);
  CHECK(m.layers.runs().size() == 1);
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
  CHECK(mixers.size() == 7);
  CHECK(to_string(Mixer::chunked_attention) == "chunked_attention");
  CHECK(to_string(Mixer::sliding_window) == "sliding_window");
  CHECK(to_string(Mixer::cross_attention) == "cross_attention");
  std::set<std::string> ffns;
  for (const FfnKind x : kFfnKinds) ffns.insert(std::string(to_string(x)));
  CHECK(ffns == std::set<std::string>{"dense", "moe", "none"});
  std::set<std::string> parts;
  for (const WeightPart x : kWeightParts) parts.insert(std::string(to_string(x)));
  CHECK(parts.size() == 8);
  CHECK(to_string(WeightPart::routed_experts) == "routed_experts");
  CHECK(to_string(LinearKind::kimi_delta) == "kimi_delta");
  CHECK(to_string(TablePlacement::disk) == "disk");
}
