// The NCCL all-to-all backend: one GPU per rank, on the shared NcclSession
// (nccl_session.hpp: the non-blocking communicator, the deadline-polled
// waits). ncclAlltoAll where nccl.h declares it (NCCL 2.28 on); before that,
// what nccl-tests' alltoall_perf runs: ncclSend and ncclRecv to every peer
// inside one ncclGroupStart/End. The blocks are filled on the host and copied
// up, the received ones copied back and checked.

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdint>
#include <vector>

#include "allreduce_sweep.hpp"
#include "alltoall_sweep.hpp"
#include "nccl_session.hpp"
#include "sweep_runner.hpp"

namespace tpnet::calibrate {
namespace {

class NcclAlltoAllRunner final : public SweepRunner {
 public:
  NcclAlltoAllRunner(ProcessGroup& group, const RunnerSettings& settings)
      : group_(group), session_(group, settings) {}

  RankMeasurement measure(long long bytes, bool /*in_place*/, int warmup, int iters,
                          bool check) override {
    const int ranks = group_.size();
    const long long block = bytes / kBf16Bytes / ranks;
    const auto size = static_cast<std::size_t>(bytes);
    // The blocks move with the size: each size sends its own pattern, into a
    // receive buffer of -1s (never a pattern value).
    const std::vector<std::uint16_t> send = alltoall_send_buffer(group_.rank(), ranks, block);
    session_.cuda_check(cudaMemcpyAsync(session_.send(), send.data(), size, cudaMemcpyHostToDevice,
                                        session_.stream()),
                        "cudaMemcpyAsync", TPNET_HERE);
    const std::vector<std::uint16_t> unset(size / kBf16Bytes, kAlltoAllUnset);
    session_.cuda_check(cudaMemcpyAsync(session_.receive(), unset.data(), size,
                                        cudaMemcpyHostToDevice, session_.stream()),
                        "cudaMemcpyAsync", TPNET_HERE);
    session_.wait_stream("cudaMemcpyAsync", bytes);
    RankMeasurement result;
    result.mean_s = mean_seconds([&](int runs) { run(bytes, block, runs); }, warmup, iters);
    if (check) {
      std::vector<std::uint16_t> host(size / kBf16Bytes);
      session_.cuda_check(cudaMemcpyAsync(host.data(), session_.receive(), size,
                                          cudaMemcpyDeviceToHost, session_.stream()),
                          "cudaMemcpyAsync", TPNET_HERE);
      session_.wait_stream("cudaMemcpyAsync", bytes);
      result.wrong = alltoall_wrong_elements(host.data(), group_.rank(), ranks, block);
    }
    return result;
  }

  [[nodiscard]] std::string rank_line() const override { return session_.rank_line(); }
  [[nodiscard]] std::string nccl_version() const override { return session_.nccl_version(); }
  [[nodiscard]] int nccl_code() const override { return session_.nccl_code(); }
  [[nodiscard]] std::string algo() const override { return session_.algo(); }
  [[nodiscard]] std::string proto() const override { return session_.proto(); }

 private:
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  static constexpr const char* kCall = "ncclAlltoAll";
#else
  static constexpr const char* kCall = "ncclGroupEnd of ncclSend/ncclRecv to every peer";
#endif

  /// `count` all-to-alls back to back, each waited for within the timeout.
  void run(long long bytes, long long block, int count) {
    const auto elements = static_cast<std::size_t>(block);
    session_.run(count, bytes, kCall, [&] {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
      return ncclAlltoAll(session_.send(), session_.receive(), elements, ncclBfloat16,
                          session_.comm(), session_.stream());
#else
      const std::size_t offset = elements * static_cast<std::size_t>(kBf16Bytes);
      const ncclResult_t started = ncclGroupStart();
      if (started != ncclSuccess) return started;
      for (int peer = 0; peer < group_.size(); ++peer) {
        const auto at = offset * static_cast<std::size_t>(peer);
        ncclSend(static_cast<const char*>(session_.send()) + at, elements, ncclBfloat16, peer,
                 session_.comm(), session_.stream());
        ncclRecv(static_cast<char*>(session_.receive()) + at, elements, ncclBfloat16, peer,
                 session_.comm(), session_.stream());
      }
      // A failed send or receive inside the group is reported by ncclGroupEnd.
      return ncclGroupEnd();
#endif
    });
  }

  ProcessGroup& group_;
  NcclSession session_;
};

}  // namespace

std::unique_ptr<SweepRunner> make_nccl_alltoall_runner(ProcessGroup& group,
                                                       const RunnerSettings& settings) {
  return std::make_unique<NcclAlltoAllRunner>(group, settings);
}

}  // namespace tpnet::calibrate
