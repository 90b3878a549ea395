#pragma once
/// One rank's side of the all-reduce sweep: a backend that runs bf16 sum
/// all-reduces of a given size, times them and checks the result.
/// allreduce_mpi.cpp (MPI CPU backend) and allreduce_nccl.cpp (NCCL) implement it.

#include <memory>
#include <string>

#include "process_group.hpp"

namespace tpnet::calibrate {

/// This rank's result for one size and placement.
struct RankMeasurement {
  double mean_s = 0.0;  ///< wall time of `iters` back-to-back all-reduces / iters
  long long wrong = 0;  ///< elements differing from the expected sum (0 when unchecked)
};

class AllReduceRunner {
 public:
  AllReduceRunner() = default;
  AllReduceRunner(const AllReduceRunner&) = delete;
  AllReduceRunner& operator=(const AllReduceRunner&) = delete;
  AllReduceRunner(AllReduceRunner&&) = delete;
  AllReduceRunner& operator=(AllReduceRunner&&) = delete;
  virtual ~AllReduceRunner() = default;

  /// `warmup` untimed then `iters` timed all-reduces of `bytes` bytes
  /// (out-of-place: send to receive buffer; in-place: one buffer). With
  /// `check`, the reduced values are compared with the expected sum: the
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
/// The MPI CPU backend: MPI_Iallreduce on bf16 stored as uint16_t with a
/// commutative MPI_Op that adds in float and rounds to nearest even.
std::unique_ptr<AllReduceRunner> make_mpi_runner(ProcessGroup& group,
                                                 const RunnerSettings& settings);
#endif
#if TPNET_HAVE_CUDA
/// NCCL on one GPU per rank (the local rank's), a non-blocking communicator
/// so a hung collective can be timed out and aborted.
std::unique_ptr<AllReduceRunner> make_nccl_runner(ProcessGroup& group,
                                                  const RunnerSettings& settings);
#endif

}  // namespace tpnet::calibrate
