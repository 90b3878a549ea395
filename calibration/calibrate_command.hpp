#pragma once
/// One tpnet-calibrate subcommand: its CLI11 app and the function that runs it
/// once parsed. `run` returns the exit code: 0 ok, 4 the measurement failed
/// (or, for `counters -- CMD`, CMD's exit code). Bad input throws
/// tpnet::InputError (exit 2); a failed CUDA/NCCL/MPI call throws
/// MeasurementError (exit 4).

#include <CLI/CLI.hpp>

#include <functional>
#include <stdexcept>

namespace tpnet::calibrate {

struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

/// A measurement that could not be made or gave wrong values: a CUDA, NCCL or
/// MPI call failed (the message names the call and the rank), a collective
/// timed out, a device vanished. tpnet-calibrate exits 4.
class MeasurementError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where a checked CUDA, NCCL or MPI call is, for its error message (nccl-tests'
/// CHECK macros do the same; std::source_location needs clang 15).
struct SourcePlace {
  const char* file;
  int line;
};
#define TPNET_HERE (::tpnet::calibrate::SourcePlace{__FILE__, __LINE__})

/// Exit code of a failed measurement.
inline constexpr int kExitMeasurementFailed = 4;

Subcommand setup_allreduce(CLI::App& parent);  // cmd_allreduce.cpp
Subcommand setup_alltoall(CLI::App& parent);   // cmd_alltoall.cpp
Subcommand setup_counters(CLI::App& parent);   // cmd_counters.cpp
Subcommand setup_gemm(CLI::App& parent);       // cmd_gemm.cpp (CUDA) or cmd_gemm_unavailable.cpp
Subcommand setup_preflight(CLI::App& parent);  // cmd_preflight.cpp

}  // namespace tpnet::calibrate
