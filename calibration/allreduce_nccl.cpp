// The NCCL all-reduce backend: one GPU per rank, bf16 sum, on the shared
// NcclSession (nccl_session.hpp: the non-blocking communicator, the deadline-
// polled waits). The buffers are filled on the host and copied, so no
// kernels of our own.

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdint>
#include <vector>

#include "allreduce_sweep.hpp"
#include "nccl_session.hpp"
#include "sweep_runner.hpp"

namespace tpnet::calibrate {
namespace {

class NcclAllReduceRunner final : public SweepRunner {
 public:
  NcclAllReduceRunner(ProcessGroup& group, const RunnerSettings& settings)
      : session_(group, settings) {
    const auto size = static_cast<std::size_t>(settings.max_bytes);
    std::vector<std::uint16_t> pattern(size / kBf16Bytes);
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      pattern[i] = float_to_bf16(
          static_cast<float>(pattern_value(group.rank(), group.size(), static_cast<long long>(i))));
    }
    session_.cuda_check(cudaMemcpy(session_.send(), pattern.data(), size, cudaMemcpyHostToDevice),
                        "cudaMemcpy", TPNET_HERE);
    for (int i = 0; i < pattern_period(group.size()); ++i) {
      expected_.push_back(float_to_bf16(static_cast<float>(expected_sum(group.size(), i))));
    }
  }

  RankMeasurement measure(long long bytes, bool in_place, int warmup, int iters,
                          bool check) override {
    const auto size = static_cast<std::size_t>(bytes);
    // Zeros: in-place runs keep reducing them; out-of-place must overwrite them.
    session_.cuda_check(cudaMemsetAsync(session_.receive(), 0, size, session_.stream()),
                        "cudaMemsetAsync", TPNET_HERE);
    session_.wait_stream("cudaMemsetAsync", bytes);
    RankMeasurement result;
    result.mean_s = mean_seconds([&](int runs) { run(bytes, in_place, runs); }, warmup, iters);
    if (check) {
      if (in_place) {
        session_.cuda_check(cudaMemcpyAsync(session_.receive(), session_.send(), size,
                                            cudaMemcpyDeviceToDevice, session_.stream()),
                            "cudaMemcpyAsync", TPNET_HERE);
        run(bytes, true, 1);
      }
      std::vector<std::uint16_t> host(size / kBf16Bytes);
      session_.cuda_check(cudaMemcpyAsync(host.data(), session_.receive(), size,
                                          cudaMemcpyDeviceToHost, session_.stream()),
                          "cudaMemcpyAsync", TPNET_HERE);
      session_.wait_stream("cudaMemcpyAsync", bytes);
      const std::size_t period = expected_.size();
      for (std::size_t i = 0; i < host.size(); ++i) {
        if (host[i] != expected_[i % period]) ++result.wrong;
      }
    }
    return result;
  }

  [[nodiscard]] std::string rank_line() const override { return session_.rank_line(); }
  [[nodiscard]] std::string nccl_version() const override { return session_.nccl_version(); }
  [[nodiscard]] int nccl_code() const override { return session_.nccl_code(); }
  [[nodiscard]] std::string algo() const override { return session_.algo(); }
  [[nodiscard]] std::string proto() const override { return session_.proto(); }

 private:
  /// `count` all-reduces back to back, each waited for within the timeout.
  void run(long long bytes, bool in_place, int count) {
    const void* source = in_place ? session_.receive() : session_.send();
    const auto elements = static_cast<std::size_t>(bytes / kBf16Bytes);
    session_.run(count, bytes, "ncclAllReduce", [&] {
      return ncclAllReduce(source, session_.receive(), elements, ncclBfloat16, ncclSum,
                           session_.comm(), session_.stream());
    });
  }

  NcclSession session_;
  std::vector<std::uint16_t> expected_;
};

}  // namespace

std::unique_ptr<SweepRunner> make_nccl_allreduce_runner(ProcessGroup& group,
                                                        const RunnerSettings& settings) {
  return std::make_unique<NcclAllReduceRunner>(group, settings);
}

}  // namespace tpnet::calibrate
