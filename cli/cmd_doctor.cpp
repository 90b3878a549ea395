// tpnet doctor: reads an nccl-tests all_reduce_perf run, fits the alpha-beta
// model and says whether the bus bandwidth matches the link, naming the
// known bad states (DOMAIN.md s.9) and the settings to check.

#include <fmt/format.h>

#include <memory>

#include "common.hpp"
#include "exit_codes.hpp"
#include "sweep_flags.hpp"
#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/measured/allreduce_fit.hpp"
#include "tpnet/quantity.hpp"

namespace tpnet::cli {
namespace {

struct DoctorOptions {
  std::string nccl_tests;
  std::string link = "200G";
  int ranks = 0;
  std::string min_size;
  std::string max_size;
  bool partial = false;
  std::string format = "table";
};

// Each setting is one sentence split over source lines, not a missing comma.
// NOLINTBEGIN(bugprone-suspicious-missing-comma)
std::vector<std::string> settings_to_check() {
  return {
      "NCCL_IB_HCA lists both RDMA devices of the port (e.g. rocep1s0f0,roceP2p1s0f0): one "
      "gives ~109 Gb/s, both ~196 Gb/s",
      "RoCE v2: NCCL_IB_ROCE_VERSION_NUM=2",
      "NCCL_IB_GID_INDEX is the RoCE v2 GID of the fabric address; look it up in "
      "/sys/class/infiniband/<dev>/ports/1/gid_attrs/types/ on every node (not stable across "
      "nodes)",
      "MTU 9000 on the fabric interfaces and every switch port on the path",
      "NCCL_ALGO=Ring for a sweep the ring formula can be fitted to",
      "a single TCP stream (iperf3, ~12 Gb/s on the Arm cores) says nothing about the fabric; "
      "measure RDMA (ib_write_bw) or NCCL",
  };
}
// NOLINTEND(bugprone-suspicious-missing-comma)

Outcome run_doctor(const DoctorOptions& o) {
  NcclTestsReadOptions read;
  read.allow_truncated = o.partial;
  const AllReduceSweep sweep = load_nccl_tests(o.nccl_tests, read);
  const Link link = parse_link(o.link, InputLocation::for_key("--link"));
  Document doc;
  doc.warnings = sweep.notes;
  const int ranks = sweep_ranks(sweep, o.ranks, o.nccl_tests, doc.warnings);
  const FitRange range = fit_range_from_flags(o.min_size, o.max_size);
  const AllReduceFit fit = fit_allreduce(sweep, ranks, range);
  const BitRate measured = large_size_busbw(sweep);
  BitRate peak(0.0);
  for (const auto& s : sweep.samples) peak = std::max(peak, s.out_of_place.busbw);
  const FabricDiagnosis d = diagnose_bus_bandwidth(measured, link.rate);

  std::vector<Record> curve;
  for (const auto& p : fit.curve) {
    curve.push_back({
        number("size_bytes", "size", p.size.count(), kBytesB, 0),
        number("time_s", "time", p.measured.value(), kMicroseconds, 2),
        number("fitted_time_s", "fitted", p.fitted.value(), kMicroseconds, 2),
        signed_number("relative_error_percent", "error", p.relative_error * 100.0, kPercent, 1),
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
      text("state", "state", std::string(to_string(d.state))),
      text("finding", "finding", d.finding),
      text("advice", "advice", d.advice),
      number("busbw_bps", "bus bandwidth, largest sizes", measured.bits_per_second(), kGbps, 1),
      number("peak_busbw_bps", "peak bus bandwidth", peak.bits_per_second(), kGbps, 1),
      number("expected_busbw_bps", "expected (link rate)", link.rate.bits_per_second(), kGbps, 1),
      number("busbw_share_percent", "share of expected", d.share * 100.0, kPercent, 1),
      record(
          "fit", "alpha-beta fit (ring)",
          {
              number("alpha_s", "alpha (fixed time per all-reduce)", fit.alpha.value(),
                     kMicroseconds, 2),
              number("beta_bps", "beta (rate of bytes sent)", fit.beta.bits_per_second(), kGbps, 1),
              number("step_latency_s", "latency per ring step", fit.step_latency.value(),
                     kMicroseconds, 2),
              integer("steps", "ring steps 2(N-1)", fit.steps),
              number("rms_relative_error_percent", "RMS relative error",
                     fit.rms_relative_error * 100.0, kPercent, 2),
              number("max_relative_error_percent", "largest relative error",
                     fit.max_relative_error * 100.0, kPercent, 2),
              number("min_size_bytes", "smallest size fitted", fit.min_size.count(), kBytesB, 0),
              number("max_size_bytes", "largest size fitted", fit.max_size.count(), kBytesB, 0),
              integer("points", "sizes fitted", fit.points_used),
          }),
      records("curve", "busbw vs size", std::move(curve)),
      texts("checks", "settings to check", settings_to_check()),
  };
  for (const auto& w : fit.warnings) doc.warnings.push_back(w);
  return Outcome{std::move(doc), {}, d.state == FabricState::healthy ? 0 : 1};
}

}  // namespace

Command setup_doctor(CLI::App& app) {
  auto options = std::make_shared<DoctorOptions>();
  CLI::App* sub = app.add_subcommand(
      "doctor",
      "Check the fabric from an nccl-tests all_reduce_perf run (text or -J JSON): alpha-beta "
      "fit, bus bandwidth against the link, known bad states; exit 1 unless healthy");
  sub->add_option("--nccl-tests", options->nccl_tests, "all_reduce_perf output file")->required();
  sub->add_option("--link", options->link, "Link the bus bandwidth should reach")
      ->default_val("200G");
  sub->add_option("--ranks", options->ranks,
                  "Ranks of the run (default: the file's '#  Rank' lines)");
  sub->add_option("--min-size", options->min_size, "Smallest size to fit (default: all)");
  sub->add_option("--max-size", options->max_size, "Largest size to fit (default: all)");
  sub->add_flag("--partial", options->partial,
                "Accept a sweep without its footer (a killed run): its rows are used");
  add_format_option(sub, options->format);
  set_gate_exit_codes(sub, "the fabric is not healthy");
  return Command{sub, [options] { return run_doctor(*options); },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
