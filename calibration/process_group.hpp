#pragma once
/// The processes that take part in one all-reduce sweep: an MPI world when
/// tpnet-calibrate runs under mpirun (built with MPI), else this process
/// alone. The group launches nothing itself; it carries the rank, the host,
/// the small collectives the sweep needs (broadcast of the NCCL id, the
/// rank-max of timings, the sum of wrong counts) and how to stop every rank.

#include <memory>
#include <string>
#include <vector>

#include "calibrate_command.hpp"

namespace tpnet::calibrate {

class ProcessGroup {
 public:
  ProcessGroup() = default;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;
  ProcessGroup(ProcessGroup&&) = delete;
  ProcessGroup& operator=(ProcessGroup&&) = delete;
  virtual ~ProcessGroup() = default;

  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  [[nodiscard]] virtual const std::string& host() const = 0;
  /// "rank 3 (spark-4)": how every error message names where it happened.
  [[nodiscard]] std::string who() const;

  /// The maximum of `value` over ranks; a rank that does not join within
  /// `timeout_s` is a MeasurementError naming `what`.
  virtual double max_over_ranks(double value, double timeout_s, const std::string& what) = 0;
  /// The sum of `value` over ranks, with the same deadline.
  virtual long long sum_over_ranks(long long value, double timeout_s, const std::string& what) = 0;
  /// Copies rank 0's `bytes` bytes at `data` to every rank; a rank that does
  /// not join within `timeout_s` is a MeasurementError naming `what`.
  virtual void broadcast(void* data, int bytes, double timeout_s, const std::string& what) = 0;
  /// Every rank's `text` (any length) on rank 0, in rank order; empty on the
  /// other ranks. The same deadline.
  virtual std::vector<std::string> gather(const std::string& text, double timeout_s,
                                          const std::string& what) = 0;
  /// Stops the measurement on every rank after `error` on this one: prints it
  /// (one line naming rank and host) and exits with kExitMeasurementFailed
  /// (MPI_Abort). A group of one process rethrows it for main() to report.
  [[noreturn]] virtual void fail(const MeasurementError& error) = 0;
};

/// gethostname(), or "unknown-host".
std::string this_host();

/// This process alone: rank 0 of 1.
std::unique_ptr<ProcessGroup> make_single_process_group();

#if TPNET_HAVE_MPI
/// MPI_COMM_WORLD; calls MPI_Init now and MPI_Finalize when destroyed.
/// MPI errors are returned, not fatal, so each is reported as a MeasurementError.
std::unique_ptr<ProcessGroup> make_mpi_group();
#endif

}  // namespace tpnet::calibrate
