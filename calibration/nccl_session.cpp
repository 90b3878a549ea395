// NcclSession (nccl_session.hpp): the GPU, the non-blocking communicator,
// the stream, the buffers and the deadline-polled waits both NCCL backends use.

#include "nccl_session.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "allreduce_sweep.hpp"
#include "source_file_name.hpp"

namespace tpnet::calibrate {
namespace {

using SessionClock = std::chrono::steady_clock;

/// The node-local rank that picks this rank's GPU.
int local_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return std::atoi(value);
  }
  return 0;
}

/// An environment value as one provenance word (no spaces), or "auto".
std::string env_word(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return "auto";
  std::string word = value;
  for (char& c : word) {
    if (c == ' ' || c == '\t') c = '_';
  }
  return word;
}

}  // namespace

NcclSession::NcclSession(ProcessGroup& group, const RunnerSettings& settings)
    : group_(group), timeout_s_(settings.timeout_s) {
  int devices = 0;
  const cudaError_t found = cudaGetDeviceCount(&devices);
  if (found != cudaSuccess || devices == 0) {
    throw MeasurementError(fmt::format("{}: no CUDA device: cudaGetDeviceCount {}", group_.who(),
                                       found != cudaSuccess
                                           ? fmt::format("failed: {}", cudaGetErrorString(found))
                                           : std::string("found 0 devices")));
  }
  device_ = local_rank() % devices;
  cuda_check(cudaSetDevice(device_), "cudaSetDevice", TPNET_HERE);
  cudaDeviceProp properties{};
  cuda_check(cudaGetDeviceProperties(&properties, device_), "cudaGetDeviceProperties", TPNET_HERE);
  device_name_ = properties.name;
  bus_id_ = fmt::format("{:04x}:{:02x}:{:02x}", properties.pciDomainID, properties.pciBusID,
                        properties.pciDeviceID);

  // NCCL reads these when the communicator is created.
  if (!settings.algo.empty()) setenv("NCCL_ALGO", settings.algo.c_str(), 1);
  if (!settings.proto.empty()) setenv("NCCL_PROTO", settings.proto.c_str(), 1);
  algo_ = env_word("NCCL_ALGO");
  proto_ = env_word("NCCL_PROTO");
  nccl_check(ncclGetVersion(&version_), "ncclGetVersion", 0, TPNET_HERE);

  ncclUniqueId id{};
  if (group_.rank() == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId", 0, TPNET_HERE);
  group_.broadcast(&id, static_cast<int>(sizeof id), settings.timeout_s,
                   "MPI broadcast of NCCL's unique id");
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  nccl_call(ncclCommInitRankConfig(&comm_, group_.size(), id, group_.rank(), &config),
            "ncclCommInitRankConfig", 0, TPNET_HERE);

  cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate",
             TPNET_HERE);
  const auto size = static_cast<std::size_t>(settings.max_bytes);
  cuda_check(cudaMalloc(&send_, size), "cudaMalloc", TPNET_HERE);
  cuda_check(cudaMalloc(&receive_, size), "cudaMalloc", TPNET_HERE);
}

NcclSession::~NcclSession() {
  if (comm_ != nullptr) {
    // Flush, then destroy; a communicator that will not finalize is aborted.
    bool finalized = ncclCommFinalize(comm_) == ncclSuccess;
    if (!finalized) {
      const auto deadline = SessionClock::now() + std::chrono::duration<double>(timeout_s_);
      ncclResult_t state = ncclInProgress;
      while (ncclCommGetAsyncError(comm_, &state) == ncclSuccess && state == ncclInProgress &&
             SessionClock::now() < deadline) {
      }
      finalized = state == ncclSuccess;
    }
    if (finalized) {
      ncclCommDestroy(comm_);
    } else {
      ncclCommAbort(comm_);
    }
  }
  for (cudaEvent_t event : events_) cudaEventDestroy(event);
  if (send_ != nullptr) cudaFree(send_);
  if (receive_ != nullptr) cudaFree(receive_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void NcclSession::run(int count, long long bytes, std::string_view call,
                      const std::function<ncclResult_t()>& launch) {
  while (static_cast<int>(events_.size()) < count) {
    cudaEvent_t event = nullptr;
    cuda_check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate",
               TPNET_HERE);
    events_.push_back(event);
  }
  for (int i = 0; i < count; ++i) {
    nccl_call(launch(), call, bytes, TPNET_HERE);
    cuda_check(cudaEventRecord(events_[static_cast<std::size_t>(i)], stream_), "cudaEventRecord",
               TPNET_HERE);
  }
  for (int i = 0; i < count; ++i) {
    wait_event(events_[static_cast<std::size_t>(i)], call, bytes);
  }
}

void NcclSession::wait_stream(std::string_view call, long long bytes) {
  cudaEvent_t event = nullptr;
  cuda_check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate",
             TPNET_HERE);
  const cudaError_t recorded = cudaEventRecord(event, stream_);
  if (recorded == cudaSuccess) {
    try {
      wait_event(event, call, bytes);
    } catch (...) {
      cudaEventDestroy(event);
      throw;
    }
  }
  cudaEventDestroy(event);
  cuda_check(recorded, "cudaEventRecord", TPNET_HERE);
}

