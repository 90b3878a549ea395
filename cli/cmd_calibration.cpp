// tpnet calibration: distils measured runs into one calibration.yaml: the
// all-reduce sweep's fit and curve, compute per prompt token from timed
// GEMMs, and measured bytes per prompt token from RDMA counters
// (docs/calibration.md).

#include <fmt/format.h>

#include <memory>

#include "common.hpp"
#include "integer_flags.hpp"
#include "sweep_flags.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/calibration_yaml.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/io/gemm_csv.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/io/output_file.hpp"
#include "tpnet/usecase/calibration_build.hpp"

namespace tpnet::cli {
namespace {

struct CalibrationOptions {
  std::string nccl_tests;
  int ranks = 0;
  const CLI::Option* ranks_flag = nullptr;  ///< given at all: --ranks 0 is refused, not unset
  std::string link = "200G";
  std::string min_size;
  std::string max_size;
  bool partial = false;
  bool force = false;
  std::string collective;
  std::string gemm;
  std::string counters;
  std::string requests;
  std::string prompt_tokens;
  std::string model;
  int tp = 0;
  int activation_bytes = 2;
  int allreduces_per_layer = -1;  ///< -1: not given, from the layer plan
  int extra_allreduces = 1;
  std::vector<std::string> hosts;
  std::vector<std::string> env;
  std::string note;
  std::string date;
  std::string out;
  std::string format = "table";
  CLI::Option* format_option = nullptr;
};

Outcome run_calibration(const CalibrationOptions& o) {
  if (o.nccl_tests.empty() && o.gemm.empty() && o.counters.empty()) {
    throw InputError(
        "give at least one measurement: --nccl-tests FILE (an all-reduce sweep), "
        "--gemm FILE (timed GEMMs) or --counters FILE (RDMA counters)",
        InputLocation::for_key("--nccl-tests"));
  }
  if (o.out.empty() && o.format_option != nullptr && o.format_option->count() > 0) {
    throw InputError("needs --out FILE: without it stdout carries the calibration YAML",
                     InputLocation::for_key("--format"));
  }
  if (o.partial && o.nccl_tests.empty()) {
    throw InputError("applies to --nccl-tests FILE, which is not given",
                     InputLocation::for_key("--partial"));
  }
  if (!o.requests.empty() && o.counters.empty()) {
    throw InputError("splits --counters FILE, which is not given",
                     InputLocation::for_key("--requests"));
  }
  // A target that cannot be replaced is refused before the inputs are read.
  if (!o.out.empty()) check_output_path(o.out, "--out");
  CalibrationBuildRequest request;
  if (!o.nccl_tests.empty()) {
    NcclTestsReadOptions read;
    read.allow_truncated = o.partial;
    read.collective = collective_from_flag(o.collective);
    request.allreduce = SweepInput{
        load_nccl_tests(o.nccl_tests, read), parse_link(o.link, InputLocation::for_key("--link")),
        given_ranks(o.ranks, o.ranks_flag), fit_range_from_flags(o.min_size, o.max_size), o.force};
  }
  if (!o.gemm.empty()) {
    GemmInput gemm{load_gemm_csv(o.gemm), std::nullopt};
    if (!o.model.empty()) gemm.model_name = resolve_model(o.model).name;
    request.compute = std::move(gemm);
  }
  if (!o.counters.empty()) {
    if (o.model.empty() || o.tp == 0 || o.prompt_tokens.empty()) {
      throw InputError(
          "needs --model, --tp and --prompt-tokens: the bytes per prompt token are "
          "compared with that model's formula",
          InputLocation::for_key("--counters"));
    }
    CounterInput traffic;
    traffic.model = resolve_model(o.model);
    EngineOptions engine_options;
    engine_options.model = o.model;
    engine_options.tp = o.tp;
    engine_options.activation_bytes = o.activation_bytes;
    engine_options.allreduces_per_layer = o.allreduces_per_layer;
    engine_options.extra_allreduces = o.extra_allreduces;
    traffic.engine = to_engine(engine_options);
    traffic.prompt_tokens =
        parse_tokens(o.prompt_tokens, InputLocation::for_key("--prompt-tokens"));
    traffic.counters = load_counters_csv(o.counters);
    traffic.source = o.counters;
    if (!o.requests.empty()) traffic.requests = load_requests_csv(o.requests);
    request.traffic = std::move(traffic);
  }
  for (const auto& entry : o.env) {
    const auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError(fmt::format("'{}' is not NAME=VALUE", entry),
                       InputLocation::for_key("--env"));
    }
    request.env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  request.date = o.date;
  request.hosts = o.hosts;
  request.note = o.note;
  request.tool = "tpnet calibration";
  // The run's date is the log's (tpnet-calibrate writes it); when the log
  // does not say, it is not known, and today's date would be a guess.
  request.fallback_date = "unknown";
  const CalibrationBuildReport built = build_calibration(request);
  Document doc = calibration_build_document(built);
  const std::string yaml_text = write_calibration_yaml(built.calibration);
  // What is written must read back: a failure here is a bug, not bad input.
  (void)parse_calibration_yaml(yaml_text, "the calibration written");

  if (o.out.empty()) {
    Outcome outcome;
    outcome.doc = std::move(doc);
    outcome.write = [yaml_text](std::ostream& os) {
      os << yaml_text;
      return 0;
    };
    return outcome;
  }
  write_file_atomically(o.out, yaml_text, "--out");
  doc.title = fmt::format("tpnet calibration: wrote {}", o.out);
  doc.fields.insert(doc.fields.begin(), text("out", "written to", o.out));
  return Outcome{std::move(doc), {}, 0};
}

}  // namespace

Command setup_calibration(CLI::App& app) {
  auto options = std::make_shared<CalibrationOptions>();
  CLI::App* sub = app.add_subcommand(
      "calibration",
      "Fit measured runs (all-reduce sweep, GEMM timings, RDMA counters) into one "
      "calibration.yaml for --calibration");
  const std::string sweep = "All-reduce sweep";
  sub->add_option("--nccl-tests", options->nccl_tests,
                  "all_reduce_perf output or a tpnet-calibrate allreduce sweep (NCCL_ALGO=Ring)")
      ->group(sweep);
  options->ranks_flag = sub->add_option("--ranks", options->ranks,
                                        "Ranks of the sweep (default: the file's '#  Rank' lines)")
                            ->group(sweep);
  sub->add_option("--link", options->link, "Link the sweep ran on (preset or rate)")
      ->default_str("200G")
      ->group(sweep);
  sub->add_option("--min-size", options->min_size, "Smallest size to fit (default: all)")
      ->group(sweep);
  sub->add_option("--max-size", options->max_size, "Largest size to fit (default: all)")
      ->group(sweep);
  sub->add_flag("--partial", options->partial,
                "Accept a sweep without its footer (a killed run): its rows are used")
      ->group(sweep);
  sub->add_flag("--force", options->force,
                "Write the fit even when its RMS relative error is above 10%")
      ->group(sweep);
  add_collective_option(sub, options->collective);
  const std::string compute = "Compute";
  sub->add_option("--gemm", options->gemm, "GEMM timings CSV from tpnet-calibrate gemm")
      ->group(compute);
  const std::string traffic = "Traffic";
  sub->add_option("--counters", options->counters,
                  "RDMA counter CSV of one node (tpnet-calibrate counters)")
      ->group(traffic);
  sub->add_option("--requests", options->requests,
                  "Request timings CSV: count only the prefill share of the traffic")
      ->group(traffic);
  sub->add_option("--prompt-tokens", options->prompt_tokens,
                  "Prompt tokens prefilled while the counters ran (e.g. 8k)")
      ->group(traffic);
  sub->add_option("-m,--model", options->model, "Model the counters ran (for the formula)")
      ->group(traffic);
  sub->add_option("--tp,--tensor-parallel-size", options->tp, "Its tensor-parallel size")
      ->group(traffic);
  sub->add_option("--activation-bytes", options->activation_bytes,
                  "Bytes per activation value (2 = BF16)")
      ->default_val(2)
      ->group(traffic);
  sub->add_option("--allreduces-per-layer", options->allreduces_per_layer,
                  "All-reduces per layer (default: one per block of the layer plan)")
      ->check(whole_number_in(0, kMaxAllreducesPerLayer))
      ->group(traffic);
  sub->add_option("--extra-allreduces", options->extra_allreduces,
                  "All-reduces per forward outside the layers")
      ->default_val(1)
      ->group(traffic);
  const std::string provenance = "Provenance";
  sub->add_option("--hosts", options->hosts,
                  "Hosts measured, e.g. spark-1,spark-2 (default: from the sweep)")
      ->delimiter(',')
      ->group(provenance);
  sub->add_option("--env", options->env, "A setting of the run to record, NAME=VALUE (repeatable)")
      ->group(provenance);
  sub->add_option("--note", options->note, "Free text recorded with the provenance")
      ->group(provenance);
  sub->add_option("--date", options->date,
                  "When it was measured, ISO 8601 (default: the sweep's, else now)")
      ->group(provenance);
  sub->add_option("-o,--out", options->out,
                  "Write calibration.yaml here (atomically) and print a summary; default: the "
                  "YAML on stdout");
  add_format_option(sub, options->format);
  options->format_option = sub->get_option("--format");
  return Command{sub, [options] { return run_calibration(*options); },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
