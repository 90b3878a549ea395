// The MPI CPU all-reduce backend: MPI_Iallreduce of bf16 stored as uint16_t,
// summed by a commutative MPI_Op, so CI tests the whole harness without a
// GPU. Every collective is polled against the deadline (mpi_calls.hpp).

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "allreduce_sweep.hpp"
#include "mpi_calls.hpp"
#include "sweep_runner.hpp"

namespace tpnet::calibrate {
namespace {

/// MPI_User_function for bf16 stored as uint16_t: in-out += in, per element.
void bf16_sum(void* in, void* inout, int* length, MPI_Datatype* /*type*/) {
  const auto* a = static_cast<const std::uint16_t*>(in);
  auto* b = static_cast<std::uint16_t*>(inout);
  const auto count = static_cast<std::size_t>(*length);
  for (std::size_t i = 0; i < count; ++i) b[i] = bf16_add(a[i], b[i]);
}

class MpiAllReduceRunner final : public SweepRunner {
 public:
  MpiAllReduceRunner(ProcessGroup& group, const RunnerSettings& settings)
      : group_(group), timeout_s_(settings.timeout_s) {
    mpi_check(MPI_Op_create(&bf16_sum, 1, &op_), "MPI_Op_create", group_.who(), TPNET_HERE);
    const auto elements = static_cast<std::size_t>(settings.max_bytes / kBf16Bytes);
    send_.resize(elements);
    receive_.resize(elements);
    for (std::size_t i = 0; i < elements; ++i) {
      send_[i] = float_to_bf16(static_cast<float>(
          pattern_value(group_.rank(), group_.size(), static_cast<long long>(i))));
    }
    const int period = pattern_period(group_.size());
    for (int i = 0; i < period; ++i) {
      expected_.push_back(float_to_bf16(static_cast<float>(expected_sum(group_.size(), i))));
    }
  }
  MpiAllReduceRunner(const MpiAllReduceRunner&) = delete;
  MpiAllReduceRunner& operator=(const MpiAllReduceRunner&) = delete;
  MpiAllReduceRunner(MpiAllReduceRunner&&) = delete;
  MpiAllReduceRunner& operator=(MpiAllReduceRunner&&) = delete;
  ~MpiAllReduceRunner() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized == 0 && op_ != MPI_OP_NULL) MPI_Op_free(&op_);
  }

  RankMeasurement measure(long long bytes, bool in_place, int warmup, int iters,
                          bool check) override {
    const auto count = static_cast<std::size_t>(bytes / kBf16Bytes);
    const std::string what = fmt::format("MPI_Iallreduce of {} B", bytes);
    // Zeros: in-place runs keep reducing them; out-of-place must overwrite them.
    std::fill_n(receive_.begin(), count, std::uint16_t{0});
    auto once = [&] {
      allreduce_within(in_place ? MPI_IN_PLACE : send_.data(), receive_.data(),
                       static_cast<int>(count), MPI_UINT16_T, op_, timeout_s_, group_.who(), what);
    };
    RankMeasurement result;
    result.mean_s = mean_seconds(
        [&](int runs) {
          for (int i = 0; i < runs; ++i) once();
        },
        warmup, iters);
    if (check) {
      if (in_place) {
        std::copy_n(send_.begin(), count, receive_.begin());
        once();
      }
      const std::size_t period = expected_.size();
      for (std::size_t i = 0; i < count; ++i) {
        if (receive_[i] != expected_[i % period]) ++result.wrong;
      }
    }
    return result;
  }

  [[nodiscard]] std::string rank_line() const override {
    return calibrate::rank_line(group_.rank(), static_cast<long>(getpid()), group_.host(), 0, "cpu",
                                "MPI CPU backend");
  }

 private:
  ProcessGroup& group_;
  double timeout_s_;
  MPI_Op op_ = MPI_OP_NULL;
  std::vector<std::uint16_t> send_;
  std::vector<std::uint16_t> receive_;
  std::vector<std::uint16_t> expected_;
};

}  // namespace

std::unique_ptr<SweepRunner> make_mpi_allreduce_runner(ProcessGroup& group,
                                                       const RunnerSettings& settings) {
  return std::make_unique<MpiAllReduceRunner>(group, settings);
}

}  // namespace tpnet::calibrate
