#include "predict_inputs.hpp"

#include <fmt/format.h>

#include <exception>
#include <utility>

#include "common.hpp"
#include "integer_flags.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/baseline_csv.hpp"
#include "tpnet/io/trace_csv.hpp"

namespace tpnet::cli {
namespace {

InputLocation predict_flag(const char* name) { return InputLocation::for_key(name); }

}  // namespace

CLI::Validator tflops_given() {
  return {[](const std::string& text) -> std::string {
            double value = 0.0;
            try {
              std::size_t used = 0;
              value = std::stod(text, &used);
              if (used != text.size()) value = 0.0;
            } catch (const std::exception&) {
              value = 0.0;
            }
            return value >= 1e-6 && value <= 1e6
                       ? ""
                       : fmt::format("'{}' is out of range; allowed 0.000001 to 1000000 TFLOP/s",
                                     text);
          },
          "", "TFLOP/s"};
}

void add_disaggregation_options(CLI::App* sub, DisaggregationFlags& flags) {
  sub->add_option("--disaggregate", flags.layout,
                  "Prefill and decode on separate instances, xPyD (e.g. 2P1D): vLLM's "
                  "disaggregated prefill with a KV connector");
  sub->add_option("--prefill-tp", flags.prefill_tp,
                  "With --disaggregate: nodes per prefill instance (default --tp)")
      ->check(whole_number_in(1, kMaxTp));
  sub->add_option("--decode-tp", flags.decode_tp,
                  "With --disaggregate: nodes per decode instance (default --tp)")
      ->check(whole_number_in(1, kMaxTp));
}

std::optional<DisaggregationLayout> disaggregation_layout(const DisaggregationFlags& flags,
                                                          int tp) {
  if (flags.layout.empty()) {
    if (flags.prefill_tp > 0 || flags.decode_tp > 0) {
      throw InputError("sizes the instances of --disaggregate; give --disaggregate too",
                       predict_flag(flags.prefill_tp > 0 ? "--prefill-tp" : "--decode-tp"));
    }
    return std::nullopt;
  }
  DisaggregationLayout layout = parse_disaggregation(flags.layout, predict_flag("--disaggregate"));
  layout.prefill_tp = flags.prefill_tp > 0 ? flags.prefill_tp : tp;
  layout.decode_tp = flags.decode_tp > 0 ? flags.decode_tp : tp;
  return layout;
}

TokenCount parse_token_count(const std::string& text, const char* flag_name) {
  const PromptSpec spec = parse_prompt(text, predict_flag(flag_name));
  if (spec.requests != 1) {
    throw InputError(fmt::format("'{}' is a count of tokens, not a mix of requests", text),
                     predict_flag(flag_name));
  }
  return spec.tokens_each;
}

DecodeMeasurement parse_decode_itl(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError(fmt::format("'{}' is not TP=ITL (e.g. 1=77.97ms)", text),
                     predict_flag("--decode-itl"));
  }
  const std::string tp_text = text.substr(0, eq);
  const auto not_a_tp = [&] {
    return InputError(fmt::format("'{}' is not a TP size (1 to {})", tp_text, kMaxTp),
                      predict_flag("--decode-itl"));
  };
  int tp = 0;
  for (const char c : tp_text) {
    if (c < '0' || c > '9' || tp > kMaxTp) throw not_a_tp();
    tp = tp * 10 + (c - '0');
  }
  if (tp < 1 || tp > kMaxTp) throw not_a_tp();
  return DecodeMeasurement{tp, parse_duration(text.substr(eq + 1), predict_flag("--decode-itl")),
                           fmt::format("--decode-itl {}", text)};
}

