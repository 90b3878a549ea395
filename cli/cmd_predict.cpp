// tpnet predict: what users will see at each link, step by step through vLLM's scheduler.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <string>
#include <vector>

#include "calibration_flags.hpp"
#include "common.hpp"
#include "predict_files.hpp"
#include "predict_inputs.hpp"
#include "svg_output.hpp"
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
  PredictWorkloadFlags workload;
  AcceptedTokensFlag accepted_tokens;
  GivenComputeFlags compute;
  DisaggregationFlags disaggregation;
  CalibrationFlags calibration;
  PredictFileFlags files;
  bool sources = false;
  std::string format = "table";
};

Outcome run_predict(const PredictOptions& o, bool wide) {
  PredictFiles files(o.files);
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
  const std::vector<Link> links = to_links(o.links, "--links");
  req.links =
      with_fabrics(o.fabrics, links, to_collective_settings(o.engine), node.name, calibration);
  apply_predict_workload(o.workload, req);
  req.compute = given_compute(o.compute, req, calibration);
  req.decode_measurements = decode_measurements(o.workload, req);
  req.accepted_tokens = o.accepted_tokens.given();
  req.disaggregation = disaggregation_layout(o.disaggregation, req.engine.tensor_parallel_size);
  files.prepare(req);
  const PredictReport r = tpnet::run_predict(req);
  Document doc = predict_document(req, r, o.sources || wide);
  files.write(req, r, doc);
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
      ->default_str(fmt::format("{}", fmt::join(o->links, ",")));
  sub->add_option("--fabric", o->fabrics,
                  "Fabric profile: auto (the node's measured profile of each link preset), "
                  "nominal, a built-in name, or a calibration.yaml; one, or one per link")
      ->delimiter(',');
  add_node_option(sub, o->node);
  add_memory_options(sub, o->memory);
  add_predict_workload_options(sub, o->workload);
  add_accepted_tokens_option(
      sub, o->accepted_tokens,
      "Output tokens a decode forward yields per request (1 to 1 + drafts; default 1 + drafts)");
  sub->add_option("--overlap", o->request.overlap,
                  "Share of communication hidden under compute, 0 to below 1")
      ->capture_default_str();
  add_given_compute_options(sub, o->compute);
  add_calibration_options(sub, o->calibration);
  add_disaggregation_options(sub, o->disaggregation);
  add_predict_file_options(sub, o->files);
  sub->add_flag("--sources", o->sources,
                "Tables and Markdown: where each fabric profile's numbers come from (JSON always "
                "has them; --wide shows them too)");
  add_svg_option(sub, o->files.svg,
                 "each request's steps (waiting, prefill, decode, first token) at each link");
  add_format_option(sub, o->format);
  return Command{sub, [o, sub] { return run_predict(*o, wide_requested(*sub)); },
                 std::shared_ptr<const std::string>(o, &o->format)};
}

}  // namespace tpnet::cli
