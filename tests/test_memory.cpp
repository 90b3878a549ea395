// Memory per node (docs/formulas.md s.12): docs/background.md s.8's 763B
// fit, GLM-5.3's smallest TP, the weights held whole, and the inputs each
// flag refuses. NCCL's footprint and the KV cache per token by kind of
// attention are tested in test_nccl_memory.cpp and test_kv_cache.cpp.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "catch.hpp"
#include "golden.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/model_yaml.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/usecase/memory.hpp"

using namespace tpnet;
using tpnet::test::prints_as;

namespace {

MemoryRequest at_tp(int tp) {
  MemoryRequest in;
  in.layout = ParallelLayout{tp, 1, 1};
  in.node = builtin_node("dgx-spark");
  return in;
}

MemoryRequest tuned_nccl(int tp) {
  MemoryRequest in = at_tp(tp);
  in.settings.nccl_profile = NcclProfile::tuned;
  return in;
}

const NcclMemoryProfile& spark_nccl() {
  static const NcclMemoryProfile profile = *builtin_node("dgx-spark").nccl_memory;
  return profile;
}

Bytes nccl(int channels, Bytes buffsize, int ranks) {
  return nccl_buffer_bytes(spark_nccl(), NcclBuffers{channels, buffsize}, ranks);
}

/// The InputError's key when `f` throws one; "" otherwise.
template <typename F>
std::string flag_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.where().key;
  }
  return "";
}

}  // namespace

TEST_CASE(
    "DeepSeek-V4.1-Flash does not fit on 8 DGX Sparks with 64 NCCL channels and fits with 8 "
    "channels of 1 MiB",
    "[memory][golden]") {
  const ModelArch m = builtin_model("deepseek-v4.1-flash");
  const MemoryReport defaults = analyze_memory(m, at_tp(8));
  CHECK_FALSE(defaults.fixed_fits);
  CHECK_FALSE(defaults.fits);
  CHECK(defaults.kv_cache_bytes.count() == 0.0);
  CHECK(defaults.limit == MemoryLimit::nccl_buffers);
  CHECK_THAT(defaults.fit_summary, ContainsSubstring("with the node's tuned NCCL buffers"));
  const MemoryReport tuned = analyze_memory(m, tuned_nccl(8));
  CHECK(tuned.fixed_fits);
  CHECK(tuned.fits);
  CHECK(tuned.kv_cache_bytes.count() > 0.0);
  // Its V4 layer plan gives the KV cache: sequences of max_model_len tokens,
  // each with its windows and compressor states.
  REQUIRE(tuned.kv_tokens.has_value());
  const double sequence = sequence_state(m, 8, 2, tuned.max_model_len).total().count();
  CHECK(*tuned.kv_tokens ==
        static_cast<long long>(std::floor(tuned.kv_cache_bytes.count() *
                                          static_cast<double>(tuned.max_model_len) / sequence)));
  // Also with the study's own settings: 8,192 batched tokens, 9 GB of 121 left to the OS.
  MemoryRequest study = tuned_nccl(8);
  study.engine.max_num_batched_tokens = 8192;
  study.settings.gpu_memory_utilization = 112.0 / 121.0;
  CHECK(analyze_memory(m, study).fits);
  study.settings.nccl_profile = NcclProfile::node_default;
  CHECK_FALSE(analyze_memory(m, study).fits);
}

namespace {

/// docs/background.md s.8's deployment on DGX Sparks: NCCL_MAX_NCHANNELS=8 and
/// NCCL_BUFFSIZE=1 MiB, 8,192 batched tokens, at most 8 sequences, CUDA graphs ~1.5 GB.
MemoryRequest v41_deployment(int tp, double utilization, TokenCount max_model_len) {
  MemoryRequest in = tuned_nccl(tp);
  in.engine.max_num_batched_tokens = 8192;
  in.engine.max_num_seqs = 8;
  in.settings.gpu_memory_utilization = utilization;
  in.settings.cuda_graphs = Bytes::gigabytes(1.5);
  in.settings.max_model_len = max_model_len;
  return in;
}

/// The parts every rank holds whole: the router, 61 x 7,168 x 256; the V4
/// attention's inputs, compressors and indexers; the hyper-connections
/// (models/deepseek-v4.1-flash.yaml).
constexpr double kReplicated = 2262967523.0;
/// A rank's weights at TP8: (763B - R) / 8 + R, at the derived 3.1226 bits.
constexpr double kTp8Weights = ((763e9 - kReplicated) / 8 + kReplicated) * 3.1226 / 8;

}  // namespace

