// nccl-tests all_reduce_perf output (text and -J JSON) through
// parse_nccl_tests, then the alpha-beta fit and the fabric diagnosis
// `tpnet doctor` makes of it.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/measured/allreduce_fit.hpp"

namespace {

using namespace tpnet;
using namespace tpnet::fuzz;

void check_timing(const AllReduceTiming& t) {
  positive(t.time, "time");
  non_negative(t.algbw, "algbw");
  non_negative(t.busbw, "busbw");
  if (t.wrong && *t.wrong != 0.0) violated("a nonzero #wrong accepted");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  contract(Origin::file, [&] {
    const AllReduceSweep sweep = parse_nccl_tests(text_of(data, size), "fuzz/all_reduce.txt");
    within(sweep.ranks, 0.0, 1e6, "ranks");
    for (const auto& s : sweep.samples) {
      positive(s.size, "size");
      non_negative(static_cast<double>(s.count), "count");
      check_timing(s.out_of_place);
      if (s.in_place) check_timing(*s.in_place);
      if (s.source.file.empty() || s.source.line < 1) violated("a sample from nowhere");
    }
    for (const int ranks : {sweep.ranks, 8}) {
      if (ranks < 2) continue;
      contract(Origin::any, [&] {
        const AllReduceFit fit = fit_allreduce(sweep, ranks);
        positive(fit.sent_factor, "sent_factor");
        positive(fit.min_size, "min_size");
        positive(fit.max_size, "max_size");
        within(fit.points_used, 2.0, 1e9, "points_used");
        finite(fit.alpha.value(), "alpha");  // may come out negative on noisy data
        positive(fit.beta, "beta");
        finite(fit.step_latency.value(), "step_latency");
        non_negative(fit.rms_relative_error, "rms_relative_error");
        non_negative(fit.max_relative_error, "max_relative_error");
        for (const auto& p : fit.curve) {
          positive(p.measured, "curve measured");
          finite(p.fitted.value(), "curve fitted");
          finite(p.relative_error, "curve relative_error");
          non_negative(p.algbw, "curve algbw");
          non_negative(p.busbw, "curve busbw");
        }
      });
    }
    const BitRate busbw = large_size_busbw(sweep);
    non_negative(busbw, "large_size_busbw");
    contract(Origin::any, [&] {
      // The node's faults and a measured healthy rate, as doctor judges a Spark log.
      static const FabricHardware spark{builtin_node("dgx-spark").bus_bandwidth_faults, "", "",
                                        BitRate::gigabits_per_second(168.0), "fuzz"};
      const FabricDiagnosis d =
          diagnose_bus_bandwidth(busbw, BitRate::gigabits_per_second(200.0), spark);
      non_negative(d.share, "share");
      if (d.finding.empty()) violated("a diagnosis without a finding");
    });
  });
  return 0;
}
