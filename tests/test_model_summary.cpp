// `tpnet models show` as a use case (tpnet/usecase/model_summary.hpp): per
// TP size the weights a node holds and the bytes it sends, the parts at their
// precision, prefill compute or the shape it lacks, and the layers it counts.

#include <optional>
#include <string>
#include <vector>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/model/weights.hpp"
#include "tpnet/usecase/model_summary.hpp"

using namespace tpnet;

TEST_CASE("a model's rows at TP1-TP16 are the weights and bytes every command gives", "[models]") {
  const ModelArch glm = builtin_model("glm-5.3");
  const ModelSummary s = summarize_model(glm);
  REQUIRE(s.per_tp.size() == 5);
  std::vector<int> tps;
  for (const auto& row : s.per_tp) tps.push_back(row.tp);
  CHECK(tps == std::vector<int>{1, 2, 4, 8, 16});
  CHECK(s.per_tp[0].per_token_bytes.count() == 0.0);        // TP1 sends nothing
  CHECK(s.per_tp[3].per_token_bytes.count() == 3376128.0);  // formulas.md s.3
  CHECK(s.per_tp[3].weights_per_node == weight_memory(glm, ParallelLayout{8, 1, 1}).per_node());
  CHECK(s.per_tp[4].heads_divide);  // 64 heads over 16
  // The parts at TP8 add up to what a TP8 node holds.
  REQUIRE_FALSE(s.parts.empty());
  Bytes node;
  for (const auto& part : s.parts) {
    INFO(to_string(part.part));
    CHECK(part.bits == glm.bits_of(part.part));
    CHECK(part.node_bytes_at_tp8 <= part.model_bytes);
    node += part.node_bytes_at_tp8;
  }
  CHECK_THAT(node.count(), WithinRel(s.per_tp[3].weights_per_node.count(), 1e-9));
  // Prefill compute at 4K, 32K and 128K: the GEMMs per token fixed, mixing growing with context.
  REQUIRE(s.prefill_compute.size() == 3);
  CHECK(s.prefill_compute[0].prompt_tokens == 4096);
  CHECK(s.prefill_compute[2].prompt_tokens == 131072);
  CHECK(s.prefill_compute[0].gemm_flops_per_token == s.prefill_compute[2].gemm_flops_per_token);
  CHECK(s.prefill_compute[0].mixer_share() < s.prefill_compute[2].mixer_share());
  CHECK(s.prefill_compute_missing.empty());
}

TEST_CASE("the mixer's share of prefill compute is mixer / (GEMMs + mixer)", "[models]") {
  CHECK(PrefillComputeRow{4096, 3.0, 1.0}.mixer_share() == 0.25);
  CHECK(PrefillComputeRow{4096, 0.0, 0.0}.mixer_share() == 0.0);  // nothing to share
}

TEST_CASE("a model without the shapes prefill needs names the first key it lacks", "[models]") {
  ModelArch m = tpnet::test::tiny_dense();
  CHECK_FALSE(prefill_compute_missing(m));
  m = tpnet::test::with_layers(m, [](LayerSpec& l) { l.ffn.width = 0; });  // the dense FFN's width
  const std::optional<MissingShape> missing = prefill_compute_missing(m);
  REQUIRE(missing);
  CHECK(missing->key == "intermediate_size");
  CHECK_THAT(missing->reason, ContainsSubstring("intermediate_size"));
  const ModelSummary s = summarize_model(m);
  CHECK(s.prefill_compute.empty());
  CHECK(s.prefill_compute_missing == missing->reason);
}