TEST_CASE(
    "DeepSeek-V4.1-Flash TP8-300K reproduces its report: 49.55 GB on the GPU, 23.60 GB of Engram "
    "in pinned host memory, ~8.7 GB of KV cache",
    "[memory][golden]") {
  const ModelArch m = builtin_model("deepseek-v4.1-flash");
  REQUIRE(m.engram.has_value());
  CHECK(m.engram->placement == TablePlacement::host);  // what the deployment did: the default
  const MemoryReport r = analyze_memory(m, v41_deployment(8, 0.80, 300000));
  CHECK_THAT(r.budget.count(), WithinRel(96.8e9, 1e-12));  // 121 GB x 0.80
  // The derivations (docs/formulas.md s.12.11) ...
  CHECK_THAT(r.weights_bytes.count(), WithinRel(kTp8Weights, 1e-12));
  CHECK_THAT(r.engram.per_node.count(), WithinRel(281.2e9 / 8, 1e-12));
  CHECK_THAT(r.engram.host.count(), WithinRel(281.2e9 / 8 * 0.6714, 1e-12));
  // ... against the report's table.
  CHECK_THAT(r.gpu_weights_bytes.count(), WithinRel(49.55e9, 0.01));
  CHECK_THAT(r.engram.host.count(), WithinRel(23.60e9, 0.01));
  CHECK(r.engram.host_counted);  // a Spark's pinned host memory is the GPU's
  CHECK_THAT(r.engram.counted.count(), WithinRel((r.engram.gpu + r.engram.host).count(), 1e-12));
  CHECK_THAT(r.nccl_bytes.count(), WithinRel(11e9, 1e-9));
  CHECK(r.autotune_spike_bytes.count() == 0.0);                         // off in this configuration
  CHECK_THAT(r.fixed_bytes.count(), WithinRel(85.5e9 + 1.41e9, 0.02));  // + the activation peak
  CHECK(r.fits);
  CHECK(r.limit == MemoryLimit::none);
  CHECK_THAT(r.kv_cache_bytes.count(), WithinRel(8.7e9, 0.20));
  REQUIRE(r.kv_tokens.has_value());
  CHECK_THAT(static_cast<double>(*r.kv_tokens), WithinRel(1.46e6, 0.20));
  CHECK_FALSE(r.kv_per_token_stated);  // from the shapes: 5,511 B a token past the window
  CHECK(r.kv_bytes_per_token->count() == 5511.4375);
  CHECK_THAT(r.fit_summary, ContainsSubstring("in pinned host memory, the same unified memory"));
}

