// tpnet calibration: distils measured runs into one calibration.yaml: the
// all-reduce sweep's fit and curve, compute per prompt token from timed
// GEMMs, and measured bytes per prompt token from RDMA counters
// (docs/calibration.md).

#include <memory>

#include "calibration_inputs.hpp"
#include "common.hpp"
#include "sweep_flags.hpp"
#include "tpnet/io/calibration_yaml.hpp"
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
  std::string alltoall;
  std::string link = "200G";
  SweepReadFlags sweep;
  bool force = false;
  std::string gemm;
  CounterFlags counters;
  std::vector<std::string> env;
  CalibrationBuildRequest provenance;  ///< date, hosts and note, bound to their flags
  std::string out;
  std::string format = "table";
  CLI::Option* format_option = nullptr;
};

Outcome run_calibration(const CalibrationOptions& o) {
  if (o.nccl_tests.empty() && o.alltoall.empty() && o.gemm.empty() && o.counters.counters.empty()) {
    throw InputError(
        "give at least one measurement: --nccl-tests FILE (an all-reduce sweep), --alltoall "
        "FILE (an all-to-all sweep), --gemm FILE (timed GEMMs) or --counters FILE (RDMA "
        "counters)",
        InputLocation::for_key("--nccl-tests"));
  }
  if (o.out.empty() && o.format_option != nullptr && o.format_option->count() > 0) {
    throw InputError("needs --out FILE: without it stdout carries the calibration YAML",
                     InputLocation::for_key("--format"));
  }
  if (o.sweep.partial && o.nccl_tests.empty()) {
    throw InputError("applies to --nccl-tests FILE, which is not given",
                     InputLocation::for_key("--partial"));
  }
  if (!o.counters.requests.empty() && o.counters.counters.empty()) {
    throw InputError("splits --counters FILE, which is not given",
                     InputLocation::for_key("--requests"));
  }
  // A target that cannot be replaced is refused before the inputs are read.
  if (!o.out.empty()) check_output_path(o.out, "--out");
  CalibrationBuildRequest request = o.provenance;
  if (!o.nccl_tests.empty()) {
    request.allreduce = SweepInput{load_nccl_tests(o.nccl_tests, o.sweep.read_options()),
                                   parse_link(o.link, InputLocation::for_key("--link")),
                                   o.sweep.given_ranks(), o.sweep.range(), o.force};
  }
  if (!o.alltoall.empty()) {
    NcclTestsReadOptions read;
    read.collective = Collective::alltoall;
    request.alltoall = SweepInput{load_nccl_tests(o.alltoall, read),
                                  parse_link(o.link, InputLocation::for_key("--link")),
                                  std::nullopt,
                                  {},
                                  o.force};
  }
  if (!o.gemm.empty()) {
    GemmInput gemm{load_gemm_csv(o.gemm), std::nullopt};
    if (!o.counters.engine.model.empty()) {
      gemm.model_name = resolve_model(o.counters.engine.model).name;
    }
    request.compute = std::move(gemm);
  }
  request.traffic = read_counter_input(o.counters);
  record_env(o.env, request);
  const CalibrationBuildReport built = build_calibration(request);
  const std::string yaml_text = write_calibration_yaml(built.calibration);
  // What is written must read back: a failure here is a bug, not bad input.
  (void)parse_calibration_yaml(yaml_text, "the calibration written");

  if (o.out.empty()) {
    return Outcome{calibration_build_document(built),
                   [yaml_text](std::ostream& os) {
                     os << yaml_text;
                     return 0;
                   },
                   0};
  }
  write_file_atomically(o.out, yaml_text, "--out");
  return Outcome{calibration_build_document(built, o.out), {}, 0};
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
  sub->add_option("--alltoall", options->alltoall,
                  "alltoall_perf output or a tpnet-calibrate alltoall sweep (EP's dispatch and "
                  "combine)")
      ->group(sweep);
  sub->add_option("--link", options->link, "Link the sweep ran on (preset or rate)")
      ->capture_default_str()
      ->group(sweep);
  sub->add_flag("--force", options->force,
                "Write the fit even when its RMS relative error is above 10%")
      ->group(sweep);
  add_sweep_read_flags(sub, options->sweep, sweep);
  const std::string compute = "Compute";
  sub->add_option("--gemm", options->gemm, "GEMM timings CSV from tpnet-calibrate gemm")
      ->group(compute);
  add_counter_flags(sub, options->counters);
  add_provenance_flags(sub, options->provenance, options->env);
  sub->add_option("-o,--out", options->out,
                  "Write calibration.yaml here (atomically) and print a summary; default: the "
                  "YAML on stdout");
  add_format_option(sub, options->format);
  options->format_option = sub->get_option("--format");
  return Command{sub, [options] { return run_calibration(*options); },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
