// The prefill GEMM shapes of one node (docs/formulas.md s.18): explicit shapes
// for models small enough to count by hand, then the check that ties them to
// the parameter estimate: flops per token / 2 is what one node reads of the
// active weights the GEMMs cover (split parts / TP plus the parts vLLM
// replicates, as tpnet memory counts them).

#include <algorithm>
#include <string>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "study_fixtures.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/model/params.hpp"
#include "tpnet/model/prefill_gemms.hpp"
#include "tpnet/model/weights.hpp"

using namespace tpnet;
using namespace tpnet::test;
using tpnet::test::glm53;
using tpnet::test::tiny_dense;

namespace {

const GemmShape& find(const std::vector<GemmShape>& shapes, const std::string& name) {
  const auto it = std::find_if(shapes.begin(), shapes.end(),
                               [&](const GemmShape& s) { return s.name == name; });
  REQUIRE(it != shapes.end());
  return *it;
}

std::vector<std::string> names(const std::vector<GemmShape>& shapes) {
  std::vector<std::string> out;
  out.reserve(shapes.size());
  for (const auto& s : shapes) out.push_back(s.name);
  return out;
}

void check_shape(const GemmShape& s, int m, int n, int k, int count, GemmSplit split) {
  INFO(s.name);
  CHECK(s.m == m);
  CHECK(s.n == n);
  CHECK(s.k == k);
  CHECK(s.count == count);
  CHECK(s.split == split);
  CHECK_THAT(s.flops,
             WithinRel(2.0 * s.rows_per_run * double(n) * double(k) * double(count), 1e-12));
}

/// What one node reads per token of the active weights the GEMMs cover: the
/// estimate's active parameters without the LM head (left out of prefill),
/// split over TP except the parts tpnet memory counts as replicated.
double covered_params_per_node(const ModelArch& m, int tp, double not_covered = 0.0) {
  const ParamEstimate e = estimate_params(m);
  REQUIRE(e.complete());
  const WeightMemory weights = weight_memory(m, ParallelLayout{tp, 1, 1});
  double replicated = 0.0;
  double replicated_node = 0.0;
  for (const auto& part : weights.replicated) {
    replicated += part.params;
    replicated_node += part.node_params;
  }
  const double covered = e.active_params() - e.active.lm_head - not_covered;
  return (covered - replicated) / tp + replicated_node;
}

double flops_per_token(const ModelArch& m, int tp, TokenCount chunk) {
  return total_flops(prefill_gemm_shapes(m, tp, chunk)) / double(chunk);
}

}  // namespace

TEST_CASE("a dense GQA model runs qkv, o, gate_up and down per layer", "[prefill_gemms]") {
  const auto shapes = prefill_gemm_shapes(tiny_dense(), 2, 32);
  CHECK(names(shapes) == std::vector<std::string>{"attn.qkv", "attn.o", "mlp.gate_up", "mlp.down"});
  // TP2: 4 query heads and 1 KV head per rank, head 16; the FFN's 128 columns split in 64.
  check_shape(find(shapes, "attn.qkv"), 32, (4 + 2 * 1) * 16, 64, 2, GemmSplit::column);
  check_shape(find(shapes, "attn.o"), 32, 64, 4 * 16, 2, GemmSplit::row);
  check_shape(find(shapes, "mlp.gate_up"), 32, 2 * 64, 64, 2, GemmSplit::column);
  check_shape(find(shapes, "mlp.down"), 32, 64, 64, 2, GemmSplit::row);
  CHECK(total_flops(shapes) == 2.0 * 32 * 2 * (96 * 64 + 64 * 64 + 128 * 64 + 64 * 64));
}

TEST_CASE("fewer KV heads than ranks are replicated: one KV head per rank", "[prefill_gemms]") {
  // TP4 over 2 KV heads: each rank holds one whole K and V head.
  CHECK(find(prefill_gemm_shapes(tiny_dense(), 4, 32), "attn.qkv").n == (2 + 2) * 16LL);
  CHECK(find(prefill_gemm_shapes(tiny_dense(), 8, 32), "attn.qkv").n == (1 + 2) * 16LL);
  // MHA: as many KV heads as query heads
  const ModelArch mha =
      with_layers(tiny_dense(), [](LayerSpec& l) { l.mixer.attention.kv_heads = 8; });
  CHECK(find(prefill_gemm_shapes(mha, 2, 32), "attn.qkv").n == (4 + 2 * 4) * 16LL);
}