TEST_CASE(
    "DeepSeek-V4.1-Flash TP8-1M with Engram on disk reproduces its report: 38 GB on the GPU, a "
    "10 GB autotune spike, ~30 GB of KV cache",
    "[memory][golden]") {
  const ModelArch m = builtin_model("deepseek-v4.1-flash");
  MemoryRequest in = v41_deployment(8, 0.75, 1 << 20);
  in.settings.engram_tables = TablePlacement::disk;
  in.settings.autotune_spike = Bytes::gigabytes(10.0);
  const MemoryReport r = analyze_memory(m, in);
  CHECK_THAT(r.budget.count(), WithinRel(90.75e9, 1e-12));
  CHECK_THAT(r.gpu_weights_bytes.count(), WithinRel(38e9, 0.01));
  CHECK(r.gpu_weights_bytes == r.weights_bytes);
  CHECK(r.engram.counted.count() == 0.0);
  CHECK_THAT(r.engram.disk.count(), WithinRel(281.2e9 / 8, 1e-12));
  CHECK_THAT(r.fit_summary, ContainsSubstring("are on disk and count nothing against it"));
  CHECK_THAT(r.fixed_bytes.count(), WithinRel(60.5e9 + 1.41e9, 0.02));
  CHECK(r.fits);
  CHECK_THAT(r.kv_cache_bytes.count(), WithinRel(30e9, 0.20));
  // One 1M sequence: 5,511 B a token, the windows and compressor states:
  // 5.80 GB (the report says "~3.7 GB"; its measured 5,959 B a token gives 6.25 GB).
  CHECK(*r.max_model_len_fits);
  CHECK_THAT(r.sequence_bytes->count(), WithinRel(5.80e9, 0.001));
  // The spike is a fixed part of its own: turning it off gives its 10 GB to the KV cache.
  in.settings.autotune_spike = Bytes(0.0);
  CHECK_THAT((analyze_memory(m, in).kv_cache_bytes - r.kv_cache_bytes).count(),
             WithinRel(10e9, 1e-9));
}

TEST_CASE(
    "DeepSeek-V4.1-Flash fits on 4 DGX Sparks with its Engram tables on disk where TP1 and TP2 "
    "refuse on the weights",
    "[memory][golden]") {
  const ModelArch m = builtin_model("deepseek-v4.1-flash");
  MemoryRequest in = v41_deployment(4, 0.90, 300000);
  in.settings.engram_tables = TablePlacement::disk;
  in.settings.autotune_spike = Bytes::gigabytes(10.0);
  const MemoryReport tp4 = analyze_memory(m, in);
  CHECK(tp4.fits);
  CHECK_THAT(tp4.weights_bytes.count(),
             WithinRel(((763e9 - kReplicated) / 4 + kReplicated) * 3.1226 / 8, 1e-12));
  CHECK(tp4.kv_cache_bytes.count() > 0.0);
  // Kept in memory the tables do not fit at TP4, on the GPU or pinned beside it.
  for (TablePlacement at : {TablePlacement::gpu, TablePlacement::host}) {
    in.settings.engram_tables = at;
    CHECK_FALSE(analyze_memory(m, in).fits);
  }
  in.settings.engram_tables = TablePlacement::disk;
  for (int tp : {1, 2}) {
    in.layout.tp = tp;
    const MemoryReport r = analyze_memory(m, in);
    CHECK_FALSE(r.fits);
    CHECK(r.limit == MemoryLimit::weights);
    CHECK_THAT(r.fit_summary, ContainsSubstring("exceed the 108.90 GB budget"));
  }
  const MinTpReport found = find_min_tp(m, in);
  CHECK(found.tp == 4);
  CHECK(found.tried.size() == 3);
}

TEST_CASE("Engram tables in pinned host memory count only on a unified-memory node",
          "[memory][golden]") {
  const ModelArch m = builtin_model("deepseek-v4.1-flash");
  MemoryRequest in = v41_deployment(8, 0.80, 300000);
  const MemoryReport unified = analyze_memory(m, in);
  in.node.unified_memory = false;
  const MemoryReport apart = analyze_memory(m, in);
  CHECK(apart.engram.host == unified.engram.host);
  CHECK(apart.engram.counted == apart.engram.gpu);
  CHECK_THAT((apart.kv_cache_bytes - unified.kv_cache_bytes).count(),
             WithinRel(unified.engram.host.count(), 1e-9));
  CHECK_THAT(apart.fit_summary, ContainsSubstring("count nothing against it (the node's host"));
  // In GPU memory every table counts, wherever the host memory is.
  in.settings.engram_tables = TablePlacement::gpu;
  const MemoryReport gpu = analyze_memory(m, in);
  CHECK(gpu.engram.gpu == gpu.engram.per_node);
  CHECK(gpu.gpu_weights_bytes == gpu.weights_bytes + gpu.engram.per_node);
  // A model without tables: the setting changes nothing, and says so.
  const MemoryReport glm = analyze_memory(builtin_model("glm-5.3"), in);
  CHECK(glm.engram.counted.count() == 0.0);
  CHECK(std::any_of(glm.warnings.begin(), glm.warnings.end(), [](const std::string& w) {
    return w.find("has no Engram tables; it changes nothing") != std::string::npos;
  }));
}

