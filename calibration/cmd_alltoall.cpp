// tpnet-calibrate alltoall: a sweep of bf16 all-to-alls over sizes, in
// nccl-tests' alltoall_perf text layout (calibration/README.md), with NCCL on
// GPUs or MPI on CPUs: the expert-parallel dispatch and combine of
// docs/formulas.md s.31, measured (s.31.1).

#include <memory>

#include "calibrate_command.hpp"
#include "sweep_command.hpp"

namespace tpnet::calibrate {

Subcommand setup_alltoall(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "alltoall",
      "Sweep bf16 all-to-alls over sizes (NCCL on GPUs, or MPI on CPUs) and write nccl-tests' "
      "alltoall_perf text: time, algbw, busbw, #wrong per size, size = the bytes each rank sends "
      "in all. Launch ranks with mpirun.");
  auto options = std::make_shared<SweepOptions>();
  add_sweep_flags(*app, *options, Collective::alltoall);
  Subcommand command;
  command.app = app;
  command.run = [options] { return run_sweep(*options, Collective::alltoall); };
  return command;
}

}  // namespace tpnet::calibrate
