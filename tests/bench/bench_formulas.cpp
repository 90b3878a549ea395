// Speed of the core formulas. Run: build/tests/bench/tpnet_bench
// (docs in README.md, "Performance").

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <ostream>
#include <streambuf>
#include <string>

#include "../model_fixtures.hpp"
#include "compare_writer.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/hf_config.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/sweep_io.hpp"
#include "tpnet/tpnet.hpp"
#include "tpnet/usecase/capacity.hpp"
#include "tpnet/usecase/compare.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

namespace {

using namespace tpnet;
using namespace tpnet::test;

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
  const DecodeInputs inputs{1, builtin_node("dgx-spark").memory_bandwidth};
  for (auto _ : state) {
    benchmark::DoNotOptimize(analyze_decode(glm53(), engine, from, to, inputs));
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

/// Reading a checkpoint's config.json (and hf_quant_config.json) from
/// tests/data/hf: the family rule, the layer plan and each part's precision.
void BM_LoadCheckpoint(benchmark::State& state, const char* folder) {
  const std::string path = std::string(TPNET_SOURCE_DIR) + "/tests/data/hf/" + folder;
  for (auto _ : state) benchmark::DoNotOptimize(load_hf_config(path));
}
// 20,000+ modules in a modelopt map, one per expert projection.
BENCHMARK_CAPTURE(BM_LoadCheckpoint, minimax_m3_nvfp4, "nvidia__MiniMax-M3-NVFP4")
    ->Unit(benchmark::kMillisecond);
// An exclusion list of regexes over 93 hybrid layers.
BENCHMARK_CAPTURE(BM_LoadCheckpoint, kimi_k3, "moonshotai__Kimi-K3")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LoadCheckpoint, kimi_k2_5, "moonshotai__Kimi-K2.5")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LoadCheckpoint, qwen3_6_27b_nvfp4, "nvidia__Qwen3.6-27B-NVFP4")
    ->Unit(benchmark::kMillisecond);

/// Discards what it is given: the benchmark measures computing and formatting.
class NullBuffer : public std::streambuf {
 protected:
  std::streamsize xsputn(const char* /*s*/, std::streamsize n) override { return n; }
  int overflow(int c) override { return c; }
};

