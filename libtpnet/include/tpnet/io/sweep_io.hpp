#pragma once
/// Reading load sweeps: the study's concurrency CSV (columns of
/// examples/data/qwen36_27b_sweep.csv) and `vllm bench serve` result JSON
/// files, one per load level: a concurrency, or a request rate
/// (docs/formulas.md s.13).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/analysis/capacity.hpp"
#include "tpnet/error.hpp"

namespace tpnet {

/// Sweeps read from one or more files, and what looked doubtful in them.
struct SweepSet {
  std::vector<Sweep> sweeps;
  std::vector<std::string> warnings;  ///< e.g. a TTFT of 0.23 ms that looks like seconds
};

/// Columns `config`, `tp`, `concurrency`, `ttft_ms`, `tps` are required;
/// `itl_ms` and `latency_s` are optional, and their cells may be empty where
/// a study did not report them. An empty `tps` cell is 1000 / `itl_ms` when
/// that is given. Other columns are ignored; `#` lines are comments. Rows of
/// one config may come in any order. Errors name the file, line and column.
SweepSet parse_sweep_csv(std::string_view text, const std::string& origin);
SweepSet load_sweep_csv(const std::string& path);

/// How vLLM results name their configs where the files do not say it in
/// the keys `config` and `tp`.
struct BenchNaming {
  /// The result key that names the config: `--metadata deployment=base`
  /// stores "deployment". For "config", vLLM's own `label` is the fallback.
  std::string config_key = "config";
  std::optional<int> tp;  ///< the TP size of results that record none
};

/// One `vllm bench serve --save-result` object.
struct BenchResult {
  std::optional<std::string> config;  ///< key `config` (`--metadata config=TP4`)
  std::optional<int> tp;              ///< key `tp` (`--metadata tp=4`), number or text
  /// request_rate a number: the rate axis; else max_concurrency's. A run with
  /// request_rate "inf" and no cap is the top of a rate sweep.
  LoadAxis axis = LoadAxis::concurrency;
  SweepPoint point;
  std::string tps_from;      ///< "mean_tpot_ms" or "mean_itl_ms"
  std::string latency_from;  ///< "mean_e2el_ms", "mean_ttft_ms + mean_tpot_ms x (..)" or ""
  std::vector<std::string> warnings;
};

/// Reads the keys `request_rate` (a number or "inf"), `max_concurrency`,
/// `mean_ttft_ms`, `mean_tpot_ms` (else `mean_itl_ms`), `mean_itl_ms`,
/// `mean_e2el_ms` (else `total_output_tokens` and `completed` to derive the
/// latency), `failed`, `completed`, `num_prompts`, `duration`,
/// `request_throughput`, `output_throughput`, `burstiness`, the config key and
/// `tp`; other keys (percentiles, goodput under either spelling, metadata,
/// `max_concurrent_requests`, which is an observed peak) are ignored. A run
/// where every request failed, or one with `ramp_up_strategy`, is refused. A
/// file may hold one object, or one object per line as `--append-result`
/// writes them. Errors name the file, line and key.
std::vector<BenchResult> parse_vllm_bench_json(std::string_view text, const std::string& origin,
                                               const BenchNaming& naming = {});

/// Groups bench results into sweeps by config: `config_name` (when given)
/// names them all, else each result's `config` key. The TP size is the `tp`
/// key, else the number after a leading "TP" in the config name (TP8-300K
/// -> 8). Throws naming the file when neither gives a config or a TP size.
SweepSet sweeps_from_bench(const std::vector<BenchResult>& results,
                           const std::optional<std::string>& config_name,
                           const BenchNaming& naming = {});

/// A CSV file (by the extension .csv, or content not starting with `{`), a
/// vLLM result JSON file (.json), or a directory whose *.json files are vLLM
/// results (read in name order). `config_name` names JSON results and is
/// refused for a CSV, whose rows name their configs.
SweepSet load_sweeps(const std::string& path, const std::optional<std::string>& config_name = {},
                     const BenchNaming& naming = {});

/// Joins sets: sweeps of one config name are merged (their TP sizes must
/// agree); a concurrency measured twice for one config is an InputError
/// naming both places.
SweepSet merge_sweep_sets(const std::vector<SweepSet>& sets);

}  // namespace tpnet