TEST_CASE("MoE layers run the router, the average expert GEMM per expert and the shared expert",
          "[prefill_gemms]") {
  // 8 experts of 32, top-2, 1 shared of 48; the first layer dense, two MoE.
  ModelArch m = tiny_dense();
  LayerSpec moe_layer = m.layers.at(0);
  moe_layer.ffn.kind = FfnKind::moe;
  moe_layer.ffn.width = 0;
  moe_layer.ffn.moe = MoeSpec{8, 2, 1, 32, 48, 0};
  m.layers = LayerPlan();
  m.layers.append(tiny_dense().layers.at(0), 1);
  m.layers.append(moe_layer, 2);
  const auto shapes = prefill_gemm_shapes(m, 2, 32);
  CHECK(names(shapes) == std::vector<std::string>{"attn.qkv", "attn.o", "mlp.gate_up", "mlp.down",
                                                  "moe.router", "moe.gate_up", "moe.down",
                                                  "moe.shared_gate_up", "moe.shared_down"});
  check_shape(find(shapes, "mlp.gate_up"), 32, 128, 64, 1, GemmSplit::column);
  check_shape(find(shapes, "moe.router"), 32, 8, 64, 2, GemmSplit::replicated);
  // 32 tokens x top-2 spread over 8 experts: 8 rows per expert; 8 experts x 2 MoE layers.
  check_shape(find(shapes, "moe.gate_up"), 8, 2 * 16, 64, 16, GemmSplit::column);
  check_shape(find(shapes, "moe.down"), 8, 64, 16, 16, GemmSplit::row);
  check_shape(find(shapes, "moe.shared_gate_up"), 32, 2 * 24, 64, 2, GemmSplit::column);
  check_shape(find(shapes, "moe.shared_down"), 32, 64, 24, 2, GemmSplit::row);

  SECTION("a fractional average keeps its exact flops and rounds the timed rows") {
    // A copy: the vector find() looked in is a temporary (ASan: use after free).
    const GemmShape s = find(prefill_gemm_shapes(m, 2, 30), "moe.gate_up");
    CHECK(s.rows_per_run == 7.5);
    CHECK(s.m == 8);
    CHECK(s.flops == 2.0 * 7.5 * 32 * 64 * 16);
  }
  SECTION("fewer tokens than experts still time at least one row") {
    CHECK(find(prefill_gemm_shapes(m, 2, 1), "moe.gate_up").m == 1);
  }
  SECTION("two shared experts run as one MLP twice as wide") {
    m = with_layers(m, [](LayerSpec& l) { l.ffn.moe.shared_experts = 2; });
    CHECK(find(prefill_gemm_shapes(m, 2, 32), "moe.shared_gate_up").n == 2 * 48LL);
  }
}