/// The README's million-row grid: 4 TP sizes x 50 x 50 links x 100 prompts.
void BM_CompareGridCsvMillionRows(benchmark::State& state) {
  CompareRequest spec;
  spec.model = glm53();
  spec.node = builtin_node("dgx-spark");
  for (int tp : {2, 4, 8, 16}) spec.layouts.push_back(ParallelLayout{tp, 1, 1});
  for (int g = 0; g < 50; ++g) {
    spec.from.push_back(
        ProfiledLink{Link{"from", BitRate::gigabits_per_second(100 + 2 * g), {}}, std::nullopt});
    spec.to.push_back(
        ProfiledLink{Link{"to", BitRate::gigabits_per_second(50 + 2 * g), {}}, std::nullopt});
  }
  for (int k = 1; k <= 100; ++k) {
    spec.prompts.push_back(PrefillScenario{std::to_string(k) + "k", PromptSpec{1, 1024LL * k}, {}});
  }
  spec.reference = ParallelLayout{8, 1, 1};
  const CompareReport report = run_compare(spec);
  const Document header;
  NullBuffer null;
  std::ostream sink(&null);
  const auto rows = static_cast<double>(compare_row_count(spec));
  for (auto _ : state) {
    benchmark::DoNotOptimize(cli::write_compare_grid(sink, Format::csv, report, header));
  }
  state.counters["rows_per_second"] = benchmark::Counter(
      rows * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CompareGridCsvMillionRows)->Unit(benchmark::kMillisecond);

/// A step's time as a cost model would price it: fixed plus per token.
double step_cost(const ScheduledStep& step) { return 0.02 + 1e-5 * double(step.tokens()); }

// The scheduler alone (issue 13's target: well under 10 ms): four 64K prompts
// at once with 1,024 outputs each, the GLM-5.3 study's engine settings.
void BM_ScheduleFour64kPrompts(benchmark::State& state) {
  SchedulerSettings settings;
  settings.max_num_batched_tokens = 4096;
  settings.long_prefill_token_threshold = 2048;
  const std::vector<ScheduledRequest> requests(4, ScheduledRequest{0.0, 65536, 1024});
  for (auto _ : state) {
    benchmark::DoNotOptimize(simulate_schedule(requests, settings, step_cost));
  }
}
BENCHMARK(BM_ScheduleFour64kPrompts)->Unit(benchmark::kMillisecond);

// A 10,000-request trace (target: under 1 s): a request every 50 ms, prompts
// of 512 to 8,191 tokens and 64 to 575 outputs, deterministic.
void BM_ScheduleTrace10k(benchmark::State& state) {
  SchedulerSettings settings;
  settings.max_num_batched_tokens = 8192;
  settings.max_num_seqs = 256;
  std::vector<ScheduledRequest> trace;
  trace.reserve(10000);
  for (int i = 0; i < 10000; ++i) {
    trace.push_back(ScheduledRequest{0.05 * i, 512 + (i * 7919) % 7680, 64 + (i * 104729) % 512});
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(simulate_schedule(trace, settings, step_cost));
  }
}
BENCHMARK(BM_ScheduleTrace10k)->Unit(benchmark::kMillisecond);

// tpnet predict end to end at one link, compute given: four 64K prompts with
// 1,024 outputs each, every step priced (GEMM and mixer FLOPs, the fabric
// profile's collectives) through the GLM-5.3 study's scheduler settings.
PredictRequest glm53_predict(std::vector<PredictScenario> scenarios) {
  PredictRequest r;
  r.model = resolve_model("glm-5.3");

  r.engine.tensor_parallel_size = 8;
  r.engine.long_prefill_token_threshold = 2048;
  r.engine.num_speculative_tokens = 4;
  const Link link = parse_link("200G", InputLocation::for_key("link"));
  r.links = {ProfiledLink{link, default_fabric(link, CollectiveSettings{}, "dgx-spark")}};
  r.compute = GivenCompute{
      PrefillComputeModel{Seconds(0.245), 3.24e-14, 3.8e-15, std::nullopt}, "given", {}};
  r.memory_bandwidth = BitRate::gigabytes_per_second(273.0);
  r.accepted_tokens = 2.5;
  r.scenarios = std::move(scenarios);
  return r;
}

void BM_PredictFour64kPrompts(benchmark::State& state) {
  const PredictRequest request = glm53_predict(
      {PredictScenario{"4x64k", std::vector<ScheduledRequest>(4, {0.0, 65536, 1024})}});
  for (auto _ : state) benchmark::DoNotOptimize(run_predict(request));
}
BENCHMARK(BM_PredictFour64kPrompts)->Unit(benchmark::kMillisecond);

// The same model on a 10,000-request trace (as BM_ScheduleTrace10k's).
void BM_PredictTrace10k(benchmark::State& state) {
  std::vector<ScheduledRequest> trace;
  trace.reserve(10000);
  for (int i = 0; i < 10000; ++i) {
    trace.push_back(ScheduledRequest{0.05 * i, 512 + (i * 7919) % 7680, 64 + (i * 104729) % 512});
  }
  PredictRequest request = glm53_predict({PredictScenario{"trace", trace}});
  request.engine.max_num_batched_tokens = 8192;
  request.engine.long_prefill_token_threshold = 0;
  for (auto _ : state) benchmark::DoNotOptimize(run_predict(request));
}
BENCHMARK(BM_PredictTrace10k)->Unit(benchmark::kMillisecond);

/// Two configs (TP2, TP4) sharing `levels` concurrency levels between them:
/// TTFT rising and TPS falling with C, so C_max lies inside the sweep.
std::vector<Sweep> capacity_sweeps(int levels) {
  std::vector<Sweep> sweeps{Sweep{"TP2", 2, LoadAxis::concurrency, {}, {}},
                            Sweep{"TP4", 4, LoadAxis::concurrency, {}, {}}};
  for (int c = 1; c <= levels; ++c) {
    Sweep& s = sweeps[static_cast<std::size_t>(c % 2)];
    SweepPoint p;
    p.concurrency = c;
    p.ttft = Seconds::milliseconds(100.0 + 1000.0 * c / levels);
    p.tps = TokenRate(40.0 - 30.0 * c / levels);
    p.itl = Seconds(1.0 / p.tps.tokens_per_second());
    p.latency = Seconds(5.0 + 10.0 * c / levels);
    s.points.push_back(p);
  }
  return sweeps;
}

// Issue 27.2's target: 20,000 measured levels under a second (it took 21 s
// when the sensitivity rows re-ran the analysis per level over a std::set).
void BM_CapacityLevels(benchmark::State& state) {
  const std::vector<Sweep> sweeps = capacity_sweeps(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(analyze_capacity(sweeps, SloSpec{}));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_CapacityLevels)
    ->RangeMultiplier(4)
    ->Range(1250, 20000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

// The same levels read from one --append-result file of that many lines,
// grouped by config and analysed: what `tpnet capacity --sweep FILE` does
// before it prints.
void BM_CapacityJsonLines(benchmark::State& state) {
  const auto levels = static_cast<int>(state.range(0));
  std::string text;
  for (int c = 1; c <= levels; ++c) {
    text += fmt::format(
        R"({{"config": "TP{}", "max_concurrency": {}, "mean_ttft_ms": {}, "mean_tpot_ms": {}, )"
        R"("mean_e2el_ms": {}}})"
        "\n",
        c % 2 == 0 ? 2 : 4, c, 100.0 + 1000.0 * c / levels, 1000.0 / (40.0 - 30.0 * c / levels),
        5000.0 + 10000.0 * c / levels);
  }
  for (auto _ : state) {
    const SweepSet set = sweeps_from_bench(parse_vllm_bench_json(text, "levels.jsonl"), {});
    benchmark::DoNotOptimize(analyze_capacity(set.sweeps, SloSpec{}));
  }
}
BENCHMARK(BM_CapacityJsonLines)->Arg(20000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
