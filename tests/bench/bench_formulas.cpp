// Speed of the core formulas. Run: build/tests/bench/tpnet_bench
// (docs in README.md, "Performance").

#include <benchmark/benchmark.h>

#include "tpnet/tpnet.hpp"

namespace {

using namespace tpnet;

const ModelArch& glm53() {
  static const ModelArch model = builtin_model("glm-5.3");
  return model;
}

void BM_BytesPerPromptToken(benchmark::State& state) {
  EngineConfig engine;
  for (auto _ : state) {
    engine.tensor_parallel_size = 2 + static_cast<int>(state.iterations() % 15);
    benchmark::DoNotOptimize(bytes_per_prompt_token(glm53(), engine));
  }
}
BENCHMARK(BM_BytesPerPromptToken);

void BM_PenaltyStudyScenarios(benchmark::State& state) {
  const EngineConfig engine;
  const Link from = parse_link("200G", InputLocation::for_key("--from"));
  const Link to = parse_link("100G", InputLocation::for_key("--to"));
  const auto scenarios = study_scenarios();
  for (auto _ : state) {
    benchmark::DoNotOptimize(analyze_penalty(glm53(), engine, from, to, scenarios));
  }
}
BENCHMARK(BM_PenaltyStudyScenarios);

void BM_Decode(benchmark::State& state) {
  EngineConfig engine;
  engine.num_speculative_tokens = 4;
  const Link from = parse_link("200G", InputLocation::for_key("--from"));
  const Link to = parse_link("100G", InputLocation::for_key("--to"));
  for (auto _ : state) {
    benchmark::DoNotOptimize(analyze_decode(glm53(), engine, from, to, DecodeInputs{}));
  }
}
BENCHMARK(BM_Decode);

void BM_ParseBitRate(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(parse_bit_rate("109.07Gb/s", InputLocation::for_key("--link")));
  }
}
BENCHMARK(BM_ParseBitRate);

void BM_LoadBuiltinModel(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(builtin_model("glm-5.3"));
}
BENCHMARK(BM_LoadBuiltinModel);

}  // namespace

BENCHMARK_MAIN();