TEST_CASE("Engram and autotune inputs name their field", "[memory][bad-input]") {
  CHECK(flag_of([] { (void)parse_table_placement("ram", InputLocation::for_key("x")); }) == "x");
  MemoryRequest in = v41_deployment(8, 0.80, 8192);
  in.settings.autotune_spike = Bytes(-1.0);
  CHECK(flag_of([&] { (void)analyze_memory(builtin_model("deepseek-v4.1-flash"), in); }) ==
        "memory.autotune_spike");
  const std::string base =
      "name: t\nhidden_size: 64\nnum_layers: 2\nvocab_size: 100\nnum_attention_heads: "
      "4\ntotal_params: 1B\nbits_per_weight: 8\n";
  auto key_of = [&](const std::string& extra) {
    return flag_of([&] { (void)parse_model_yaml(base + extra, "m.yaml"); });
  };
  CHECK(key_of("engram: {table_bytes: 0GB}\n") == "engram.table_bytes");
  CHECK(key_of("engram: {table_bytes: 1GB, placement: ram}\n") == "engram.placement");
  CHECK(key_of("engram: {table_bytes: 1GB, host_share: 1.5}\n") == "engram.host_share");
  CHECK(key_of("engram: {table_bytes: 1GB, rows: 5}\n") == "engram.rows");
  CHECK(key_of("kv_bytes_per_token: 0B\n") == "kv_bytes_per_token");
  const ModelArch ok = parse_model_yaml(base + "engram: {table_bytes: 8GB}\n", "m.yaml");
  CHECK(ok.engram->placement == TablePlacement::host);
  CHECK(ok.engram->host_share == 1.0);
}

TEST_CASE("GLM-5.3 needs about 106 GB of weights per node at TP4, so its smallest TP is 8",
          "[memory][golden]") {
  const ModelArch m = builtin_model("glm-5.3");
  const MemoryReport tp4 = analyze_memory(m, at_tp(4));
  // 753B x 4.5 / 8 / 4 = 105.9 GB split, plus the parts every rank holds whole.
  CHECK_THAT(tp4.weights.split.count() + tp4.weights.replicated_bytes.count() / 4,
             WithinRel(753e9 * 4.5 / 8 / 4, 1e-12));
  CHECK(prints_as(tp4.weights_bytes.count() / 1e9, 106.8, 1));
  // That leaves 2.1 GB of the 108.9 GB budget, less than NCCL's fixed 10.2 GB alone.
  CHECK((tp4.budget - tp4.weights_bytes).count() < nccl_footprint(spark_nccl()).fixed.count());
  CHECK_FALSE(tp4.fixed_fits);
  CHECK_FALSE(tp4.fits);
  const MemoryReport tp8 = analyze_memory(m, at_tp(8));
  CHECK(tp8.fits);
  CHECK(prints_as(tp8.weights_bytes.count() / 1e9, 53.98, 2));
  CHECK(min_tp(m, at_tp(8)) == 8);
  CHECK(min_tp(m, tuned_nccl(1)) == 8);
  const MinTpReport found = find_min_tp(m, at_tp(8));
  REQUIRE(found.tried.size() == 4);  // TP1, 2, 4, 8
  CHECK(found.tried.back().tp == 8);
}

