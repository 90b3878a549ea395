// tpnet doctor: reads an nccl-tests run of any collective, fits the alpha-beta
// model and says whether the bus bandwidth matches the link, naming the
// known bad states (docs/background.md s.9) and the settings to check.

#include <memory>

#include "common.hpp"
#include "exit_codes.hpp"
#include "sweep_flags.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/usecase/doctor.hpp"

namespace tpnet::cli {
namespace {

struct DoctorOptions {
  std::string nccl_tests;
  std::string link = "200G";
  std::string fabric = "auto";
  SweepReadFlags sweep;
  std::string format = "table";
};

Outcome run_doctor(const DoctorOptions& o) {
  DoctorRequest request;
  request.sweep = load_nccl_tests(o.nccl_tests, o.sweep.read_options());
  request.link = parse_link(o.link, InputLocation::for_key("--link"));
  request.node = builtin_node(kDefaultNodeName);
  request.fabric =
      to_fabric(o.fabric, request.link, CollectiveSettings{}, std::string(kDefaultNodeName));
  request.ranks = o.sweep.given_ranks();
  request.range = o.sweep.range();
  const DoctorReport r = tpnet::run_doctor(request);
  return Outcome{doctor_document(request, r), {}, r.gate_failed() ? 1 : 0};
}

}  // namespace

Command setup_doctor(CLI::App& app) {
  auto options = std::make_shared<DoctorOptions>();
  CLI::App* sub = app.add_subcommand(
      "doctor",
      "Check the fabric from an nccl-tests run of any collective (text or -J JSON): alpha-beta "
      "fit, bus bandwidth against the link, known bad states; exit 1 when it is slower than the "
      "link");
  sub->add_option("--nccl-tests", options->nccl_tests,
                  "nccl-tests output file (all_reduce_perf, all_gather_perf, ...)")
      ->required();
  sub->add_option("--link", options->link, "Link the run crossed")->default_val("200G");
  sub->add_option("--fabric", options->fabric,
                  "What a healthy run reaches, by size: auto (the node's measured profile of the "
                  "link through a switch), a built-in profile (dgx-spark-200g-direct for a "
                  "direct cable), a calibration.yaml, or nominal (the link rate)")
      ->default_str("auto");
  add_sweep_read_flags(sub, options->sweep, "Options");
  add_format_option(sub, options->format);
  set_gate_exit_codes(sub, "the fabric is not healthy");
  return Command{sub, [options] { return run_doctor(*options); },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