std::vector<PredictScenario> predict_scenarios(const std::vector<std::string>& prompts,
                                               const std::string& trace, TokenCount output,
                                               const std::vector<PrefillScenario>& baseline) {
  std::vector<PredictScenario> out;
  if (!trace.empty()) {
    if (!prompts.empty()) {
      throw InputError("use either --prompt or --trace, not both", predict_flag("--trace"));
    }
    out.push_back(PredictScenario{trace, load_trace_csv(trace)});
    return out;
  }
  if (prompts.empty() && !baseline.empty()) return scenarios_from_baseline(baseline, output);
  // Nothing asked: the 8K prompt every study starts with, said in a note.
  const std::vector<std::string> asked =
      prompts.empty() ? std::vector<std::string>{kDefaultPredictPrompt} : prompts;
  std::vector<PrefillScenario> given;
  given.reserve(asked.size());
  for (const auto& text : asked) {
    given.push_back(PrefillScenario{text, parse_prompt(text, predict_flag("--prompt")), {}});
  }
  return scenarios_from_baseline(given, output);
}

namespace {

std::optional<GivenCompute> compute_given_by_flags(
    const GivenComputeFlags& flags, const ModelArch& model,
    const std::optional<CalibrationInput>& calibration) {
  for (const auto& [value, name] : {std::pair{flags.gemm_tflops, "--gemm-tflops"},
                                    std::pair{flags.mixer_tflops, "--mixer-tflops"}}) {
    if (!(value == 0.0 || (value >= 1e-6 && value <= 1e6))) {
      throw InputError(
          fmt::format("{:g} is out of range; allowed 0.000001 to 1000000 TFLOP/s", value),
          predict_flag(name));
    }
  }
  if (flags.gemm_tflops > 0.0) {
    GivenCompute g;
    g.model.seconds_per_gemm_flop = 1.0 / (flags.gemm_tflops * 1e12);
    if (flags.mixer_tflops > 0.0)
      g.model.seconds_per_mixer_flop = 1.0 / (flags.mixer_tflops * 1e12);
    if (!flags.step_overhead.empty()) {
      g.model.per_step = parse_duration(flags.step_overhead, predict_flag("--step-overhead"));
    }
    g.source = fmt::format(
        "given: --gemm-tflops {}{}{}", flags.gemm_tflops,
        flags.mixer_tflops > 0.0 ? fmt::format(" --mixer-tflops {}", flags.mixer_tflops)
                                 : std::string(),
        flags.step_overhead.empty() ? std::string()
                                    : fmt::format(" --step-overhead {}", flags.step_overhead));
    if (flags.mixer_tflops <= 0.0) {
      g.warnings.emplace_back("no --mixer-tflops: token mixing (attention) is not priced");
    }
    return g;
  }
  if (flags.mixer_tflops > 0.0 || !flags.step_overhead.empty()) {
    throw InputError("needs --gemm-tflops: the GEMM rate is the coefficient every step uses",
                     predict_flag("--gemm-tflops"));
  }
  if (calibration && calibration->file->compute) {
    const ComputeCalibration& c = *calibration->file->compute;
    GivenCompute g;
    g.model = prefill_compute_from_gemms(c, model);
    g.source = fmt::format("calibration {} (GEMM timings of {} at TP{}, {})",
                           calibration->file->origin, c.model, c.tp, c.precision);
    g.warnings.emplace_back(
        "prefill compute from GEMM timings alone: attention and fixed step costs are not in "
        "them, so TTFTs come out short (a baseline fits them)");
    if (c.model != model.name) {
      g.warnings.push_back(
          fmt::format("the calibration's GEMMs are {}'s, not {}'s", c.model, model.name));
    }
    return g;
  }
  return std::nullopt;
}

}  // namespace

void add_given_compute_options(CLI::App* sub, GivenComputeFlags& flags) {
  sub->add_option("--gemm-tflops", flags.gemm_tflops,
                  "Given compute: achieved GEMM TFLOP/s per node (instead of a baseline)")
      ->check(tflops_given());
  sub->add_option("--mixer-tflops", flags.mixer_tflops,
                  "Given compute: achieved attention TFLOP/s per node")
      ->check(tflops_given());
  sub->add_option("--step-overhead", flags.step_overhead, "Given compute: fixed time per step");
}

