#pragma once
/// One rank's side of a collective sweep: a backend that runs bf16
/// collectives of a given size, times them and checks the result. The
/// all-reduce runners are allreduce_mpi.cpp (MPI CPU backend) and
/// allreduce_nccl.cpp (NCCL), the all-to-all runners alltoall_mpi.cpp and
/// alltoall_nccl.cpp.

#include <chrono>
#include <memory>
#include <string>

#include "process_group.hpp"

namespace tpnet::calibrate {

/// `run(warmup)` untimed, then the wall time of `run(iters)` over `iters`:
/// `run(n)` runs n collectives back to back and returns when they are done.
template <typename Run>
double mean_seconds(Run&& run, int warmup, int iters) {
  run(warmup);
  const auto start = std::chrono::steady_clock::now();
  run(iters);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count() / iters;
}

/// This rank's result for one size and placement.
struct RankMeasurement {
  double mean_s = 0.0;  ///< wall time of `iters` back-to-back collectives / iters
  long long wrong = 0;  ///< elements differing from the expected values (0 when unchecked)
};

class SweepRunner {
 public:
  SweepRunner() = default;
  SweepRunner(const SweepRunner&) = delete;
  SweepRunner& operator=(const SweepRunner&) = delete;
  SweepRunner(SweepRunner&&) = delete;
  SweepRunner& operator=(SweepRunner&&) = delete;
  virtual ~SweepRunner() = default;

  /// `warmup` untimed then `iters` timed collectives of `bytes` bytes
  /// (out-of-place: send to receive buffer; in-place: one buffer, asked only
  /// of collectives that times_in_place). With `check`, the received values
  /// are compared with the expected ones: for an all-reduce, the
  /// out-of-place result of the timed runs, and for in-place one more run on
  /// freshly filled data (timed in-place runs reduce zeros, whose sum stays
  /// finite however many ranks and iterations). Errors and timeouts throw
  /// MeasurementError naming the call, the size and the rank.
  virtual RankMeasurement measure(long long bytes, bool in_place, int warmup, int iters,
                                  bool check) = 0;
  /// This rank's `#  Rank ...` header line.
  [[nodiscard]] virtual std::string rank_line() const = 0;
  /// NCCL's version as 2.28.9 and its code (22809), or "none" and 0.
  [[nodiscard]] virtual std::string nccl_version() const { return "none"; }
  [[nodiscard]] virtual int nccl_code() const { return 0; }
  /// The NCCL_ALGO / NCCL_PROTO the communicator was created under, or "auto".
  [[nodiscard]] virtual std::string algo() const { return "auto"; }
  [[nodiscard]] virtual std::string proto() const { return "auto"; }
};

/// Where the runners need the sweep's settings.
struct RunnerSettings {
  long long max_bytes = 0;  ///< buffers are allocated once at this size
  double timeout_s = 60.0;  ///< per collective
  std::string algo;         ///< --algo (NCCL only), empty = leave NCCL_ALGO as it is
  std::string proto;        ///< --proto (NCCL only)
};

#if TPNET_HAVE_MPI
/// The MPI CPU all-reduce: MPI_Iallreduce on bf16 stored as uint16_t with a
/// commutative MPI_Op that adds in float and rounds to nearest even.
std::unique_ptr<SweepRunner> make_mpi_allreduce_runner(ProcessGroup& group,
                                                       const RunnerSettings& settings);
/// The MPI CPU all-to-all: MPI_Ialltoall of bf16 stored as uint16_t.
std::unique_ptr<SweepRunner> make_mpi_alltoall_runner(ProcessGroup& group,
                                                      const RunnerSettings& settings);
#endif
#if TPNET_HAVE_CUDA
/// NCCL all-reduce on one GPU per rank (the local rank's), a non-blocking
/// communicator so a hung collective can be timed out and aborted.
std::unique_ptr<SweepRunner> make_nccl_allreduce_runner(ProcessGroup& group,
                                                        const RunnerSettings& settings);
/// NCCL all-to-all on the same communicator setup: ncclAlltoAll where nccl.h
/// declares it (2.28 on), else a grouped ncclSend/ncclRecv to every peer.
std::unique_ptr<SweepRunner> make_nccl_alltoall_runner(ProcessGroup& group,
                                                       const RunnerSettings& settings);
#endif

}  // namespace tpnet::calibrate
