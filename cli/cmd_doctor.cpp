// tpnet doctor: reads an nccl-tests run of any collective, fits the alpha-beta
// model and says whether the bus bandwidth matches the link, naming the
// known bad states (docs/background.md s.9) and the settings to check.

#include <fmt/format.h>

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
  int ranks = 0;
  const CLI::Option* ranks_flag = nullptr;  ///< given at all: --ranks 0 is refused, not unset
  std::string min_size;
  std::string max_size;
  bool partial = false;
  std::string collective;
  std::string format = "table";
};

Outcome run_doctor(const DoctorOptions& o) {
  NcclTestsReadOptions read;
  read.allow_truncated = o.partial;
  read.collective = collective_from_flag(o.collective);
  DoctorRequest request;
  request.sweep = load_nccl_tests(o.nccl_tests, read);
  request.link = parse_link(o.link, InputLocation::for_key("--link"));
  request.node = builtin_node(kDefaultNodeName);
  request.fabric = to_fabric(o.fabric, request.link, std::string(kDefaultNodeName));
  request.ranks = given_ranks(o.ranks, o.ranks_flag);
  request.range = fit_range_from_flags(o.min_size, o.max_size);
  const DoctorReport r = tpnet::run_doctor(request);
  const AllReduceFit& fit = r.fit;
  const FabricDiagnosis& d = r.diagnosis;
  const int ranks = r.ranks;
  const AllReduceSweep& sweep = request.sweep;
  const Link& link = request.link;
  Document doc;
  doc.csv = CsvLayout::sections;  // the headline answer is scalars; its lists follow
  doc.warnings = r.warnings;

  std::vector<Record> curve;
  for (const auto& p : fit.curve) {
    curve.push_back({
        number("size_bytes", "size", p.size.count(), kBytesB, 0),
        number("time_s", "time", p.measured.value(), kMicroseconds, 2),
        number("fitted_time_s", "fitted", p.fitted.value(), kMicroseconds, 2),
        signed_number("relative_error_pct", "error", p.relative_error * 100.0, kPercent, 1),
        number("algbw_bps", "algbw", p.algbw.bits_per_second(), kGbps, 2),
        number("busbw_bps", "busbw", p.busbw.bits_per_second(), kGbps, 2),
        flag("in_fit", "fitted", p.in_range),
    });
  }
  doc.title =
      fmt::format("tpnet doctor: {} ({} ranks{}) against {}", o.nccl_tests, ranks,
                  sweep.nccl_version.empty() ? "" : ", NCCL " + sweep.nccl_version, link.name);
  doc.fields = {
      text("source", "file", o.nccl_tests),
      integer("ranks", "ranks", ranks),
      text("nccl_version", "NCCL version", sweep.nccl_version),
      text("collective", "collective", std::string(to_string(sweep.collective))),
      text("collective_from", "collective told by", sweep.collective_from),
      integer("ranks_per_node", "ranks per node (0 = not said)", r.ranks_per_node),
      text("gpu", "GPU", sweep.gpu),
      text("network", "NCCL transport (NCCL INFO 'Using network')", sweep.network),
      text("state", "state", std::string(to_string(d.state))),
      text("finding", "finding", d.finding),
      text("advice", "advice", d.advice),
      number("busbw_bps", "bus bandwidth, largest sizes", r.busbw.bits_per_second(), kGbps, 1),
      number("peak_busbw_bps", "peak bus bandwidth", r.peak_busbw.bits_per_second(), kGbps, 1),
      number("expected_busbw_bps", "expected (what a healthy node reaches)",
             r.healthy_busbw.bits_per_second(), kGbps, 1),
      text("expected_from", "expected from", r.healthy_from),
      number("busbw_share_pct", "share of expected", d.share * 100.0, kPercent, 1),
      number("link_share_pct", "share of the link rate",
             r.busbw.bits_per_second() / link.rate.bits_per_second() * 100.0, kPercent, 1),
      number("reachable_share_pct", "share a healthy link shows at the largest size",
             r.reachable_share * 100.0, kPercent, 1),
      flag("bandwidth_judged", "bandwidth judged (sizes large enough)", r.bandwidth_judged),
      number("small_latency_s", "slowest small all-reduce (0 = not judged)",
             r.small_latency.value(), kMicroseconds, 2),
      number("healthy_latency_max_s", "slowest healthy small all-reduce (0 = not used)",
             r.healthy_latency_max.value(), kMicroseconds, 2),
      record(
          "fit", "alpha-beta fit (ring)",
          {
              number("alpha_s", "alpha (fixed time per call)", fit.alpha.value(), kMicroseconds, 2),
              number("beta_bps", "beta (rate of bytes sent)", fit.beta.bits_per_second(), kGbps, 1),
              number("step_latency_s", "latency per ring step", fit.step_latency.value(),
                     kMicroseconds, 2),
              integer("steps", "ring steps", fit.steps),
              number("rms_relative_error_pct", "RMS relative error", fit.rms_relative_error * 100.0,
                     kPercent, 2),
              number("max_relative_error_pct", "largest relative error",
                     fit.max_relative_error * 100.0, kPercent, 2),
              number("min_size_bytes", "smallest size fitted", fit.min_size.count(), kBytesB, 0),
              number("max_size_bytes", "largest size fitted", fit.max_size.count(), kBytesB, 0),
              integer("points", "sizes fitted", fit.points_used),
              flag("fitted", "fitted (2 or more sizes)", r.fitted),
              flag("constrained", "alpha held at 0", fit.constrained),
              flag("poor", "poor fit (RMS above 10%)", fit.poor),
          }),
      records("curve", "busbw vs size", std::move(curve)),
      texts("checks", "settings to check", r.checks),
  };
  return Outcome{std::move(doc), {}, r.gate_failed() ? 1 : 0};
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
  options->ranks_flag = sub->add_option("--ranks", options->ranks,
                                        "Ranks of the run (default: the file's '#  Rank' lines)");
  sub->add_option("--min-size", options->min_size, "Smallest size to fit (default: all)");
  sub->add_option("--max-size", options->max_size, "Largest size to fit (default: all)");
  sub->add_flag("--partial", options->partial,
                "Accept a sweep without its footer (a killed run): its rows are used");
  add_collective_option(sub, options->collective);
  add_format_option(sub, options->format);
  set_gate_exit_codes(sub, "the fabric is not healthy");
  return Command{sub, [options] { return run_doctor(*options); },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
