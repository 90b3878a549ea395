// The MPI side of tpnet-calibrate's process group: MPI_COMM_WORLD (the NCCL
// backends use it to broadcast their unique id), and the checked, deadline-
// polled MPI calls every MPI part shares (mpi_calls.hpp).

#include <fmt/format.h>
#include <mpi.h>
#include <sched.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string_view>
#include <vector>

#include "mpi_calls.hpp"
#include "process_group.hpp"
#include "source_file_name.hpp"

namespace tpnet::calibrate {

/// MPI errors are returned (MPI_ERRORS_RETURN), so each call is checked here.
void mpi_check(int rc, std::string_view call, const std::string& who, SourcePlace at) {
  if (rc == MPI_SUCCESS) return;
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int length = 0;
  MPI_Error_string(rc, text.data(), &length);
  throw MeasurementError(fmt::format("{}: {} failed: {} ({}:{})", who, call,
                                     std::string_view(text.data(), static_cast<size_t>(length)),
                                     source_file_name(at.file), at.line));
}

/// Polls `request` until it completes; past `timeout_s` it is a timeout.
void wait_for(MPI_Request& request, double timeout_s, const std::string& who,
              std::string_view what) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    int done = 0;
    mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test", who, TPNET_HERE);
    if (done != 0) return;
    if (Clock::now() > deadline) {
      throw MeasurementError(
          fmt::format("{}: {} timed out after {:g} s (a rank stopped, or the network hangs)", who,
                      what, timeout_s));
    }
    sched_yield();  // ranks may share cores (mpirun --oversubscribe)
  }
}

/// MPI_Iallreduce, then wait_for: a rank that never joins is a timeout.
void allreduce_within(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op,
                      double timeout_s, const std::string& who, std::string_view what) {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Iallreduce(send, receive, count, type, op, MPI_COMM_WORLD, &request),
            "MPI_Iallreduce", who, TPNET_HERE);
  wait_for(request, timeout_s, who, what);
  // The analyzer does not see MPI_Test (in wait_for) complete the request.
}  // NOLINT(clang-analyzer-optin.mpi.MPI-Checker)

namespace {

class MpiGroup final : public ProcessGroup {
 public:
  MpiGroup() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized == 0 && MPI_Init(nullptr, nullptr) != MPI_SUCCESS) {
      throw MeasurementError(host_ + ": MPI_Init failed");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank", host_, TPNET_HERE);
    mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size", host_, TPNET_HERE);
  }
  MpiGroup(const MpiGroup&) = delete;
  MpiGroup& operator=(const MpiGroup&) = delete;
  MpiGroup(MpiGroup&&) = delete;
  MpiGroup& operator=(MpiGroup&&) = delete;
  ~MpiGroup() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized == 0) MPI_Finalize();
  }

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }
  [[nodiscard]] const std::string& host() const override { return host_; }

  double max_over_ranks(double value, double timeout_s, const std::string& what) override {
    double result = 0.0;
    allreduce_within(&value, &result, 1, MPI_DOUBLE, MPI_MAX, timeout_s, who(), what);
    return result;
  }

  long long sum_over_ranks(long long value, double timeout_s, const std::string& what) override {
    long long result = 0;
    allreduce_within(&value, &result, 1, MPI_LONG_LONG, MPI_SUM, timeout_s, who(), what);
    return result;
  }

  void broadcast(void* data, int bytes, double timeout_s, const std::string& what) override {
    MPI_Request request = MPI_REQUEST_NULL;
    mpi_check(MPI_Ibcast(data, bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &request), "MPI_Ibcast", who(),
              TPNET_HERE);
    wait_for(request, timeout_s, who(), what);
  }  // NOLINT(clang-analyzer-optin.mpi.MPI-Checker)

  std::vector<std::string> gather(const std::string& text, double timeout_s,
                                  const std::string& what) override {
    // Lengths first, then the texts: a node's facts run to kilobytes. Both
    // polled against the deadline: a rank that failed or hangs must not
    // leave the others waiting for ever.
    const int length = static_cast<int>(text.size());
    std::vector<int> lengths(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
    MPI_Request request = MPI_REQUEST_NULL;
    mpi_check(
        MPI_Igather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD, &request),
        "MPI_Igather", who(), TPNET_HERE);
    wait_for(request, timeout_s, who(), what);
    std::vector<int> offsets(lengths.size());
    int total = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      offsets[i] = total;
      total += lengths[i];
    }
    std::vector<char> all(static_cast<std::size_t>(total) + 1);
    mpi_check(MPI_Igatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(),
                           offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD, &request),
              "MPI_Igatherv", who(), TPNET_HERE);
    wait_for(request, timeout_s, who(), what);
    std::vector<std::string> texts;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      texts.emplace_back(all.data() + offsets[i], static_cast<std::size_t>(lengths[i]));
    }
    return texts;
  }

  [[noreturn]] void fail(const MeasurementError& error) override {
    if (size_ == 1) throw error;  // nobody else to stop: main() reports it, MPI_Finalize runs
    std::cerr << "tpnet-calibrate: measurement failed: " << error.what() << "\n" << std::flush;
    MPI_Abort(MPI_COMM_WORLD, kExitMeasurementFailed);
    std::_Exit(kExitMeasurementFailed);  // MPI_Abort does not return; this is for the compiler
  }

 private:
  std::string host_ = this_host();
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

std::unique_ptr<ProcessGroup> make_mpi_group() { return std::make_unique<MpiGroup>(); }

}  // namespace tpnet::calibrate
