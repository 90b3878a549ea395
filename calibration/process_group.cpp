#include "process_group.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <array>

namespace tpnet::calibrate {

std::string ProcessGroup::who() const { return fmt::format("rank {} ({})", rank(), host()); }

std::string this_host() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown-host";
  return name.data();
}

namespace {

class SingleProcessGroup final : public ProcessGroup {
 public:
  [[nodiscard]] int rank() const override { return 0; }
  [[nodiscard]] int size() const override { return 1; }
  [[nodiscard]] const std::string& host() const override { return host_; }
  double max_over_ranks(double value, double /*timeout_s*/, const std::string& /*what*/) override {
    return value;
  }
  long long sum_over_ranks(long long value, double /*timeout_s*/,
                           const std::string& /*what*/) override {
    return value;
  }
  void broadcast(void* /*data*/, int /*bytes*/, double /*timeout_s*/,
                 const std::string& /*what*/) override {}
  std::vector<std::string> gather(const std::string& text, double /*timeout_s*/,
                                  const std::string& /*what*/) override {
    return {text};
  }
  [[noreturn]] void fail(const MeasurementError& error) override { throw error; }

 private:
  std::string host_ = this_host();
};

}  // namespace

std::unique_ptr<ProcessGroup> make_single_process_group() {
  return std::make_unique<SingleProcessGroup>();
}

}  // namespace tpnet::calibrate