TEST_CASE(
    "GQA KV heads are replicated when TP exceeds them: Llama-3.1-70B at TP16 keeps one head "
    "per rank",
    "[memory]") {
  const ModelArch m = builtin_model("llama-3.1-70b");
  CHECK(kv_bytes_per_token(m, 16, 2).count() == 40960.0);  // = TP8: 80 x 1 x 128 x 2 x 2
  CHECK(kv_bytes_per_token(m, 32, 2) == kv_bytes_per_token(m, 8, 2));
  // The K and V projections are held per head, not split 16 ways.
  const MemoryReport r = analyze_memory(m, at_tp(16));
  REQUIRE(r.weights.replicated.size() == 1);
  const ReplicatedPart& kv = r.weights.replicated.front();
  CHECK(kv.name == "kv_heads");
  CHECK(kv.params == 80.0 * 2 * 8192 * 128 * 8);
  CHECK(kv.node_params == 80.0 * 2 * 8192 * 128);
  CHECK(analyze_memory(m, at_tp(8)).weights.replicated.empty());
}

TEST_CASE("weights: router gates, MLA down-projections and the DSA indexer are held whole",
          "[memory]") {
  const ModelArch m = builtin_model("deepseek-v3");
  const MemoryReport r = analyze_memory(m, at_tp(8));
  REQUIRE(r.weights.replicated.size() == 2);
  const double router = 58.0 * 7168 * 256;
  const double down = 61.0 * 7168 * (1536 + 512 + 64);
  CHECK(r.weights.replicated[0].name == "router");
  CHECK(r.weights.replicated[0].params == router);
  CHECK(r.weights.replicated[1].name == "mla_down_projections");
  CHECK(r.weights.replicated[1].params == down);
  // FP8: one byte per parameter.
  CHECK_THAT(r.weights_bytes.count(),
             WithinRel((671e9 - router - down) / 8 + router + down, 1e-12));
  const MemoryReport glm = analyze_memory(builtin_model("glm-5.3"), at_tp(8));
  REQUIRE(glm.weights.replicated.size() == 3);
  // Routers only in the 75 MoE layers: the first 3 are dense.
  CHECK(glm.weights.replicated[0].params == 75.0 * 6144 * 256);
  CHECK(glm.weights.replicated[2].name == "sparse_indexer");
  // wq_b from the 2,048 q latent to 32 x 128, wk 6,144 -> 128, weights_proj 6,144 -> 32.
  CHECK(glm.weights.replicated[2].params == 78.0 * (2048 * 32 * 128 + 6144 * 128 + 6144 * 32));
}

TEST_CASE("the KV cache is the budget less the fixed parts, in tokens and max-model-len sequences",
          "[memory]") {
  const MemoryReport r = analyze_memory(builtin_model("glm-5.3"), at_tp(8));
  CHECK(r.budget.count() == 121e9 * 0.9);
  CHECK(r.fixed_bytes.count() ==
        (r.weights_bytes + r.nccl_bytes + r.cuda_graph_bytes + r.activation_peak_bytes).count());
  CHECK(r.activation_peak_bytes.count() == 4096.0 * 6144 * 2 * 12);
  CHECK(r.kv_cache_bytes.count() == (r.budget - r.fixed_bytes).count());
  REQUIRE(r.kv_tokens.has_value());
  CHECK(*r.kv_tokens == static_cast<long long>(std::floor(r.kv_cache_bytes.count() / 100152.0)));
  CHECK(r.sequence_bytes->count() == 100152.0 * 8192);
  CHECK(*r.max_sequences ==
        static_cast<long long>(std::floor(r.kv_cache_bytes.count() / (100152.0 * 8192))));
  CHECK(*r.longest_sequence_tokens == *r.kv_tokens);
  CHECK(r.max_model_len_fits == true);
  CHECK(r.fits);
}