TEST_CASE("grouped experts: one GEMM per MoE layer over every expert, the same flops",
          "[prefill_gemms]") {
  // The model of the test above: 8 experts of 32 (16 per rank at TP2), top-2, two MoE layers.
  ModelArch m = tiny_dense();
  LayerSpec moe_layer = m.layers.at(0);
  moe_layer.ffn.kind = FfnKind::moe;
  moe_layer.ffn.width = 0;
  moe_layer.ffn.moe = MoeSpec{8, 2, 1, 32, 48, 0};
  m.layers = LayerPlan();
  m.layers.append(tiny_dense().layers.at(0), 1);
  m.layers.append(moe_layer, 2);
  const auto separate = prefill_gemm_shapes(m, 2, 30);
  const auto grouped = prefill_gemm_shapes(m, 2, 30, ExpertRouting::uniform);
  // The same GEMMs in the same order; only the experts' are grouped.
  CHECK(names(grouped) == names(separate));
  // 30 tokens x top-2 = 60 rows over 8 experts: 4 experts of 8 rows, 4 of 7.
  const GemmShape up = find(grouped, "moe.gate_up");
  CHECK(up.grouped());
  CHECK(up.routing == ExpertRouting::uniform);
  CHECK(up.m == 60);
  CHECK(up.rows_per_run == 60.0);
  CHECK(up.n == 2 * 16LL);
  CHECK(up.k == 64);
  CHECK(up.count == 2);  // one grouped GEMM per MoE layer, not 8 x 2
  CHECK(up.groups == 8);
  CHECK(up.bins == std::vector<ExpertBin>{{8, 4}, {7, 4}});
  CHECK(up.flops == 2.0 * 60 * 32 * 64 * 2);
  const GemmShape down = find(grouped, "moe.down");
  CHECK(down.m == 60);
  CHECK(down.n == 64);
  CHECK(down.k == 16);
  CHECK(down.split == GemmSplit::row);
  CHECK(down.bins == up.bins);
  // 2 x sum(rows) x n x k: grouping changes how the work is launched, not how much.
  CHECK_THAT(total_flops(grouped), WithinRel(total_flops(separate), 1e-12));
  CHECK_THAT(routed_expert_flops(grouped), WithinRel(routed_expert_flops(separate), 1e-12));
  for (const GemmShape& s : grouped) {
    INFO(s.name);
    CHECK(s.grouped() == is_routed_expert_gemm(s));
    if (!s.grouped()) CHECK(s.groups == 1);
  }
  SECTION("skewed: 1 hot expert of 4 x 7.5 = 30 rows, 7 cold share the other 30") {
    const GemmShape s = find(prefill_gemm_shapes(m, 2, 30, ExpertRouting::skewed), "moe.gate_up");
    CHECK(s.routing == ExpertRouting::skewed);
    CHECK(s.bins == std::vector<ExpertBin>{{30, 1}, {5, 2}, {4, 5}});
    CHECK(s.m == 60);
    CHECK(s.groups == 8);
    CHECK(s.flops == up.flops);
  }
}

TEST_CASE("routed expert bins: uniform and skewed rows by hand", "[prefill_gemms]") {
  using R = ExpertRouting;
  // 10 tokens x top-2 = 20 rows over 6 experts: 20 = 2 x 4 + 4 x 3.
  CHECK(routed_expert_bins(10, 2, 6, R::uniform) == std::vector<ExpertBin>{{4, 2}, {3, 4}});
  // Fewer rows than experts: the 6 experts that receive none are left out.
  CHECK(routed_expert_bins(1, 2, 8, R::uniform) == std::vector<ExpertBin>{{1, 2}});
  // Skewed, capped at the chunk: 16 tokens x top-8 over 16 experts, mean 8;
  // 2 hot experts at min(4 x 8, 16) = 16, the other 14 share 96 = 12 x 7 + 2 x 6.
  CHECK(routed_expert_bins(16, 8, 16, R::skewed) ==
        std::vector<ExpertBin>{{16, 2}, {7, 12}, {6, 2}});
  // One hot expert takes every row when 4 x the mean is all of them.
  CHECK(routed_expert_bins(100, 1, 4, R::skewed) == std::vector<ExpertBin>{{100, 1}});
  CHECK_THROWS_WITH(routed_expert_bins(10, 9, 8, R::uniform),
                    ContainsSubstring("top-k cannot exceed the experts"));
  CHECK_THROWS_WITH(routed_expert_bins(10, 2, 8, R::none), ContainsSubstring("grouped GEMM"));
  CHECK_THROWS_WITH(routed_expert_bins(0, 2, 8, R::uniform), ContainsSubstring("at least 1"));
  CHECK(to_string(R::skewed) == "skewed");
  CHECK(parse_expert_routing("uniform") == R::uniform);
  CHECK_FALSE(parse_expert_routing("Uniform").has_value());
}

TEST_CASE("routed expert bins keep every row, at most the chunk per expert", "[prefill_gemms]") {
  for (const ExpertRouting routing : {ExpertRouting::uniform, ExpertRouting::skewed}) {
    for (const long long experts : {1LL, 2LL, 3LL, 7LL, 8LL, 60LL, 128LL, 256LL, 384LL}) {
      for (const long long top_k : {1LL, 2LL, 6LL, 8LL}) {
        if (top_k > experts) continue;
        for (const TokenCount chunk : {TokenCount{1}, TokenCount{7}, TokenCount{100},
                                       TokenCount{1000}, TokenCount{4096}, TokenCount{8192}}) {
          INFO(to_string(routing) << " E " << experts << " top-" << top_k << " chunk " << chunk);
          const auto bins = routed_expert_bins(chunk, top_k, experts, routing);
          long long rows = 0;
          long long with_rows = 0;
          for (std::size_t i = 0; i < bins.size(); ++i) {
            CHECK(bins[i].rows >= 1);
            CHECK(bins[i].rows <= chunk);
            CHECK(bins[i].experts >= 1);
            if (i > 0) CHECK(bins[i].rows < bins[i - 1].rows);
            rows += bins[i].rows * bins[i].experts;
            with_rows += bins[i].experts;
          }
          CHECK(rows == chunk * top_k);
          CHECK(with_rows <= experts);
          if (routing == ExpertRouting::uniform) CHECK(bins.size() <= 2);
        }
      }
    }
  }
}

