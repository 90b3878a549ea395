#pragma once
/// One rank's NCCL setup for a collective sweep, shared by the all-reduce and
/// all-to-all backends: the GPU (the node-local rank's), a non-blocking
/// communicator whose unique id goes through the process group, one stream,
/// send and receive buffers of the sweep's largest size, and the checked,
/// deadline-polled waits. Host C++ only: no kernels of our own.
///
/// The communicator is non-blocking (config.blocking = 0): every NCCL call may
/// return ncclInProgress and is then polled with ncclCommGetAsyncError, and the
/// stream is polled through one event per collective, each against a deadline,
/// so a hung collective ends in ncclCommAbort and a message naming the call,
/// the size and the rank instead of a hang.

#include <cuda_runtime.h>
#include <nccl.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "calibrate_command.hpp"
#include "process_group.hpp"
#include "sweep_runner.hpp"

namespace tpnet::calibrate {

class NcclSession {
 public:
  NcclSession(ProcessGroup& group, const RunnerSettings& settings);
  NcclSession(const NcclSession&) = delete;
  NcclSession& operator=(const NcclSession&) = delete;
  NcclSession(NcclSession&&) = delete;
  NcclSession& operator=(NcclSession&&) = delete;
  /// Finalizes and destroys the communicator, or aborts one that will not finalize.
  ~NcclSession();

  /// `count` collectives, each queued by `launch` on stream() and followed by
  /// an event, then waited for in order, each within the timeout. `call`
  /// names the collective in errors (ncclAllReduce of 1024 B ...).
  void run(int count, long long bytes, std::string_view call,
           const std::function<ncclResult_t()>& launch);
  /// Waits for everything queued on stream() so far.
  void wait_stream(std::string_view call, long long bytes);
  /// A call of the non-blocking communicator: ncclInProgress is polled to the end.
  void nccl_call(ncclResult_t rc, std::string_view call, long long bytes, SourcePlace at);
  void cuda_check(cudaError_t rc, std::string_view call, SourcePlace at) const;

  [[nodiscard]] ncclComm_t comm() const { return comm_; }
  [[nodiscard]] cudaStream_t stream() const { return stream_; }
  /// Device buffers of the sweep's largest size.
  [[nodiscard]] void* send() const { return send_; }
  [[nodiscard]] void* receive() const { return receive_; }

  [[nodiscard]] std::string rank_line() const;
  [[nodiscard]] std::string nccl_version() const;
  [[nodiscard]] int nccl_code() const { return version_; }
  [[nodiscard]] std::string algo() const { return algo_; }
  [[nodiscard]] std::string proto() const { return proto_; }

 private:
  void wait_event(cudaEvent_t event, std::string_view call, long long bytes);
  [[noreturn]] void timed_out(std::string_view call, long long bytes);
  void nccl_check(ncclResult_t rc, std::string_view call, long long bytes, SourcePlace at);

  ProcessGroup& group_;
  double timeout_s_;
  int device_ = 0;
  std::string device_name_;
  std::string bus_id_;
  std::string algo_ = "auto";
  std::string proto_ = "auto";
  int version_ = 0;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  void* send_ = nullptr;
  void* receive_ = nullptr;
  std::vector<cudaEvent_t> events_;
};

}  // namespace tpnet::calibrate
