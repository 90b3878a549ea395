// Concurrency sweeps in the study's CSV through parse_sweep_csv, then the
// capacity analysis (C_max, users, fleet, TP scaling) of them.

#include <cstddef>
#include <cstdint>

#include "fuzz_capacity.hpp"
#include "fuzz_check.hpp"
#include "tpnet/io/sweep_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpnet;
  using namespace tpnet::fuzz;
  contract(Origin::file, [&] {
    const SweepSet set = parse_sweep_csv(text_of(data, size), "fuzz/sweep.csv");
    check_sweeps(set);
    analyze_sweeps(set);
  });
  return 0;
}