TEST_CASE("GLM-5.3 TP8 chunk 4096 grouped: 75 GEMMs of 256 experts x 128 rows, skewed 512/74/73",
          "[prefill_gemms][golden]") {
  const auto separate = prefill_gemm_shapes(glm53(), 8, 4096);
  const auto uniform = prefill_gemm_shapes(glm53(), 8, 4096, ExpertRouting::uniform);
  const GemmShape up = find(uniform, "moe.gate_up");
  check_shape(up, 32768, 2 * 256, 6144, 75, GemmSplit::column);
  CHECK(up.groups == 256);
  CHECK(up.bins == std::vector<ExpertBin>{{128, 256}});
  const GemmShape down = find(uniform, "moe.down");
  check_shape(down, 32768, 6144, 256, 75, GemmSplit::row);
  // 2 x 32,768 x 512 x 6,144 x 75 = 15.46 TFLOP and 7.73 TFLOP per chunk, as the
  // 19,200 separate GEMMs of 128 rows (docs/formulas.md s.18).
  CHECK_THAT(up.flops, WithinRel(15461882265600.0, 1e-12));
  CHECK_THAT(down.flops, WithinRel(7730941132800.0, 1e-12));
  CHECK_THAT(total_flops(uniform), WithinRel(total_flops(separate), 1e-12));
  CHECK_THAT(total_flops(uniform) / 4096, WithinRel(13656391680.0, 1e-12));
  // Skewed (s.18.2): 32 hot experts of 4 x 128 = 512 rows take half the rows;
  // 224 cold share 16,384 = 32 x 74 + 192 x 73.
  const auto skewed = prefill_gemm_shapes(glm53(), 8, 4096, ExpertRouting::skewed);
  const GemmShape hot = find(skewed, "moe.gate_up");
  CHECK(hot.bins == std::vector<ExpertBin>{{512, 32}, {74, 32}, {73, 192}});
  CHECK(hot.m == 32768);
  CHECK(hot.groups == 256);
  CHECK(hot.flops == up.flops);
  // A chunk that does not divide: 1,000 x 8 = 8,000 rows = 64 x 32 + 192 x 31.
  CHECK(find(prefill_gemm_shapes(glm53(), 8, 1000, ExpertRouting::uniform), "moe.down").bins ==
        std::vector<ExpertBin>{{32, 64}, {31, 192}});
}

TEST_CASE("MLA runs the fused q_a/kv_a replicated and splits q_b, kv_b and o", "[prefill_gemms]") {
  // kv_lora 16, q_lora 24, rope 4, nope 8, v 10
  ModelArch m = with_layers(tiny_dense(), [](LayerSpec& l) {
    l.mixer.attention.latent = true;
    l.mixer.attention.mla = MlaSpec{16, 24, 4, 8, 10};
  });
  const auto shapes = prefill_gemm_shapes(m, 2, 32);
  CHECK(names(shapes) == std::vector<std::string>{"attn.qkv_a", "attn.q_b", "attn.kv_b", "attn.o",
                                                  "mlp.gate_up", "mlp.down"});
  check_shape(find(shapes, "attn.qkv_a"), 32, 24 + 16 + 4, 64, 2, GemmSplit::replicated);
  check_shape(find(shapes, "attn.q_b"), 32, 4 * (8 + 4), 24, 2, GemmSplit::column);
  check_shape(find(shapes, "attn.kv_b"), 32, 4 * (8 + 10), 16, 2, GemmSplit::column);
  check_shape(find(shapes, "attn.o"), 32, 64, 4 * 10, 2, GemmSplit::row);
  SECTION("without a q rank, q is column-parallel and kv_a alone is replicated") {
    m = with_layers(m, [](LayerSpec& l) { l.mixer.attention.mla.q_lora_rank = 0; });
    const auto direct = prefill_gemm_shapes(m, 2, 32);
    check_shape(find(direct, "attn.q"), 32, 4 * 12, 64, 2, GemmSplit::column);
    check_shape(find(direct, "attn.kv_a"), 32, 16 + 4, 64, 2, GemmSplit::replicated);
  }
  SECTION("the DSA indexer's three projections are replicated and read the q latent") {
    m = with_layers(m, [](LayerSpec& l) { l.mixer.attention.indexer = SparseIndexer{8, 4, 6}; });
    const auto dsa = prefill_gemm_shapes(m, 2, 32);
    check_shape(find(dsa, "indexer.wq_b"), 32, 4 * 6, 24, 2, GemmSplit::replicated);
    check_shape(find(dsa, "indexer.wk"), 32, 6, 64, 2, GemmSplit::replicated);
    check_shape(find(dsa, "indexer.weights"), 32, 4, 64, 2, GemmSplit::replicated);
  }
}

