// tpnet predict: what users will see at each link, step by step through vLLM's scheduler.

#include <fmt/format.h>

#include <iterator>
#include <memory>

#include "calibration_flags.hpp"
#include "charts.hpp"
#include "common.hpp"
#include "svg_output.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/baseline_csv.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/io/output_file.hpp"
#include "tpnet/io/trace_csv.hpp"
#include "tpnet/usecase/decode.hpp"
#include "tpnet/usecase/predict.hpp"

namespace tpnet::cli {
namespace {

struct PredictOptions {
  EngineOptions engine;
  std::vector<std::string> links{"200G", "100G"};
  std::vector<std::string> fabrics;
  std::string node = std::string(kDefaultNodeName);
  MemoryOptions memory;
  std::vector<std::string> prompts;
  std::string trace;
  std::string output = std::to_string(kDefaultOutputTokens);
  std::string baseline;
  std::vector<std::string> decode_itl;
  AcceptedTokensFlag accepted_tokens;
  double overlap = 0.0;
  std::string step_overhead;
  double gemm_tflops = 0.0;
  double mixer_tflops = 0.0;
  CalibrationFlags calibration;
  std::string timeline;
  std::string svg;
  std::string traffic;
  std::string requests;
  std::string format = "table";
};

InputLocation flag(const char* name) { return InputLocation::for_key(name); }

/// 0 TFLOP/s given is no rate, not "not given" (the option's unset value).
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
                       : "'" + text + "' is out of range; allowed 0.000001 to 1000000 TFLOP/s";
          },
          "", "TFLOP/s"};
}

TokenCount parse_tokens(const std::string& text, const char* name) {
  const PromptSpec spec = parse_prompt(text, flag(name));
  if (spec.requests != 1) {
    throw InputError("'" + text + "' is a count of tokens, not a mix of requests", flag(name));
  }
  return spec.tokens_each;
}

/// `1=77.97ms`: the TP and the inter-token latency measured there.
DecodeMeasurement parse_decode_itl(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError("'" + text + "' is not TP=ITL (e.g. 1=77.97ms)", flag("--decode-itl"));
  }
  const std::string tp_text = text.substr(0, eq);
  int tp = 0;
  for (const char c : tp_text) {
    if (c < '0' || c > '9' || tp > kMaxTp) {
      throw InputError("'" + tp_text + "' is not a TP size (1 to " + std::to_string(kMaxTp) + ")",
                       flag("--decode-itl"));
    }
    tp = tp * 10 + (c - '0');
  }
  if (tp < 1 || tp > kMaxTp) {
    throw InputError("'" + tp_text + "' is not a TP size (1 to " + std::to_string(kMaxTp) + ")",
                     flag("--decode-itl"));
  }
  return DecodeMeasurement{tp, parse_duration(text.substr(eq + 1), flag("--decode-itl")),
                           "--decode-itl " + text};
}

/// The prompt predict runs when given no --prompt, --trace or --baseline.
constexpr const char* kDefaultPrompt = "8k";

std::vector<PredictScenario> scenarios_from(const PredictOptions& o, TokenCount output,
                                            const std::vector<PrefillScenario>& baseline) {
  std::vector<PredictScenario> out;
  if (!o.trace.empty()) {
    if (!o.prompts.empty()) {
      throw InputError("use either --prompt or --trace, not both", flag("--trace"));
    }
    out.push_back(PredictScenario{o.trace, load_trace_csv(o.trace)});
    return out;
  }
  if (o.prompts.empty() && !baseline.empty()) return scenarios_from_baseline(baseline, output);
  // Nothing asked: the 8K prompt every study starts with, said in a note.
  const std::vector<std::string> asked =
      o.prompts.empty() ? std::vector<std::string>{kDefaultPrompt} : o.prompts;
  std::vector<PrefillScenario> given;
  given.reserve(asked.size());
  for (const auto& text : asked) {
    given.push_back(PrefillScenario{text, parse_prompt(text, flag("--prompt")), {}});
  }
  return scenarios_from_baseline(given, output);
}