TEST_CASE(
    "too many sequences are warned about, and a max-model-len that does not fit fails the fit",
    "[memory]") {
  const ModelArch m = builtin_model("glm-5.3");
  const MemoryReport many = analyze_memory(m, at_tp(8));  // 256 x 8k does not fit
  REQUIRE(many.warnings.size() == 1);
  CHECK_THAT(many.warnings[0], ContainsSubstring("`engine.max_num_seqs` 256"));
  MemoryRequest in = at_tp(8);
  in.engine.max_num_seqs = 4;
  CHECK(analyze_memory(m, in).warnings.empty());
  in.settings.max_model_len = 1 << 20;  // 1M tokens: 100 GB
  const MemoryReport longer = analyze_memory(m, in);
  CHECK(longer.fixed_fits);
  CHECK(longer.max_model_len_fits == false);
  CHECK_FALSE(longer.fits);
  CHECK(*longer.max_sequences == 0);
  CHECK(longer.limit == MemoryLimit::kv_cache);
  CHECK_THAT(longer.fit_summary, ContainsSubstring("one max-model-len sequence of 1048576 tokens"));
  CHECK_THAT(longer.warnings[1], ContainsSubstring("refuse to start"));
  MemoryRequest quarter = tuned_nccl(1);  // 256k tokens: 26.3 GB fits TP8's 42.3 GB with 8 channels
  quarter.settings.max_model_len = 1 << 18;
  CHECK(min_tp(m, quarter) == 8);
}

TEST_CASE("a model without KV shapes gives the cache in bytes until --kv-bytes-per-token is given",
          "[memory]") {
  // SYNTHETIC: an MLA model that states neither the shapes nor a measured size.
  const ModelArch m = parse_model_yaml(
      "name: no-shapes\nhidden_size: 7168\nnum_layers: 61\nvocab_size: 129280\n"
      "num_attention_heads: 128\nattention: mla\ntotal_params: 300B\nbits_per_weight: 4\n",
      "no-shapes.yaml");
  CHECK(kv_cache_shapes_missing(m) == std::vector<std::string>{"mla"});
  CHECK(flag_of([&] { (void)kv_bytes_per_token(m, 8, 2); }) == "mla");
  const MemoryReport unknown = analyze_memory(m, tuned_nccl(8));
  CHECK_THAT(unknown.warnings.front(), ContainsSubstring("`memory.kv_bytes_per_token`"));
  MemoryRequest in = tuned_nccl(8);
  in.settings.kv_bytes_per_token = Bytes::kilobytes(4.0);
  const MemoryReport given = analyze_memory(m, in);
  CHECK(given.kv_per_token_given);
  CHECK(*given.kv_tokens ==
        static_cast<long long>(std::floor(given.kv_cache_bytes.count() / 4000.0)));
  CHECK(given.sequence_bytes->count() == 4000.0 * 8192);
}

TEST_CASE("bad memory inputs name their request field", "[memory][bad-input]") {
  const ModelArch m = builtin_model("glm-5.3");
  auto refused = [&](const MemoryRequest& in) {
    return flag_of([&] { (void)analyze_memory(m, in); });
  };
  MemoryRequest in = at_tp(8);
  in.layout.tp = 0;
  CHECK(refused(in) == "layout.tp");
  for (double utilization : {0.0, -0.5, 1.01, 1.5}) {
    in = at_tp(8);
    in.settings.gpu_memory_utilization = utilization;
    CHECK(refused(in) == "memory.gpu_memory_utilization");
  }
  in = at_tp(8);
  in.settings.node_memory = Bytes(0.0);
  CHECK(refused(in) == "memory.node_memory");
  in = at_tp(8);
  in.settings.max_model_len = 0;
  CHECK(refused(in) == "memory.max_model_len");
  in = at_tp(8);
  in.engine.max_num_seqs = 0;
  CHECK(refused(in) == "engine.max_num_seqs");
  in = at_tp(8);
  in.settings.nccl_channels = 65;
  CHECK(refused(in) == "memory.nccl_channels");
  in = at_tp(8);
  in.settings.nccl_buffsize = Bytes(0.0);
  CHECK(refused(in) == "memory.nccl_buffsize");
  in = at_tp(8);
  in.settings.kv_cache_dtype_bytes = 3;
  CHECK(refused(in) == "memory.kv_cache_dtype");
  in = at_tp(8);
  in.settings.kv_bytes_per_token = Bytes(0.0);
  CHECK(refused(in) == "memory.kv_bytes_per_token");
  in = at_tp(8);
  in.node.nccl_memory.reset();  // a node file without NCCL's measured footprint
  CHECK(refused(in) == "node");
  const InputLocation where = InputLocation::for_key("--kv-cache-dtype");
  CHECK(parse_kv_cache_dtype("auto", where) == 2);
  CHECK(parse_kv_cache_dtype("bf16", where) == 2);
  CHECK(parse_kv_cache_dtype("fp8", where) == 1);
  CHECK(parse_kv_cache_dtype("fp8_e5m2", where) == 1);
  CHECK(flag_of([&] { (void)parse_kv_cache_dtype("fp4", where); }) == "--kv-cache-dtype");
  CHECK(flag_of([&] { (void)nccl(0, Bytes::mebibytes(1.0), 8); }) == "memory.nccl_channels");
}