TEST_CASE("Gated DeltaNet layers run in_qkvz, in_ba and out instead of attention",
          "[prefill_gemms]") {
  // Three Gated DeltaNet layers of 2 key and 4 value heads of 8 (conv 4), then attention.
  ModelArch m = tiny_dense();
  LayerSpec linear = m.layers.at(0);
  linear.mixer.kind = Mixer::linear_attention;
  linear.mixer.linear = LinearAttentionSpec{LinearKind::gated_deltanet, 2, 4, 8, 8, 4, 0};
  m.layers = LayerPlan();
  m.layers.append(linear, 3);
  m.layers.append(tiny_dense().layers.at(0), 1);
  const auto shapes = prefill_gemm_shapes(m, 2, 32);
  CHECK(find(shapes, "attn.qkv").count == 1);
  // Per rank 1 key head and 2 value heads of 8: q, k 8 each, v, z 16 each.
  check_shape(find(shapes, "linear.in_qkvz"), 32, 2 * 8 + 2 * 16, 64, 3, GemmSplit::column);
  check_shape(find(shapes, "linear.in_ba"), 32, 2 * 2, 64, 3, GemmSplit::column);
  check_shape(find(shapes, "linear.out"), 32, 64, 16, 3, GemmSplit::row);
  CHECK(find(shapes, "mlp.down").count == 4);
}

TEST_CASE("prefill GEMM shapes refuse what TP does not divide and shapes a model lacks",
          "[prefill_gemms]") {
  CHECK_THROWS_WITH(prefill_gemm_shapes(tiny_dense(), 3, 32),
                    ContainsSubstring("num_attention_heads") && ContainsSubstring("TP 3"));
  const ModelArch odd_ffn = with_layers(tiny_dense(), [](LayerSpec& l) { l.ffn.width = 100; });
  CHECK_THROWS_WITH(prefill_gemm_shapes(odd_ffn, 8, 32), ContainsSubstring("intermediate_size"));
  const ModelArch kv3 = with_layers(tiny_dense(), [](LayerSpec& l) {
    l.mixer.attention.q_heads = 12;
    l.mixer.attention.kv_heads = 3;
  });
  CHECK_THROWS_WITH(prefill_gemm_shapes(kv3, 4, 32), ContainsSubstring("num_kv_heads"));
  CHECK_THROWS_WITH(prefill_gemm_shapes(tiny_dense(), 0, 32), ContainsSubstring("layout.tp"));
  CHECK_THROWS_WITH(prefill_gemm_shapes(tiny_dense(), 2, 0),
                    ContainsSubstring("engine.max_num_batched_tokens"));
  // A model file stating totals, not its attention or expert shapes (SYNTHETIC).
  const ModelArch totals_only =
      resolve_model(std::string(TPNET_SOURCE_DIR) + "/tests/data/models/totals-only.yaml");
  CHECK_THROWS_WITH(prefill_gemm_shapes(totals_only, 8, 4096), ContainsSubstring("mla"));
}

TEST_CASE("the built-in GLM-5.3's shapes give 753B with MTP and about 40B active",
          "[prefill_gemms][golden]") {
  const ModelArch m = glm53();
  const ParamEstimate e = estimate_params(m);
  REQUIRE(e.complete());
  CHECK_THAT(e.total_with_mtp(), WithinRel(753e9, 0.005));
  CHECK_THAT(e.active_params() - e.active.lm_head, WithinRel(40e9, 0.01));
  // The stated counts stay what memory and decode use: the shapes only place them.
  CHECK(m.total_params == 753e9);
  CHECK(m.active_params == 40e9);
}

