#include "predict_inputs.hpp"

#include <fmt/format.h>

#include <exception>
#include <iterator>
#include <utility>

#include "common.hpp"
#include "integer_flags.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/io/trace_csv.hpp"

namespace tpnet::cli {
namespace {

InputLocation predict_flag(const char* name) { return InputLocation::for_key(name); }

/// The timeline's buffer is written out past this many bytes.
constexpr std::size_t kTimelineFlushBytes = std::size_t{1} << 20;

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

std::optional<GivenCompute> given_compute(const GivenComputeFlags& flags, const ModelArch& model,
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

TimelineWriter::TimelineWriter(const std::string& path, const PredictRequest& request)
    : file_(path, "--timeline"),
      request_(request),
      buffer_(
          "scenario,link,step,start_s,end_s,request,prefill_tokens,decode_tokens,context_tokens,"
          "compute_s,communication_s\n") {}

void TimelineWriter::add(const PricedStepEvent& event) {
  const PricedStep& p = event.step;
  for (const StepWork& w : p.step.work) {
    fmt::format_to(std::back_inserter(buffer_),
                   "{},{},{},{:.6f},{:.6f},{},{},{},{},{:.6f},{:.6f}\n",
                   request_.scenarios[event.scenario].name, request_.links[event.link].link.name,
                   event.number, p.step.start_s, p.step.end_s, w.request + 1, w.prefill_tokens,
                   w.decode_tokens, w.context_tokens, p.compute.value(), p.communication.value());
  }
  if (buffer_.size() >= kTimelineFlushBytes) flush();
}

void TimelineWriter::commit() {
  flush();
  file_.commit();
}

void TimelineWriter::flush() {
  file_.write(buffer_);
  buffer_.clear();
}

void write_predicted_traffic(const PredictReport& report, double overlap,
                             const std::string& traffic, const std::string& requests,
                             Document& doc) {
  const PredictLink& run = report.scenarios.front().links.front();
  const CounterSeries series = predicted_counters(run, Seconds::milliseconds(1.0), overlap);
  write_file_atomically(traffic, counters_csv_text(series), "--traffic");
  doc.fields.push_back(
      text("traffic", "traffic written to",
           fmt::format("{} ({} at {})", traffic, report.scenarios.front().name, run.link.name)));
  if (requests.empty()) return;
  std::vector<RequestTiming> timings;
  timings.reserve(run.schedule.requests.size());
  for (std::size_t i = 0; i < run.schedule.requests.size(); ++i) {
    const RequestTimeline& t = run.schedule.requests[i];
    timings.push_back(RequestTiming{fmt::format("r{}", i + 1), Seconds(t.arrival_s),
                                    Seconds(t.first_token_s), Seconds(t.finished_s)});
  }
  write_file_atomically(requests, requests_csv_text(timings), "--requests");
  doc.fields.push_back(text("requests_file", "request timings written to", requests));
}

}  // namespace tpnet::cli