TEST_CASE("min-tp answers 0 when no TP fits, and stops where NCCL alone fills the budget",
          "[memory]") {
  const ModelArch m = builtin_model("glm-5.3");
  MemoryRequest in = at_tp(8);
  in.settings.node_memory = Bytes::gigabytes(20.0);  // an 18 GB budget: NCCL takes 21.7 GB at TP4
  const MinTpReport found = find_min_tp(m, in);
  CHECK(found.tp == 0);
  REQUIRE(found.tried.size() == 3);  // TP1, TP2, TP4
  CHECK(found.tried.back().nccl_bytes > found.tried.back().budget);
  CHECK(found.tried[found.closest].tp == 4);  // nearest: 130 GB against 18, TP2 228 GB
  CHECK(min_tp(m, in) == 0);
  CHECK_THAT(found.why_none, ContainsSubstring("from TP4 on, NCCL's buffers"));
}

TEST_CASE(
    "memory's document: the parts, the fit and the settings named as its caller names them, and "
    "the "
    "smallest TP's with min_tp and the sizes tried",
    "[memory]") {
  const ModelArch m = builtin_model("glm-5.3");
  const MemoryReport r = analyze_memory(m, tuned_nccl(8));
  const Document doc = memory_document(m, r);
  CHECK(doc.title == "tpnet memory: glm-5.3 as TP8, per node of dgx-spark (121 GB usable x 0.9)");
  REQUIRE(doc.answer.size() == 1);
  CHECK_THAT(doc.answer.front(), StartsWith("glm-5.3 fits TP8 on dgx-spark: "));
  CHECK_THAT(doc.answer.front(), ContainsSubstring(" left for the KV cache ("));
  std::vector<std::string> keys;
  for (const Field& f : doc.fields) keys.push_back(f.key);
  CHECK(keys == std::vector<std::string>{"model",
                                         "tp",
                                         "node",
                                         "node_memory_bytes",
                                         "os_reserved_bytes",
                                         "gpu_memory_utilization",
                                         "budget_bytes",
                                         "weights_bytes",
                                         "weights_split_bytes",
                                         "weights_replicated_bytes",
                                         "weights_mtp_bytes",
                                         "",
                                         "nccl_channels",
                                         "nccl_buffsize_bytes",
                                         "nccl_profile",
                                         "nccl_ranks",
                                         "nccl_bytes",
                                         "cuda_graph_bytes",
                                         "alltoall_buffer_bytes",
                                         "chunk_tokens",
                                         "activation_factor",
                                         "activation_peak_bytes",
                                         "autotune_spike_bytes",
                                         "fixed_bytes",
                                         "fixed_fits",
                                         "shortfall_bytes",
                                         "kv_cache_bytes",
                                         "kv_cache_dtype",
                                         "kv_cache_dtype_bytes",
                                         "max_model_len",
                                         "max_num_seqs",
                                         "kv_bytes_per_token",
                                         "kv_bytes_per_token_source",
                                         "kv_tokens",
                                         "sequence_bytes",
                                         "sequence",
                                         "max_model_len_fits",
                                         "max_sequences",
                                         "longest_sequence_tokens",
                                         "max_num_seqs_bytes",
                                         "fits",
                                         "limit",
                                         "fit_summary",
                                         "replicated_parts"});
  CHECK(doc.warnings == r.warnings);
  // Unnamed, a setting is its request field; the CLI passes its flags.
  const auto label = [](const Document& d, const std::string& key) {
    for (const Field& f : d.fields) {
      if (f.key == key) return f.label;
    }
    return std::string("(none)");
  };
  CHECK(label(doc, "gpu_memory_utilization") == "memory.gpu_memory_utilization");
  CHECK(label(doc, "autotune_spike_bytes") == "autotune spike (memory.autotune_spike)");
  const MemoryDocumentNames names{[](std::string_view field) { return fmt::format("<{}>", field); },
                                  "fp8"};
  const Document named = memory_document(m, r, names);
  CHECK(label(named, "max_model_len") == "<memory.max_model_len>");
  CHECK(label(named, "max_num_seqs_bytes") == "<engine.max_num_seqs> 256 such sequences");
  CHECK(named.fields[27].key == "kv_cache_dtype");
  CHECK(named.fields[27].text == "fp8");

  const Document smallest = memory_document(m, find_min_tp(m, tuned_nccl(1)));
  CHECK(smallest.title == "tpnet memory: the smallest TP that fits glm-5.3 is 8");
  REQUIRE(smallest.fields.size() == doc.fields.size() + 2);
  CHECK(smallest.fields[1].key == "min_tp");
  CHECK(smallest.fields[1].number == 8.0);
  CHECK(smallest.fields.back().key == "tried");
  CHECK(smallest.fields.back().records.size() == 4);  // TP1, 2, 4, 8
}

