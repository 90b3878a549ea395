// Inputs the fuzzers of tests/fuzz found breaking the parser contract, each
// refused now with an InputError naming where (docs/hardening.md). The
// saved crash files also sit in tests/fuzz/corpus/<target>/ and replay as
// the fuzz.replay.<target> tests.

#include <string>

#include "catch.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/io/gemm_csv.hpp"
#include "tpnet/io/hf_config.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_yaml.hpp"
#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/io/plan_yaml.hpp"
#include "tpnet/io/sweep_io.hpp"

using namespace tpnet;

namespace {

template <typename Parse>
std::string error_of(Parse parse) {
  try {
    parse();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

const InputLocation kLink = InputLocation::for_key("--link");

}  // namespace

TEST_CASE("fuzz quantity: a link of 1e308 G overflowed to an infinite rate", "[fuzz]") {
  // tests/fuzz/corpus/quantity/crash-link-rate-inf ('7' picks parse_link).
  CHECK(error_of([] { (void)parse_link("1e308\t\t\t\t\t\t\t\t\t\tG", kLink); }) ==
        "--link: '1e308\t\t\t\t\t\t\t\t\t\tG' is not a link; use a preset (200G, 100G, "
        "emulated-100G) or a rate such as 200Gb/s, 109.07G or 25GB/s");
  // Rates past what a double holds, either way, name the flag and the text.
  for (const char* text : {"1e308T", "1e-315G"}) {
    CHECK_THAT(error_of([&] { (void)parse_bit_rate(text, kLink); }),
               ContainsSubstring(std::string("--link: '") + text + "' is out"));
  }
}

TEST_CASE("fuzz quantity: durations and byte sizes that overflow or vanish", "[fuzz]") {
  const InputLocation think = InputLocation::for_key("--think");
  for (const char* text : {"1e308min", "1e-316ns"}) {
    CHECK_THAT(error_of([&] { (void)parse_duration(text, think); }),
               ContainsSubstring(std::string("--think: '") + text + "' is out"));
  }
  const InputLocation bytes = InputLocation::for_key("--bytes-per-token");
  CHECK_THAT(error_of([&] { (void)parse_bytes("1e308TB", bytes); }),
             ContainsSubstring("--bytes-per-token: '1e308TB' is out"));
}

TEST_CASE("fuzz sweep_csv: itl_ms of 1e-308 made 1000 / itl_ms infinite", "[fuzz]") {
  // tests/fuzz/corpus/sweep_csv/crash-itl-denormal, trimmed to its row.
  const std::string text =
      "config,tp,concurrency,ttft_ms,itl_ms,tps,latency_s\n"
      "TP4,4,64,1551.45,1e-308,7.93,16.14\n";
  CHECK(error_of([&] { (void)parse_sweep_csv(text, "sweep.csv"); }) ==
        "sweep.csv:2: column itl_ms: 1e-308 is outside 1e-06 to 1e+09 milliseconds: not a "
        "measurement");
  CHECK(error_of([&] {
          (void)parse_sweep_csv("config,tp,concurrency,ttft_ms,tps\nTP1,1,1,2e9,10\n", "s.csv");
        }) ==
        "s.csv:2: column ttft_ms: 2e9 is outside 1e-06 to 1e+09 milliseconds: not a "
        "measurement");
}

TEST_CASE("fuzz vllm_bench_json: a mean_tpot_ms of 1e-300 gave an infinite throughput", "[fuzz]") {
  const std::string text =
      R"({"max_concurrency": 1000000, "completed": 10, "mean_ttft_ms": 100.0, )"
      R"("mean_tpot_ms": 1e-300, "config": "TP2", "tp": 2})";
  CHECK(error_of([&] { (void)parse_vllm_bench_json(text, "bench.json"); }) ==
        "bench.json:1: mean_tpot_ms: is 1e-300 ms, under 1e-06 ms: not a measurement");
}

TEST_CASE("fuzz plan_yaml: a link of 1e-306G made the extra TTFT infinite", "[fuzz]") {
  // tests/fuzz/corpus/plan_yaml/crash-link-rate-tiny.yaml, trimmed: the rate
  // parsed, and bytes x 8 / rate overflowed in evaluate_plan.
  const std::string plan =
      "model: glm-5.3\nlayout: {tp: 16}\nlinks: {from: 200G, to: 1e-306G}\n"
      "workload:\n  prompts: [8k]\n";
  CHECK_THAT(error_of([&] { (void)parse_plan_yaml(plan, "plan.yaml"); }),
             ContainsSubstring("plan.yaml:3: links.to: '1e-306G' is "));
}

TEST_CASE("fuzz nccl_tests: a count of 2e121 elements overflowed the 64-bit count", "[fuzz]") {
  const std::string log =
      "#  Rank  0 Group  0 Pid 1 on h device  0 [0x01] GPU\n"
      "#  Rank  1 Group  0 Pid 2 on h device  1 [0x01] GPU\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n"
      "        1024  2.04844e+121     float     sum      -1    10.00    0.10    0.10      0    "
      "10.00    0.10    0.10      0\n"
      "# Avg bus bandwidth    : 0.1\n";
  const std::string message = error_of([&] { (void)parse_nccl_tests(log, "ar.txt"); });
  CHECK(message.find("ar.txt:4") != std::string::npos);
  CHECK(message.find("count") != std::string::npos);
  CHECK(message.find("10^18") != std::string::npos);
}

TEST_CASE("fuzz hf_config: 64 heads in a hidden_size of 2 were 0 wide each", "[fuzz]") {
  // tests/fuzz/corpus/hf_config/crash-head-dim-zero.json, trimmed: hidden_size
  // 2 / 64 heads rounded to a head of 0, so every per-head size was 0.
  const std::string config =
      "{\"model_type\": \"llama\", \"hidden_size\": 2, \"num_hidden_layers\": 80,\n"
      " \"vocab_size\": 128256, \"num_attention_heads\": 64, \"intermediate_size\": 28672}\n";
  CHECK(error_of([&] { (void)parse_hf_config(config, "config.json"); }) ==
        "config.json:2: num_attention_heads: 64 heads in a hidden_size of 2 are 0 wide each; give "
        "head_dim");
  // The same shape in a model file; head_dim makes it valid.
  const std::string yaml =
      "name: tiny\nhidden_size: 2\nnum_layers: 1\nvocab_size: 10\nnum_attention_heads: 64\n"
      "total_params: 1K\nbits_per_weight: 16\n";
  CHECK(error_of([&] { (void)parse_model_yaml(yaml, "tiny.yaml"); }) ==
        "tiny.yaml:5: num_attention_heads: 64 heads in a hidden_size of 2 are 0 wide each; give "
        "head_dim");
  CHECK(first_attention(parse_model_yaml(yaml + "head_dim: 8\n", "tiny.yaml").layers)->head_dim ==
        8);
}

TEST_CASE("fuzz gemm_csv: a chunk of 2e13 tokens was taken as a measurement", "[fuzz]") {
  // tests/fuzz/corpus/gemm_csv/crash-chunk-tokens-2e13.csv, trimmed. The limits
  // are tpnet's own (tpnet/base/limits.hpp): a chunk of at most kMaxTokens, a TP of at most kMaxTp.
  const std::string header =
      "model,tp,chunk_tokens,precision,device,compute_capability,peak_tflops,gemm,m,n,k,count,"
      "median_s,tflops\n";
  const std::string row_tail = ",nvfp4,NVIDIA GB10,12.1,0,attn.qkv,4096,6144,256,75,0.0003,43\n";
  CHECK(error_of([&] {
          (void)parse_gemm_csv(header + "glm-5.3,8,21474836474096" + row_tail, "gemm.csv");
        }) == "gemm.csv:2: column chunk_tokens: is 21474836474096; must be from 1 to 134217728");
  CHECK(error_of([&] {
          (void)parse_gemm_csv(header + "glm-5.3,3000000000,4096" + row_tail, "gemm.csv");
        }) == "gemm.csv:2: column tp: is 3000000000; must be from 1 to 1024");
  CHECK(parse_gemm_csv(header + "glm-5.3,8,134217728" + row_tail, "gemm.csv").chunk_tokens ==
        134217728);
}

TEST_CASE("fuzz nccl_tests: a busbw of 1e308 GB/s became an infinite rate", "[fuzz]") {
  // tests/fuzz/corpus/nccl_tests/crash-busbw-1e308 (found by CI's fuzz run).
  auto log_with = [](const std::string& row) {
    return "#  Rank  0 Group  0 Pid 1 on h device  0 [0x01] GPU\n"
           "#  Rank  1 Group  0 Pid 2 on h device  1 [0x01] GPU\n"
           "#       size         count      type   redop    root     time   algbw   busbw #wrong "
           "    time   algbw   busbw #wrong\n" +
           row + "# Avg bus bandwidth    : 0.1\n";
  };
  auto error_for = [&](const std::string& row) {
    return error_of([&] { (void)parse_nccl_tests(log_with(row), "ar.txt"); });
  };
  CHECK(error_for("1024 256 float sum -1 37.87 0.03 01e308 0 37.87 0.03 0.05 0\n") ==
        "ar.txt:4: out-of-place busbw 1e+308 GB/s is above 1,250,000 GB/s (10 Pb/s)");
  CHECK(error_for("1024 256 float sum -1 37.87 0.03 0.05 0 1e300 0.03 0.05 0\n") ==
        "ar.txt:4: in-place time 1e+300 us is outside 0.001 us to 100,000 h");
  CHECK(error_for("1e19 2.5e18 float sum -1 37.87 0.03 0.05 0 37.87 0.03 0.05 0\n") ==
        "ar.txt:4: size: 1e+19 B is not a whole number of bytes from 1 to 10^18");
  CHECK(error_for("1024.5 256 float sum -1 37.87 0.03 0.05 0 37.87 0.03 0.05 0\n") ==
        "ar.txt:4: size: 1024.5 B is not a whole number of bytes from 1 to 10^18");
  CHECK(error_for("0.5 0 float sum -1 37.87 0.03 0.05 0 37.87 0.03 0.05 0\n") ==
        "ar.txt:4: size: 0.5 B is not a whole number of bytes from 1 to 10^18");
  // The limits themselves are accepted (1,250,000 B in 0.001 us is 1,250,000 GB/s);
  // a bandwidth of 0.00 is what small sizes print.
  const AllReduceSweep sweep = parse_nccl_tests(
      log_with("8 2 float sum -1 37.87 0.00 0.00 0 37.87 0.00 0.00 0\n"
               "1250000 312500 float sum -1 0.001 1250000 1250000 0 37.87 33.01 33.01 0\n"),
      "ar.txt");
  REQUIRE(sweep.samples.size() == 2);
  CHECK(sweep.samples[1].out_of_place.time.value() == Approx(1e-9));
}