std::optional<GivenCompute> given_compute(const GivenComputeFlags& flags,
                                          const PredictRequest& request,
                                          const std::optional<CalibrationInput>& calibration) {
  auto compute = compute_given_by_flags(flags, request.model, calibration);
  if (compute && !request.baseline.empty()) {
    throw InputError(
        "prefill compute comes from the --baseline fit; drop --gemm-tflops (or the baseline)",
        predict_flag("--gemm-tflops"));
  }
  return compute;
}

void add_predict_workload_options(CLI::App* sub, PredictWorkloadFlags& flags) {
  sub->add_option("--prompt", flags.prompts, "Prompt scenarios, all arriving at once: 1k,8k,4x16k")
      ->delimiter(',');
  sub->add_option("--trace", flags.trace, "CSV of requests: arrival_s,prompt_tokens,output_tokens");
  sub->add_option("--output", flags.output, "Output tokens per request")->capture_default_str();
  sub->add_option("--baseline", flags.baseline,
                  "CSV of measured TTFT at the first link: single-request rows fit prefill "
                  "compute (columns requests, prompt_tokens_each, ttft_s)");
  sub->add_option("--decode-itl", flags.decode_itl,
                  "Measured inter-token latency at concurrency 1, TP=ITL (e.g. 1=77.97ms)")
      ->delimiter(',');
}

void apply_predict_workload(const PredictWorkloadFlags& flags, PredictRequest& request) {
  if (!flags.baseline.empty()) {
    request.baseline = load_baseline_csv(flags.baseline);
    request.baseline_origin = flags.baseline;
  }
  request.scenarios = predict_scenarios(
      flags.prompts, flags.trace, parse_token_count(flags.output, "--output"), request.baseline);
  if (flags.prompts.empty() && flags.trace.empty() && flags.baseline.empty()) {
    request.notes.push_back(fmt::format("no --prompt, --trace or --baseline: one {}-token prompt",
                                        parse_token_count(kDefaultPredictPrompt, "--prompt")));
  }
}

std::vector<DecodeMeasurement> decode_measurements(const PredictWorkloadFlags& flags,
                                                   const PredictRequest& request) {
  std::vector<DecodeMeasurement> measured;
  measured.reserve(flags.decode_itl.size());
  for (const auto& text : flags.decode_itl) measured.push_back(parse_decode_itl(text));
  if (measured.empty()) {
    if (auto m = baseline_decode_measurement(request.baseline, request.engine.tensor_parallel_size,
                                             flags.baseline)) {
      measured.push_back(std::move(*m));
    }
  }
  return measured;
}

void add_expert_parallel_options(CLI::App* app, ExpertParallelFlags& flags) {
  const std::string engine = "Engine (vLLM names)";
  app->add_option("--data-parallel-size", flags.data_parallel_size,
                  "Data-parallel ranks of --tp nodes each, requests dealt to them round robin; "
                  "above 1 needs --enable-expert-parallel (not validated on Spark)")
      ->check(CLI::Range(1, kMaxEp))
      ->group(engine)
      ->capture_default_str();
  app->add_flag("--enable-expert-parallel", flags.enable_expert_parallel,
                "Spread the routed experts over every rank (TP x DP), each MoE layer's tokens "
                "sent by all-to-all (--all2all-backend)")
      ->group(engine);
}

void apply_expert_parallel(const ExpertParallelFlags& flags, PredictRequest& request) {
  request.data_parallel_size = flags.data_parallel_size;
  request.enable_expert_parallel = flags.enable_expert_parallel;
  if (request.memory && flags.enable_expert_parallel) {
    const int tp = request.engine.tensor_parallel_size;
    request.memory->layout = ParallelLayout{tp, 1, tp * flags.data_parallel_size};
  }
}

}  // namespace tpnet::cli
