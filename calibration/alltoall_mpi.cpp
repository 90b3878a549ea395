// The MPI CPU all-to-all backend: MPI_Ialltoall of bf16 stored as uint16_t,
// every rank's block to every peer tagged with (source, destination, index)
// and checked on arrival, so CI tests the all-to-all harness without a GPU.
// Every collective is polled against the deadline (mpi_calls.hpp).

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "allreduce_sweep.hpp"
#include "alltoall_sweep.hpp"
#include "mpi_calls.hpp"
#include "sweep_runner.hpp"

namespace tpnet::calibrate {
namespace {

class MpiAlltoAllRunner final : public SweepRunner {
 public:
  MpiAlltoAllRunner(ProcessGroup& group, const RunnerSettings& settings)
      : group_(group), timeout_s_(settings.timeout_s) {
    receive_.resize(static_cast<std::size_t>(settings.max_bytes / kBf16Bytes));
  }

  RankMeasurement measure(long long bytes, bool /*in_place*/, int warmup, int iters,
                          bool check) override {
    const int ranks = group_.size();
    const long long block = bytes / kBf16Bytes / ranks;
    const std::string what = fmt::format("MPI_Ialltoall of {} B", bytes);
    // The blocks move with the size: each size sends its own pattern.
    send_ = alltoall_send_buffer(group_.rank(), ranks, block);
    std::fill_n(receive_.begin(), block * ranks, kAlltoAllUnset);
    auto once = [&] {
      MPI_Request request = MPI_REQUEST_NULL;
      mpi_check(MPI_Ialltoall(send_.data(), static_cast<int>(block), MPI_UINT16_T, receive_.data(),
                              static_cast<int>(block), MPI_UINT16_T, MPI_COMM_WORLD, &request),
                "MPI_Ialltoall", group_.who(), TPNET_HERE);
      wait_for(request, timeout_s_, group_.who(), what);
      // The analyzer does not see MPI_Test (in wait_for) complete the request.
    };  // NOLINT(clang-analyzer-optin.mpi.MPI-Checker)
    RankMeasurement result;
    result.mean_s = mean_seconds(
        [&](int runs) {
          for (int i = 0; i < runs; ++i) once();
        },
        warmup, iters);
    if (check) result.wrong = alltoall_wrong_elements(receive_.data(), group_.rank(), ranks, block);
    return result;
  }

  [[nodiscard]] std::string rank_line() const override {
    return calibrate::rank_line(group_.rank(), static_cast<long>(getpid()), group_.host(), 0, "cpu",
                                "MPI CPU backend");
  }

 private:
  ProcessGroup& group_;
  double timeout_s_;
  std::vector<std::uint16_t> send_;
  std::vector<std::uint16_t> receive_;
};

}  // namespace

std::unique_ptr<SweepRunner> make_mpi_alltoall_runner(ProcessGroup& group,
                                                      const RunnerSettings& settings) {
  return std::make_unique<MpiAlltoAllRunner>(group, settings);
}

}  // namespace tpnet::calibrate
