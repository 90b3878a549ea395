// One layer's shapes (tpnet/model/layer.hpp): the names its kinds print
// under, which mixers are attention, and what counts as stated.

#include <set>
#include <string>

#include "catch.hpp"
#include "tpnet/model/layer.hpp"

using namespace tpnet;

TEST_CASE("every mixer, FFN and linear kind has a name of its own", "[layer]") {
  std::set<std::string> mixers;
  for (const Mixer m : kMixers) mixers.insert(std::string(to_string(m)));
  CHECK(mixers == std::set<std::string>{"attention", "sliding_window", "chunked_attention",
                                        "linear_attention", "mamba", "cross_attention", "none"});
  std::set<std::string> ffns;
  for (const FfnKind f : kFfnKinds) ffns.insert(std::string(to_string(f)));
  CHECK(ffns == std::set<std::string>{"dense", "moe", "none"});
  CHECK(to_string(LinearKind::gated_deltanet) == "gated_deltanet");
  CHECK(to_string(LinearKind::lightning) == "lightning");
}

TEST_CASE("attention of every span has attention shapes, the recurrent mixers do not", "[layer]") {
  CHECK(is_attention(Mixer::attention));
  CHECK(is_attention(Mixer::sliding_window));
  CHECK(is_attention(Mixer::chunked_attention));
  CHECK(is_attention(Mixer::cross_attention));
  CHECK_FALSE(is_attention(Mixer::linear_attention));
  CHECK_FALSE(is_attention(Mixer::mamba));
  CHECK_FALSE(is_attention(Mixer::none));
}

TEST_CASE("a shape is stated when its sizes are, and a shared expert is as wide as the routed",
          "[layer]") {
  CHECK_FALSE(MlaSpec{}.stated());
  CHECK(MlaSpec{512, 1536, 64, 128, 128}.stated());
  CHECK_FALSE(SparseIndexer{2048, 0, 0}.scores());  // the top-k known, the indexer not
  CHECK(SparseIndexer{2048, 64, 128}.scores());
  CHECK_FALSE(LinearAttentionSpec{}.stated());
  CHECK_FALSE(MambaSpec{}.stated());
  MoeSpec moe{256, 8, 1, 2048, 0, 0};
  CHECK(moe.shared_width() == 2048);
  moe.shared_expert_intermediate_size = 512;
  CHECK(moe.shared_width() == 512);
  // Layers compare by every shape: runs merge only identical layers.
  LayerSpec a;
  LayerSpec b;
  CHECK(a == b);
  b.mixer.attention.window = 128;
  CHECK_FALSE(a == b);
}