TEST_CASE("memory's document when no TP fits: why, the nearest size and a warning saying so",
          "[memory]") {
  const ModelArch m = builtin_model("kimi-k2");
  MemoryRequest in = at_tp(8);
  in.settings.max_model_len = 10'000'000;
  const MinTpReport found = find_min_tp(m, in);
  REQUIRE(found.tp == 0);
  const Document doc = memory_document(m, found);
  CHECK(doc.title == "tpnet memory: kimi-k2 fits at no TP from 1 to 32");
  std::vector<std::string> keys;
  for (const Field& f : doc.fields) keys.push_back(f.key);
  CHECK(keys == std::vector<std::string>{"model", "min_tp", "", "why_none", "closest_tp",
                                         "fit_summary", "tried"});
  CHECK(doc.fields[4].number == 16.0);
  REQUIRE_FALSE(doc.warnings.empty());
  CHECK(doc.warnings.front() ==
        fmt::format("kimi-k2 fits at no TP from 1 to 32: {}; TP16 comes nearest", found.why_none));
  CHECK(doc.warnings.size() == 1 + found.tried[found.closest].warnings.size());
}

TEST_CASE("DeepEP's low-latency buffers count against the budget on an EP layout that runs them",
          "[memory]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  MemoryRequest request = at_tp(8);
  request.layout = ParallelLayout{8, 1, 16};
  const MemoryReport gathered = analyze_memory(v3, request);
  CHECK(gathered.alltoall_buffer_bytes.count() == 0.0);  // vLLM's default backend keeps none
  request.engine.all2all_backend = AllToAllBackend::deepep_low_latency;
  const MemoryReport deepep = analyze_memory(v3, request);
  // s.31: 2 x (2 x 954,204,160 + 1,024) B of RDMA buffer and 1,024 MiB of NVLink buffer
  const double buffers = 2.0 * (2.0 * 954204160.0 + 1024.0) + 1073741824.0;
  CHECK(deepep.alltoall_buffer_bytes.count() == buffers);
  CHECK(deepep.fixed_bytes.count() == Approx(gathered.fixed_bytes.count() + buffers));
  // without EP, or with EP inside one TP group (no all-to-all), nothing to keep
  request.layout = ParallelLayout{8, 1, 1};
  CHECK(analyze_memory(v3, request).alltoall_buffer_bytes.count() == 0.0);
  request.layout = ParallelLayout{8, 1, 8};
  CHECK(analyze_memory(v3, request).alltoall_buffer_bytes.count() == 0.0);
}