TEST_CASE("DeepSeek-V4-Flash's summary counts its layers by compression ratio", "[models]") {
  const ModelSummary s = summarize_model(builtin_model("deepseek-v4-flash"));
  // 43 layers (the 44th ratio listed is the MTP layer's): 2 with the window
  // alone, 21 compressing 4 tokens to 1, 20 compressing 128 to 1.
  CHECK(s.compressed_layers.window_only == 2);
  CHECK(s.compressed_layers.ratio_4 == 21);
  CHECK(s.compressed_layers.ratio_128 == 20);
  CHECK(s.compressed_layers.window_only + s.compressed_layers.ratio_4 +
            s.compressed_layers.ratio_128 ==
        s.model.num_layers());
  CHECK(s.layers.layers == s.model.num_layers());
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

namespace {

std::vector<std::string> json_keys(const Record& fields) {
  std::vector<std::string> keys;
  for (const Field& f : fields) {
    if (!f.table_only) keys.push_back(f.key);
  }
  return keys;
}

const Field& field_of(const Record& fields, const std::string& key) {
  for (const Field& f : fields) {
    if (f.key == key) return f;
  }
  FAIL("no field " << key);
  throw;
}

}  // namespace

TEST_CASE("models show's document: the shapes, the parameters, then per TP, by part and prefill",
          "[models]") {
  const ModelSummary s = summarize_model(builtin_model("glm-5.3"));
  const Document doc = model_summary_document(s);
  CHECK(doc.title == "tpnet models show: glm-5.3");
  CHECK(json_keys(doc.fields) == std::vector<std::string>{"name",
                                                          "description",
                                                          "source",
                                                          "hidden_size",
                                                          "num_layers",
                                                          "vocab_size",
                                                          "num_attention_heads",
                                                          "num_kv_heads",
                                                          "head_dim",
                                                          "attention",
                                                          "sparse_attention_top_k",
                                                          "intermediate_size",
                                                          "moe",
                                                          "mla",
                                                          "linear_attention_layers",
                                                          "linear_attention",
                                                          "sparse_attention_index_heads",
                                                          "sparse_attention_index_head_dim",
                                                          "sliding_window_tokens",
                                                          "sliding_window_layers",
                                                          "layer_plan",
                                                          "gated_ffn",
                                                          "mamba",
                                                          "compressed_attention",
                                                          "moe_latent_size",
                                                          "mtp_layers",
                                                          "tie_word_embeddings",
                                                          "torch_dtype",
                                                          "quantization",
                                                          "total_params",
                                                          "active_params",
                                                          "bits_per_weight",
                                                          "effective_bits_per_weight",
                                                          "param_estimate",
                                                          "per_tp",
                                                          "weights_by_part",
                                                          "prefill_compute",
                                                          "assumptions"});
  // Tables leave out what the model lacks: GLM-5.3 has experts, not Mamba.
  CHECK_FALSE(field_of(doc.fields, "moe").json_only);
  CHECK(field_of(doc.fields, "mamba").json_only);
  CHECK(field_of(doc.fields, "per_tp").records.size() == s.per_tp.size());
  CHECK(field_of(doc.fields, "prefill_compute").records.size() == 3);
  CHECK(doc.warnings == s.warnings);
}

TEST_CASE("the models catalog's document has a row a model, in the order given", "[models]") {
  const std::vector<ModelArch> models{builtin_model("glm-5.3"), test::tiny_dense()};
  const Document doc = model_catalog_document(models);
  REQUIRE(doc.fields.size() == 1);
  const Field& rows = doc.fields.front();
  CHECK(rows.key == "models");
  REQUIRE(rows.records.size() == 2);
  CHECK(field_of(rows.records[0], "name").text == "glm-5.3");
  CHECK(field_of(rows.records[1], "name").text == models[1].name);
  CHECK(json_keys(rows.records[0]) ==
        std::vector<std::string>{"name", "hidden_size", "num_layers", "vocab_size",
                                 "num_attention_heads", "attention", "total_params",
                                 "active_params", "bits_per_weight", "description", "source",
                                 "assumed_values", "assumed_keys", "predict", "predict_missing"});
  CHECK(field_of(rows.records[0], "predict").text == "yes");
}