std::optional<GivenCompute> given_compute(const PredictOptions& o, const ModelArch& model,
                                          const std::optional<CalibrationInput>& calibration) {
  for (const auto& [value, name] :
       {std::pair{o.gemm_tflops, "--gemm-tflops"}, std::pair{o.mixer_tflops, "--mixer-tflops"}}) {
    if (!(value == 0.0 || (value >= 1e-6 && value <= 1e6))) {
      throw InputError(
          fmt::format("{:g} is out of range; allowed 0.000001 to 1000000 TFLOP/s", value),
          flag(name));
    }
  }
  if (o.gemm_tflops > 0.0) {
    GivenCompute g;
    g.model.seconds_per_gemm_flop = 1.0 / (o.gemm_tflops * 1e12);
    if (o.mixer_tflops > 0.0) g.model.seconds_per_mixer_flop = 1.0 / (o.mixer_tflops * 1e12);
    if (!o.step_overhead.empty()) {
      g.model.per_step = parse_duration(o.step_overhead, flag("--step-overhead"));
    }
    g.source = fmt::format(
        "given: --gemm-tflops {}{}{}", o.gemm_tflops,
        o.mixer_tflops > 0.0 ? fmt::format(" --mixer-tflops {}", o.mixer_tflops) : std::string(),
        o.step_overhead.empty() ? "" : " --step-overhead " + o.step_overhead);
    if (o.mixer_tflops <= 0.0) {
      g.warnings.emplace_back("no --mixer-tflops: token mixing (attention) is not priced");
    }
    return g;
  }
  if (o.mixer_tflops > 0.0 || !o.step_overhead.empty()) {
    throw InputError("needs --gemm-tflops: the GEMM rate is the coefficient every step uses",
                     flag("--gemm-tflops"));
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

/// The --timeline CSV, one row per request and step, written as the steps
/// are priced: its memory is one buffer, whatever the run's length.
class TimelineWriter {
 public:
  TimelineWriter(const std::string& path, const PredictRequest& req)
      : file_(path, "--timeline"), req_(req) {
    buffer_ =
        "scenario,link,step,start_s,end_s,request,prefill_tokens,decode_tokens,context_tokens,"
        "compute_s,communication_s\n";
  }
  void add(const PricedStepEvent& e) {
    const PricedStep& p = e.step;
    for (const StepWork& w : p.step.work) {
      fmt::format_to(std::back_inserter(buffer_),
                     "{},{},{},{:.6f},{:.6f},{},{},{},{},{:.6f},{:.6f}\n",
                     req_.scenarios[e.scenario].name, req_.links[e.link].link.name, e.number,
                     p.step.start_s, p.step.end_s, w.request + 1, w.prefill_tokens, w.decode_tokens,
                     w.context_tokens, p.compute.value(), p.communication.value());
    }
    if (buffer_.size() >= kFlushBytes) flush();
  }
  void commit() {
    flush();
    file_.commit();
  }

 private:
  static constexpr std::size_t kFlushBytes = 1 << 20;
  void flush() {
    file_.write(buffer_);
    buffer_.clear();
  }
  AtomicFile file_;
  const PredictRequest& req_;
  std::string buffer_;
};

Outcome run_predict(const PredictOptions& o) {
  for (const auto* path : {&o.timeline, &o.traffic, &o.requests}) {
    if (!path->empty()) {
      check_output_path(*path, path == &o.timeline  ? "--timeline"
                               : path == &o.traffic ? "--traffic"
                                                    : "--requests");
    }
  }
  check_svg_path(o.svg);
  if (!o.requests.empty() && o.traffic.empty()) {
    throw InputError("writes the request timings that go with --traffic; give --traffic too",
                     flag("--requests"));
  }
  PredictRequest req;
  req.model = load_model(o.engine);
  req.engine = to_engine(o.engine);
  const NodeSpec node = load_node(o.node);
  req.memory_bandwidth = node.memory_bandwidth;
  req.expected = node.expected;
  req.memory = MemoryRequest{ParallelLayout{req.engine.tensor_parallel_size, 1, 1}, req.engine,
                             node, to_memory_settings(o.memory)};
  const auto calibration = load_calibration(o.calibration);
  if (o.links.empty()) throw InputError("give at least one link", flag("--links"));
  std::vector<Link> links;
  for (const auto& text : o.links) links.push_back(to_link(text, "--links", o.engine));
  req.links = with_fabrics(o.fabrics, links, node.name, calibration);
  const TokenCount output = parse_tokens(o.output, "--output");
  if (!o.baseline.empty()) {
    req.baseline = load_baseline_csv(o.baseline);
    req.baseline_origin = o.baseline;
  }
  req.scenarios = scenarios_from(o, output, req.baseline);
  if (o.prompts.empty() && o.trace.empty() && o.baseline.empty()) {
    req.notes.push_back(fmt::format("no --prompt, --trace or --baseline: one {}-token prompt",
                                    parse_tokens(kDefaultPrompt, flag("--prompt"))));
  }
  req.compute = given_compute(o, req.model, calibration);
  if (req.compute && !req.baseline.empty()) {
    throw InputError(
        "prefill compute comes from the --baseline fit; drop --gemm-tflops (or the "
        "baseline)",
        flag("--gemm-tflops"));
  }
  for (const auto& text : o.decode_itl) req.decode_measurements.push_back(parse_decode_itl(text));
  if (req.decode_measurements.empty()) {
    if (auto m = baseline_decode_measurement(req.baseline, req.engine.tensor_parallel_size,
                                             o.baseline)) {
      req.decode_measurements.push_back(std::move(*m));
    }
  }
  req.accepted_tokens = o.accepted_tokens.given();
  req.overlap = o.overlap;
  req.keep_steps = !o.traffic.empty();  // --traffic samples the first run's steps
  if (!o.svg.empty()) req.spans_of_requests = kPredictChartRows;
  std::unique_ptr<TimelineWriter> timeline;
  if (!o.timeline.empty()) {
    timeline = std::make_unique<TimelineWriter>(o.timeline, req);
    req.step_sink = [&timeline](const PricedStepEvent& e) { timeline->add(e); };
  }
  const PredictReport r = tpnet::run_predict(req);

  Document doc = predict_document(req, r);

  write_svg(o.svg, predict_figure(r), doc);
  if (timeline) {
    timeline->commit();
    doc.fields.push_back(text("timeline", "timeline written to", o.timeline));
  }
  if (!o.traffic.empty()) {
    const PredictLink& run = r.scenarios.front().links.front();
    const CounterSeries series = predicted_counters(run, Seconds::milliseconds(1.0), req.overlap);
    write_file_atomically(o.traffic, counters_csv_text(series), "--traffic");
    doc.fields.push_back(
        text("traffic", "traffic written to",
             fmt::format("{} ({} at {})", o.traffic, r.scenarios.front().name, run.link.name)));
    if (!o.requests.empty()) {
      std::vector<RequestTiming> timings;
      for (std::size_t i = 0; i < run.schedule.requests.size(); ++i) {
        const RequestTimeline& t = run.schedule.requests[i];
        timings.push_back(RequestTiming{fmt::format("r{}", i + 1), Seconds(t.arrival_s),
                                        Seconds(t.first_token_s), Seconds(t.finished_s)});
      }
      write_file_atomically(o.requests, requests_csv_text(timings), "--requests");
      doc.fields.push_back(text("requests_file", "request timings written to", o.requests));
    }
  }
  return Outcome{std::move(doc), {}, 0};
}

}  // namespace

Command setup_predict(CLI::App& app) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* sub = app.add_subcommand(
      "predict",
      "Predict TTFT and decode speed at each link: vLLM's scheduler simulated step by step");
  add_engine_options(sub, o->engine);
  sub->add_option("--links", o->links, "Links to predict at, the baseline's first")
      ->delimiter(',')
      ->default_str("200G,100G");
  sub->add_option("--fabric", o->fabrics,
                  "Fabric profile: auto (the node's measured profile of each link preset), "
                  "nominal, a built-in name, or a calibration.yaml; one, or one per link")
      ->delimiter(',');
  add_node_option(sub, o->node);
  add_memory_options(sub, o->memory);
  sub->add_option("--prompt", o->prompts, "Prompt scenarios, all arriving at once: 1k,8k,4x16k")
      ->delimiter(',');
  sub->add_option("--trace", o->trace, "CSV of requests: arrival_s,prompt_tokens,output_tokens");
  sub->add_option("--output", o->output, "Output tokens per request")
      ->default_str(std::to_string(kDefaultOutputTokens));
  sub->add_option("--baseline", o->baseline,
                  "CSV of measured TTFT at the first link: single-request rows fit prefill "
                  "compute (columns requests, prompt_tokens_each, ttft_s)");
  sub->add_option("--decode-itl", o->decode_itl,
                  "Measured inter-token latency at concurrency 1, TP=ITL (e.g. 1=77.97ms)")
      ->delimiter(',');
  add_accepted_tokens_option(
      sub, o->accepted_tokens,
      "Output tokens a decode forward yields per request (1 to 1 + drafts; default 1 + drafts)");
  sub->add_option("--overlap", o->overlap,
                  "Share of communication hidden under compute, 0 to below 1")
      ->default_str("0");
  sub->add_option("--gemm-tflops", o->gemm_tflops,
                  "Given compute: achieved GEMM TFLOP/s per node (instead of a baseline)")
      ->check(tflops_given());
  sub->add_option("--mixer-tflops", o->mixer_tflops,
                  "Given compute: achieved attention TFLOP/s per node")
      ->check(tflops_given());
  sub->add_option("--step-overhead", o->step_overhead, "Given compute: fixed time per step");
  add_calibration_options(sub, o->calibration);
  sub->add_option("--timeline", o->timeline, "Write every step to this CSV")
      ->check(output_path_given());
  sub->add_option("--traffic", o->traffic,
                  "Write one node's predicted RDMA counters at 1 ms (tpnet traffic --samples)")
      ->check(output_path_given());
  sub->add_option("--requests", o->requests,
                  "With --traffic: write the request timings (tpnet traffic --requests)")
      ->check(output_path_given());
  add_svg_option(sub, o->svg,
                 "each request's steps (waiting, prefill, decode, first token) at each link");
  add_format_option(sub, o->format);
  return Command{sub, [o] { return run_predict(*o); },
                 std::shared_ptr<const std::string>(o, &o->format)};
}

}  // namespace tpnet::cli
