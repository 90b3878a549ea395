// calibration.yaml (`tpnet calibration` writes it, `--calibration` reads it)
// through parse_calibration_yaml; what parses must write back and parse to
// the same text, and the calibrated all-reduce times must be finite.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "tpnet/io/calibration_yaml.hpp"
#include "tpnet/measured/calibration.hpp"

namespace {

using namespace tpnet;
using namespace tpnet::fuzz;

void check_allreduce(const AllReduceCalibration& c) {
  within(c.ranks, 2.0, 1e6, "ranks");
  positive(c.link_rate, "link_rate");
  finite(c.alpha.value(), "alpha");
  positive(c.beta, "beta");
  finite(c.step_latency.value(), "step_latency");
  non_negative(c.rms_relative_error, "rms_relative_error");
  non_negative(c.max_relative_error, "max_relative_error");
  non_negative(c.min_size, "min_size");
  non_negative(c.max_size, "max_size");
  for (std::size_t k = 0; k < c.curve.size(); ++k) {
    positive(c.curve[k].size, "curve size");
    positive(c.curve[k].time, "curve time");
    if (k > 0 && !(c.curve[k].size > c.curve[k - 1].size)) violated("curve sizes not increasing");
  }
  contract(Origin::any, [&] {
    positive(calibrated_rate(c, BitRate::gigabits_per_second(100.0)), "calibrated_rate");
    for (const double bytes : {1.0, 1e3, 1e6, 1e9}) {
      non_negative(measured_allreduce_time(c, Bytes(bytes)), "measured_allreduce_time");
      for (const int ranks : {2, 8}) {
        non_negative(
            calibrated_allreduce_time(c, Bytes(bytes), ranks, BitRate::gigabits_per_second(100.0)),
            "calibrated_allreduce_time");
      }
    }
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string origin = "fuzz/calibration.yaml";
  contract(Origin::file, [&] {
    const Calibration c = parse_calibration_yaml(text_of(data, size), origin);
    if (c.allreduce) check_allreduce(*c.allreduce);
    if (c.compute) {
      positive(c.compute->forward_time, "forward_time");
      positive(c.compute->per_prompt_token, "per_prompt_token");
    }
    if (c.traffic) {
      non_negative(c.traffic->xmit_bytes, "xmit_bytes");
      non_negative(c.traffic->measured_per_token, "measured_per_token");
      non_negative(c.traffic->formula_per_token, "formula_per_token");
      non_negative(c.traffic->ratio, "ratio");
    }
    // What the file says, written and read again, reads the same.
    const std::string written = write_calibration_yaml(c);
    Calibration again;
    try {
      again = parse_calibration_yaml(written, origin);
    } catch (const std::exception& e) {
      violated("write_calibration_yaml wrote what it cannot read", written + "\n" + e.what());
    }
    if (write_calibration_yaml(again) != written) {
      violated("calibration changed in a write/read round trip", written);
    }
  });
  return 0;
}
