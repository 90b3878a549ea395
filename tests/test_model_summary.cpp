// `tpnet models show` as a use case (tpnet/usecase/model_summary.hpp): what
// the summary counts itself, so the command only lays it out.

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/usecase/model_summary.hpp"

using namespace tpnet;

TEST_CASE("DeepSeek-V4-Flash's summary counts its layers by compression ratio", "[models]") {
  const ModelSummary s = summarize_model(builtin_model("deepseek-v4-flash"));
  // 43 layers (the 44th ratio listed is the MTP layer's): 2 with the window
  // alone, 21 compressing 4 tokens to 1, 20 compressing 128 to 1.
  CHECK(s.compressed_layers.window_only == 2);
  CHECK(s.compressed_layers.ratio_4 == 21);
  CHECK(s.compressed_layers.ratio_128 == 20);
  CHECK(s.compressed_layers.window_only + s.compressed_layers.ratio_4 +
            s.compressed_layers.ratio_128 ==
        s.model.num_layers);
  CHECK(s.layers.layers == s.model.num_layers);
}

TEST_CASE("a summary's layer tally is the layer plan's", "[models]") {
  const ModelSummary s = summarize_model(test::tiny_dense());
  CHECK(s.layers.layers == 2);
  CHECK(s.layers.attention == 2);
  CHECK(s.layers.dense == 2);
  CHECK(s.layers.moe == 0);
  CHECK(s.layers.reduced_blocks == 4);  // a mixer and an FFN in each of 2 layers
  CHECK(s.compressed_layers.window_only == 0);
  CHECK(s.compressed_layers.ratio_4 == 0);
  CHECK(s.compressed_layers.ratio_128 == 0);
}
