// tpnet-calibrate allreduce: a sweep of bf16 sum all-reduces over sizes, in
// nccl-tests' all_reduce_perf text layout (calibration/README.md), with NCCL
// on GPUs or MPI on CPUs (the same harness, testable without a GPU).

#include <memory>

#include "calibrate_command.hpp"
#include "sweep_command.hpp"

namespace tpnet::calibrate {

Subcommand setup_allreduce(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "allreduce",
      "Sweep bf16 sum all-reduces over sizes (NCCL on GPUs, or MPI on CPUs) and write nccl-tests' "
      "all_reduce_perf text: time, algbw, busbw, #wrong per size. Launch ranks with mpirun.");
  auto options = std::make_shared<SweepOptions>();
  add_sweep_flags(*app, *options, Collective::all_reduce);
  Subcommand command;
  command.app = app;
  command.run = [options] { return run_sweep(*options, Collective::all_reduce); };
  return command;
}

}  // namespace tpnet::calibrate
