#pragma once
/// Reading load sweeps: the study's concurrency CSV (columns of
/// examples/data/qwen36_27b_sweep.csv) and `vllm bench serve` result JSON
/// files, one per load level: a concurrency, or a request rate
/// (docs/formulas.md s.13).

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/measured/sweep.hpp"

namespace tpnet {

/// Sweeps read from one or more files, and what looked doubtful in them.
struct SweepSet {
  std::vector<Sweep> sweeps;
  std::vector<std::string> warnings;  ///< e.g. a TTFT of 0.23 ms that looks like seconds
  /// config -> the `model_id` its vLLM results name (none for a CSV)
  std::map<std::string, std::string> model_ids;
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
  std::optional<std::string> config;    ///< key `config` (`--metadata config=TP4`)
  std::optional<int> tp;                ///< key `tp` (`--metadata tp=4`), number or text
  std::optional<std::string> model_id;  ///< key `model_id`: names a config that records none
  /// `label`, `backend`, `endpoint_type`: what vLLM puts first in a result's file name
  std::vector<std::string> file_name_prefixes;
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
/// `tp`; the median, p90 and p99 of TTFT and TPOT (of ITL without TPOT) for
/// SLOs on those statistics; other keys (p95 and other percentiles, goodput
/// under either spelling, metadata,
/// `max_concurrent_requests`, which is an observed peak) are ignored. A run
/// where every request failed, or one with `ramp_up_strategy`, is refused. A
/// file may hold one object, a JSON array of them, or one object per line as
/// `--append-result` writes them; every line must then be one whole object,
/// so a file whose last line was cut, or with two records run together on
/// one line, is refused naming the line rather than read as its first record
/// (docs/hardening.md). Errors name the file, line and key.
std::vector<BenchResult> parse_vllm_bench_json(std::string_view text, const std::string& origin,
                                               const BenchNaming& naming = {});

/// Groups bench results into sweeps by config: `config_name` (when given)
/// names them all, else each result's `config` key (or `label`), else its
/// `model_id` after the last '/' followed by what its file name says besides
/// the model, vLLM's label and the load level ("gemma-4-26B-A4B-it
/// 11-rate-sweep" for 11-rate-sweep-0.5.json; "Qwen3.6-27B-NVFP4" for vLLM's
/// own openai-chat-infqps-concurrency8-Qwen3.6-27B-NVFP4-20260101-120000.json).
/// The TP size is the `tp` key, else the number after a leading "TP" in the
/// config name (TP8-300K -> 8), else `naming.tp`. Throws naming the file when
/// nothing gives a config or a TP size.
SweepSet sweeps_from_bench(const std::vector<BenchResult>& results,
                           const std::optional<std::string>& config_name,
                           const BenchNaming& naming = {});

/// A CSV file (by the extension .csv, or content not starting with `{`), a
/// vLLM result JSON file (.json), or a directory whose *.json and *.jsonl
/// files are vLLM results (read in name order; a JSON file there that holds
/// no result key, such as a harness's meta.json, is skipped with a warning).
/// `config_name` names JSON results and is refused for a CSV, whose rows name
/// their configs.
SweepSet load_sweeps(const std::string& path, const std::optional<std::string>& config_name = {},
                     const BenchNaming& naming = {});

/// Warnings for configs whose vLLM `model_id` does not look like `model`
/// (neither name, lowercased with only letters and digits kept, contains
/// the other): a sweep of another model sizes nothing about this one.
[[nodiscard]] std::vector<std::string> model_id_warnings(const SweepSet& set,
                                                         std::string_view model);

/// Joins sets: sweeps of one config name are merged (their TP sizes must
/// agree); a concurrency measured twice for one config is an InputError
/// naming both places.
/// Takes the sets by value and moves their points: a sweep is held once.
SweepSet merge_sweep_sets(std::vector<SweepSet> sets);

}  // namespace tpnet
