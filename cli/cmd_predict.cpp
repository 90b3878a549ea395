// tpnet predict: what users will see at each link, step by step through vLLM's scheduler.

#include <fmt/format.h>

#include <memory>

#include "calibration_flags.hpp"
#include "charts.hpp"
#include "common.hpp"
#include "predict_inputs.hpp"
#include "svg_output.hpp"
#include "tpnet/io/baseline_csv.hpp"
#include "tpnet/io/output_file.hpp"
#include "tpnet/usecase/decode.hpp"
#include "tpnet/usecase/predict.hpp"

namespace tpnet::cli {
namespace {

struct PredictOptions {
  PredictRequest request;  ///< the fields a flag sets as they are (--overlap)
  EngineOptions engine;
  ExpertParallelFlags expert_parallel;
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
  GivenComputeFlags compute;
  DisaggregationFlags disaggregation;
  CalibrationFlags calibration;
  std::string timeline;
  std::string svg;
  std::string traffic;
  std::string requests;
  bool sources = false;
  std::string format = "table";
};

Outcome run_predict(const PredictOptions& o, bool wide) {
  for (const auto& [path, name] :
       {std::pair{&o.timeline, "--timeline"}, std::pair{&o.traffic, "--traffic"},
        std::pair{&o.requests, "--requests"}}) {
    if (!path->empty()) check_output_path(*path, name);
  }
  check_svg_path(o.svg);
  if (!o.requests.empty() && o.traffic.empty()) {
    throw InputError("writes the request timings that go with --traffic; give --traffic too",
                     InputLocation::for_key("--requests"));
  }
  PredictRequest req = o.request;
  req.model = load_model(o.engine);
  req.engine = to_engine(o.engine);
  const NodeSpec node = load_node(o.node);
  req.memory_bandwidth = node.memory_bandwidth;
  req.expected = node.expected;
  req.memory = MemoryRequest{ParallelLayout{req.engine.tensor_parallel_size, 1, 1}, req.engine,
                             node, to_memory_settings(o.memory)};
  apply_expert_parallel(o.expert_parallel, req);
  const auto calibration = load_calibration(o.calibration);
  if (o.links.empty())
    throw InputError("give at least one link", InputLocation::for_key("--links"));
  std::vector<Link> links;
  for (const auto& text : o.links) links.push_back(to_link(text, "--links"));
  req.links =
      with_fabrics(o.fabrics, links, to_collective_settings(o.engine), node.name, calibration);
  if (!o.baseline.empty()) {
    req.baseline = load_baseline_csv(o.baseline);
    req.baseline_origin = o.baseline;
  }
  req.scenarios =
      predict_scenarios(o.prompts, o.trace, parse_token_count(o.output, "--output"), req.baseline);
  if (o.prompts.empty() && o.trace.empty() && o.baseline.empty()) {
    req.notes.push_back(fmt::format("no --prompt, --trace or --baseline: one {}-token prompt",
                                    parse_token_count(kDefaultPredictPrompt, "--prompt")));
  }
  req.compute = given_compute(o.compute, req.model, calibration);
  if (req.compute && !req.baseline.empty()) {
    throw InputError(
        "prefill compute comes from the --baseline fit; drop --gemm-tflops (or the baseline)",
        InputLocation::for_key("--gemm-tflops"));
  }
  for (const auto& text : o.decode_itl) req.decode_measurements.push_back(parse_decode_itl(text));
  if (req.decode_measurements.empty()) {
    if (auto m = baseline_decode_measurement(req.baseline, req.engine.tensor_parallel_size,
                                             o.baseline)) {
      req.decode_measurements.push_back(std::move(*m));
    }
  }
  req.accepted_tokens = o.accepted_tokens.given();
  req.disaggregation = disaggregation_layout(o.disaggregation, req.engine.tensor_parallel_size);
  req.keep_steps = !o.traffic.empty();  // --traffic samples the first run's steps
  if (!o.svg.empty()) req.spans_of_requests = kPredictChartRows;
  std::unique_ptr<TimelineWriter> timeline;
  if (!o.timeline.empty()) {
    timeline = std::make_unique<TimelineWriter>(o.timeline, req);
    req.step_sink = [&timeline](const PricedStepEvent& e) { timeline->add(e); };
  }
  const PredictReport r = tpnet::run_predict(req);
  Document doc = predict_document(req, r, o.sources || wide);
  write_svg(o.svg, predict_figure(r), doc);
  if (timeline) {
    timeline->commit();
    doc.fields.push_back(text("timeline", "timeline written to", o.timeline));
  }
  if (!o.traffic.empty()) write_predicted_traffic(r, req.overlap, o.traffic, o.requests, doc);
  return Outcome{std::move(doc), {}, 0};
}

}  // namespace

Command setup_predict(CLI::App& app) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* sub = app.add_subcommand(
      "predict",
      "Predict TTFT and decode speed at each link: vLLM's scheduler simulated step by step");
  add_engine_options(sub, o->engine);
  add_expert_parallel_options(sub, o->expert_parallel);
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
  sub->add_option("--output", o->output, "Output tokens per request")->capture_default_str();
  sub->add_option("--baseline", o->baseline,
                  "CSV of measured TTFT at the first link: single-request rows fit prefill "
                  "compute (columns requests, prompt_tokens_each, ttft_s)");
  sub->add_option("--decode-itl", o->decode_itl,
                  "Measured inter-token latency at concurrency 1, TP=ITL (e.g. 1=77.97ms)")
      ->delimiter(',');
  add_accepted_tokens_option(
      sub, o->accepted_tokens,
      "Output tokens a decode forward yields per request (1 to 1 + drafts; default 1 + drafts)");
  sub->add_option("--overlap", o->request.overlap,
                  "Share of communication hidden under compute, 0 to below 1")
      ->capture_default_str();
  sub->add_option("--gemm-tflops", o->compute.gemm_tflops,
                  "Given compute: achieved GEMM TFLOP/s per node (instead of a baseline)")
      ->check(tflops_given());
  sub->add_option("--mixer-tflops", o->compute.mixer_tflops,
                  "Given compute: achieved attention TFLOP/s per node")
      ->check(tflops_given());
  sub->add_option("--step-overhead", o->compute.step_overhead,
                  "Given compute: fixed time per step");
  add_calibration_options(sub, o->calibration);
  add_disaggregation_options(sub, o->disaggregation);
  sub->add_option("--timeline", o->timeline, "Write every step to this CSV")
      ->check(output_path_given());
  sub->add_option("--traffic", o->traffic,
                  "Write one node's predicted RDMA counters at 1 ms (tpnet traffic --samples)")
      ->check(output_path_given());
  sub->add_option("--requests", o->requests,
                  "With --traffic: write the request timings (tpnet traffic --requests)")
      ->check(output_path_given());
  sub->add_flag("--sources", o->sources,
                "Tables and Markdown: where each fabric profile's numbers come from (JSON always "
                "has them; --wide shows them too)");
  add_svg_option(sub, o->svg,
                 "each request's steps (waiting, prefill, decode, first token) at each link");
  add_format_option(sub, o->format);
  return Command{sub, [o, sub] { return run_predict(*o, wide_requested(*sub)); },
                 std::shared_ptr<const std::string>(o, &o->format)};
}

}  // namespace tpnet::cli
