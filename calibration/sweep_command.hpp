#pragma once
/// What `tpnet-calibrate allreduce` and `tpnet-calibrate alltoall` share: the
/// flags, their checks, the process group, the sweep over sizes, the
/// timeout discipline and the nccl-tests text written by rank 0
/// (calibration/README.md). Each command adds its flags and runs its collective.

#include <CLI/CLI.hpp>

#include <string>

#include "tpnet/traffic/collective.hpp"

namespace tpnet::calibrate {

struct SweepOptions {
  std::string backend = "nccl";
  std::string min_bytes = "8";
  std::string max_bytes = "512MiB";
  double factor = 2.0;
  int warmup = 5;
  int iters = 20;
  bool check = true;
  std::string timeout = "60s";
  std::string algo;
  std::string proto;
  std::string out;
  int stall_rank = -1;  ///< test-only: this rank stops before stall_after
  std::string stall_after;
};

/// The sweep's flags on `app` (--backend, -b/-e/-f, --warmup, --iters,
/// --check, --timeout, --algo, --proto, --out and the hidden --stall-*),
/// their help naming `collective`'s runs.
void add_sweep_flags(CLI::App& app, SweepOptions& options, Collective collective);

/// Checks the options (tpnet::InputError naming the flag), joins the process
/// group, runs the sweep of `collective` (all_reduce or alltoall) and writes
/// it from rank 0. Returns 0, or kExitMeasurementFailed when an element was
/// wrong; a failed call or a timeout stops every rank (ProcessGroup::fail).
int run_sweep(const SweepOptions& options, Collective collective);

}  // namespace tpnet::calibrate