/// Polls `event` (and the communicator's async error) until it completes.
void NcclSession::wait_event(cudaEvent_t event, std::string_view call, long long bytes) {
  const auto deadline = SessionClock::now() + std::chrono::duration<double>(timeout_s_);
  for (;;) {
    const cudaError_t state = cudaEventQuery(event);
    if (state == cudaSuccess) return;
    if (state != cudaErrorNotReady) cuda_check(state, call, TPNET_HERE);
    ncclResult_t async = ncclSuccess;
    nccl_check(ncclCommGetAsyncError(comm_, &async), "ncclCommGetAsyncError", bytes, TPNET_HERE);
    if (async != ncclSuccess && async != ncclInProgress) nccl_check(async, call, bytes, TPNET_HERE);
    if (SessionClock::now() > deadline) timed_out(call, bytes);
  }
}

void NcclSession::nccl_call(ncclResult_t rc, std::string_view call, long long bytes,
                            SourcePlace at) {
  if (rc != ncclInProgress) {
    nccl_check(rc, call, bytes, at);
    return;
  }
  const auto deadline = SessionClock::now() + std::chrono::duration<double>(timeout_s_);
  for (;;) {
    ncclResult_t state = ncclInProgress;
    nccl_check(ncclCommGetAsyncError(comm_, &state), "ncclCommGetAsyncError", bytes, at);
    if (state == ncclSuccess) return;
    if (state != ncclInProgress) nccl_check(state, call, bytes, at);
    if (SessionClock::now() > deadline) timed_out(call, bytes);
  }
}

void NcclSession::timed_out(std::string_view call, long long bytes) {
  if (comm_ != nullptr) {
    ncclCommAbort(comm_);
    comm_ = nullptr;
  }
  throw MeasurementError(fmt::format(
      "{}: {} {}timed out after {:g} s (a rank stopped, or the network hangs); communicator "
      "aborted",
      group_.who(), call, bytes > 0 ? fmt::format("of {} B ", bytes) : std::string(), timeout_s_));
}

void NcclSession::nccl_check(ncclResult_t rc, std::string_view call, long long bytes,
                             SourcePlace at) {
  if (rc == ncclSuccess) return;
  const char* last = ncclGetLastError(comm_);
  throw MeasurementError(fmt::format("{}: {} {}failed: {} / {} ({}:{})", group_.who(), call,
                                     bytes > 0 ? fmt::format("of {} B ", bytes) : std::string(),
                                     ncclGetErrorString(rc),
                                     last != nullptr && *last != '\0' ? last : "no further detail",
                                     source_file_name(at.file), at.line));
}

void NcclSession::cuda_check(cudaError_t rc, std::string_view call, SourcePlace at) const {
  if (rc == cudaSuccess) return;
  throw MeasurementError(fmt::format("{}: {} failed: {} ({}:{})", group_.who(), call,
                                     cudaGetErrorString(rc), source_file_name(at.file), at.line));
}

std::string NcclSession::rank_line() const {
  return calibrate::rank_line(group_.rank(), static_cast<long>(getpid()), group_.host(), device_,
                              bus_id_, device_name_);
}

std::string NcclSession::nccl_version() const {
  return fmt::format("{}.{}.{}", version_ / 10000, version_ % 10000 / 100, version_ % 100);
}

}  // namespace tpnet::calibrate