TEST_CASE("GLM-5.3 TP8 chunk 4096: the MLA, indexer and expert shapes of one node",
          "[prefill_gemms]") {
  const auto shapes = prefill_gemm_shapes(glm53(), 8, 4096);
  check_shape(find(shapes, "attn.qkv_a"), 4096, 2048 + 512 + 64, 6144, 78, GemmSplit::replicated);
  check_shape(find(shapes, "attn.q_b"), 4096, 8 * 256, 2048, 78, GemmSplit::column);
  check_shape(find(shapes, "attn.kv_b"), 4096, 8 * 448, 512, 78, GemmSplit::column);
  check_shape(find(shapes, "attn.o"), 4096, 6144, 8 * 256, 78, GemmSplit::row);
  check_shape(find(shapes, "indexer.wq_b"), 4096, 32 * 128, 2048, 78, GemmSplit::replicated);
  check_shape(find(shapes, "mlp.gate_up"), 4096, 2 * 1536, 6144, 3, GemmSplit::column);
  check_shape(find(shapes, "moe.router"), 4096, 256, 6144, 75, GemmSplit::replicated);
  // 4096 tokens x top-8 over 256 experts: 128 rows per expert, 256 x 75 expert GEMMs.
  check_shape(find(shapes, "moe.gate_up"), 128, 2 * 256, 6144, 19200, GemmSplit::column);
  check_shape(find(shapes, "moe.down"), 128, 6144, 256, 19200, GemmSplit::row);
  check_shape(find(shapes, "moe.shared_gate_up"), 4096, 2 * 256, 6144, 75, GemmSplit::column);
  // One node reads 6.83B weights per prompt token: 13.66 GFLOP per prompt token per node.
  CHECK_THAT(total_flops(shapes) / 4096, WithinRel(13656391680.0, 1e-12));
}

TEST_CASE("flops per token / 2 equal the active weights one node reads, less the LM head",
          "[prefill_gemms]") {
  SECTION("GLM-5.3 TP8: MLA, DSA indexer, dense layers and experts") {
    const ModelArch m = glm53();
    CHECK_THAT(flops_per_token(m, 8, 4096) / 2, WithinRel(covered_params_per_node(m, 8), 1e-9));
    // The chunk does not change the per-token work of weight GEMMs.
    CHECK_THAT(flops_per_token(m, 8, 1000), WithinRel(flops_per_token(m, 8, 4096), 1e-12));
  }
  SECTION("Llama-3.1-70B (dense GQA) at TP8 and at TP16, where KV heads are replicated") {
    const ModelArch m = builtin_model("llama-3.1-70b");
    CHECK_THAT(flops_per_token(m, 8, 4096) / 2, WithinRel(covered_params_per_node(m, 8), 1e-9));
    CHECK_THAT(flops_per_token(m, 16, 4096) / 2, WithinRel(covered_params_per_node(m, 16), 1e-9));
    // Sanity of the reference itself: TP1 is every active weight but the head.
    CHECK_THAT(
        flops_per_token(m, 1, 4096) / 2,
        WithinRel(estimate_params(m).active_params() - estimate_params(m).active.lm_head, 1e-9));
  }
  SECTION("DeepSeek-V3.2-Exp TP8 and Qwen3-Next TP2 (the DeltaNet convolution is no GEMM)") {
    const ModelArch ds = builtin_model("deepseek-v3.2-exp");
    CHECK_THAT(flops_per_token(ds, 8, 4096) / 2, WithinRel(covered_params_per_node(ds, 8), 1e-9));
    const ModelArch qn = builtin_model("qwen3-next-80b-a3b");
    const LinearAttentionSpec& s = mixer_of(qn, Mixer::linear_attention).linear;
    const double conv =
        double(tally_layers(qn.layers).linear) * s.conv_kernel *
        (2.0 * s.key_heads * s.key_head_dim + double(s.value_heads) * s.value_head_dim);
    CHECK_THAT(flops_per_token(qn, 2, 4096) / 2,
               WithinRel(covered_params_per_node(qn, 2, conv), 1e-9));
  }
}
