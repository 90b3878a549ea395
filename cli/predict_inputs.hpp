#pragma once
// What tpnet predict reads from its flags beyond plain values (the compute
// it is given, measured inter-token latencies, the scenarios, the layouts):
// CLI-only, since their errors and sources name the flags. The files it
// writes beside its answer are predict_files.hpp's.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "tpnet/usecase/calibration_use.hpp"
#include "tpnet/usecase/predict.hpp"

namespace tpnet::cli {

/// The prompt predict runs when given no --prompt, --trace or --baseline.
inline constexpr const char* kDefaultPredictPrompt = "8k";

/// --gemm-tflops and --mixer-tflops: 0 given is no rate, not "not given".
[[nodiscard]] CLI::Validator tflops_given();

/// A count of tokens (`--output 1k`), refusing a mix of requests.
[[nodiscard]] TokenCount parse_token_count(const std::string& text, const char* flag_name);

/// `1=77.97ms`: the TP and the inter-token latency measured there (--decode-itl).
[[nodiscard]] DecodeMeasurement parse_decode_itl(const std::string& text);

/// The workloads asked: the --trace file, else the --prompt values, else the
/// baseline's rows, else one kDefaultPredictPrompt prompt; each request with
/// `output` output tokens where nothing states its own.
[[nodiscard]] std::vector<PredictScenario> predict_scenarios(
    const std::vector<std::string>& prompts, const std::string& trace, TokenCount output,
    const std::vector<PrefillScenario>& baseline);

/// --prompt, --trace, --output, --baseline and --decode-itl: what predict
/// runs, and what was measured.
struct PredictWorkloadFlags {
  std::vector<std::string> prompts;
  std::string trace;
  std::string output = std::to_string(kDefaultOutputTokens);
  std::string baseline;  ///< a CSV of measured TTFTs
  std::vector<std::string> decode_itl;
};
void add_predict_workload_options(CLI::App* sub, PredictWorkloadFlags& flags);
/// Sets the request's baseline (read here) and scenarios, with a note when
/// nothing was asked.
void apply_predict_workload(const PredictWorkloadFlags& flags, PredictRequest& request);
/// The --decode-itl measurements, else the baseline's at the request's TP.
[[nodiscard]] std::vector<DecodeMeasurement> decode_measurements(const PredictWorkloadFlags& flags,
                                                                 const PredictRequest& request);

/// The compute predict is given instead of a baseline fit: --gemm-tflops
/// (with --mixer-tflops and --step-overhead), else the calibration's GEMM
/// timings, else none. Refuses a given rate beside the request's baseline,
/// whose fit is the compute.
struct GivenComputeFlags {
  double gemm_tflops = 0.0;
  double mixer_tflops = 0.0;
  std::string step_overhead;
};
void add_given_compute_options(CLI::App* sub, GivenComputeFlags& flags);
[[nodiscard]] std::optional<GivenCompute> given_compute(
    const GivenComputeFlags& flags, const PredictRequest& request,
    const std::optional<CalibrationInput>& calibration);

/// --disaggregate xPyD with --prefill-tp and --decode-tp (0: --tp's).
struct DisaggregationFlags {
  std::string layout;
  int prefill_tp = 0;
  int decode_tp = 0;
};
void add_disaggregation_options(CLI::App* sub, DisaggregationFlags& flags);
/// The layout asked, each pool's TP --tp's where not given; none without
/// --disaggregate (and then --prefill-tp or --decode-tp is refused).
[[nodiscard]] std::optional<DisaggregationLayout> disaggregation_layout(
    const DisaggregationFlags& flags, int tp);

/// --data-parallel-size and --enable-expert-parallel (vLLM's names): the
/// DP ranks beside the TP, with the routed experts over all of them.
struct ExpertParallelFlags {
  int data_parallel_size = 1;
  bool enable_expert_parallel = false;
};
void add_expert_parallel_options(CLI::App* app, ExpertParallelFlags& flags);
/// Sets the request's layout from the flags, the memory's too (the experts
/// over tp x dp ranks, the nodes of one DP rank each holding the attention).
void apply_expert_parallel(const ExpertParallelFlags& flags, PredictRequest& request);

}  // namespace tpnet::cli
