#include "counter_sampler.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <utility>

#include "allreduce_sweep.hpp"
#include "calibrate_command.hpp"
#include "process_group.hpp"
#include "tpnet/base/error.hpp"

namespace tpnet::calibrate {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kFlushBytes = std::size_t{32} * 1024;

std::vector<std::string> sorted_entries(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

int open_counter(const fs::path& path) {
  return ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // NOLINT(cppcoreguidelines-pro-type-vararg)
}

/// Opens the counters of every port of `device`; none when it has none.
std::vector<PortCounters> open_ports(const fs::path& root, const std::string& device) {
  std::vector<PortCounters> ports;
  for (const auto& port : sorted_entries(root / device / "ports")) {
    const fs::path counters = root / device / "ports" / port / "counters";
    const int xmit = open_counter(counters / "port_xmit_data");
    const int rcv = open_counter(counters / "port_rcv_data");
    if (xmit < 0 || rcv < 0) {
      if (xmit >= 0) ::close(xmit);
      if (rcv >= 0) ::close(rcv);
      continue;
    }
    ports.push_back(PortCounters{device, port, xmit, rcv});
  }
  return ports;
}

/// The counter in a sysfs attribute ("123456\n"), or why it is not one.
std::optional<std::uint64_t> read_counter(int fd, std::string& why) {
  std::array<char, 32> text{};
  const ssize_t got = ::pread(fd, text.data(), text.size() - 1, 0);
  if (got < 0) {
    why = std::strerror(errno);
    return std::nullopt;
  }
  std::uint64_t value = 0;
  const char* end = text.data() + got;
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (got == 0 || ec != std::errc{} || (ptr != end && *ptr != '\n')) {
    std::string content(text.data(), static_cast<std::size_t>(got));
    while (!content.empty() && (content.back() == '\n' || content.back() == ' '))
      content.pop_back();
    why = fmt::format("'{}' is not a counter", content);
    return std::nullopt;
  }
  return value;
}

bool unlinked(int fd) {
  struct stat info {};
  return ::fstat(fd, &info) != 0 || info.st_nlink == 0;
}

}  // namespace

double monotonic_seconds() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

CounterSet::CounterSet(const fs::path& root, const std::vector<std::string>& devices) {
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    throw InputError(fmt::format("{} is not a directory: no RDMA devices here (is the RDMA driver "
                                 "loaded? tests give a fake tree with --sysfs-root)",
                                 root.string()),
                     InputLocation::for_key("--sysfs-root"));
  }
  const std::vector<std::string> present = sorted_entries(root);
  std::vector<std::string> chosen = devices;
  if (chosen.empty()) chosen = present;
  for (const auto& device : chosen) {
    if (std::find(present.begin(), present.end(), device) == present.end()) {
      std::string found;
      for (const auto& name : present) found += (found.empty() ? "" : ", ") + name;
      throw InputError(fmt::format("'{}' is not a device in {} (found: {})", device, root.string(),
                                   found.empty() ? "none" : found),
                       InputLocation::for_key("--device"));
    }
    std::vector<PortCounters> ports = open_ports(root, device);
    if (ports.empty() && !devices.empty()) {
      throw InputError(fmt::format("{} has no ports/*/counters/port_xmit_data and port_rcv_data "
                                   "to read",
                                   (root / device).string()),
                       InputLocation::for_key("--device"));
    }
    for (auto& port : ports) ports_.push_back(std::move(port));
  }
  if (ports_.empty()) {
    throw InputError(fmt::format("no RDMA device with port counters in {} (expected "
                                 "<device>/ports/<port>/counters/port_xmit_data)",
                                 root.string()),
                     InputLocation::for_key("--sysfs-root"));
  }
}

CounterSet::~CounterSet() {
  for (const auto& port : ports_) {
    ::close(port.xmit_fd);
    ::close(port.rcv_fd);
  }
}

std::optional<std::string> CounterSet::read(std::string& rows, bool check_links) {
  for (const auto& port : ports_) {
    std::string why;
    const auto xmit = read_counter(port.xmit_fd, why);
    const auto rcv = xmit ? read_counter(port.rcv_fd, why) : std::nullopt;
    const double time_s = monotonic_seconds();
    if (!xmit || !rcv) {
      return fmt::format("device {} port {} could not be read ({}): it vanished", port.device,
                         port.port, why);
    }
    if (check_links && (unlinked(port.xmit_fd) || unlinked(port.rcv_fd))) {
      return fmt::format("device {} port {} vanished (its counter files were removed)", port.device,
                         port.port);
    }
    rows += fmt::format("{:.6f},{},{},{},{}\n", time_s, port.device, port.port, *xmit, *rcv);
  }
  return std::nullopt;
}

// ---- output -------------------------------------------------------------------

CsvOutput::CsvOutput(std::string out) : out_(std::move(out)) {
  if (!to_stdout()) file_ = std::make_unique<AtomicFile>(out_, "--out");
}

CsvOutput::~CsvOutput() = default;  // an unfinished file_ removes its temporary file

void CsvOutput::write(const std::string& text) {
  buffer_ += text;
  if (buffer_.size() >= kFlushBytes) flush();
}

void CsvOutput::flush() {
  if (file_) {
    file_->write(buffer_);
    buffer_.clear();
    return;
  }
  std::size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t wrote = ::write(STDOUT_FILENO, buffer_.data() + done, buffer_.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      buffer_.clear();
      throw InputError(fmt::format("could not write to standard output: {}",
                                   std::strerror(wrote < 0 ? errno : EIO)));
    }
    done += static_cast<std::size_t>(wrote);
  }
  buffer_.clear();
}

void CsvOutput::finish() {
  flush();
  if (file_) file_->commit();
}

void CsvOutput::discard() {
  buffer_.clear();
  if (file_) file_->discard();
}

std::string CsvOutput::temp_path() const { return file_ ? file_->temp_path() : std::string(); }

// ---- the loop ---------------------------------------------------------------------

std::string counters_header(const CounterSet& counters, double interval_s) {
  std::string ports;
  for (const auto& port : counters.ports()) {
    ports += (ports.empty() ? "" : ",") + port.device + "/" + port.port;
  }
  return fmt::format(
      "# tpnet-calibrate counters date={} host={} interval_s={:g} ports={} units=4B\n"
      "time_s,device,port,port_xmit_data,port_rcv_data\n",
      utc_timestamp(), this_host(), interval_s, ports);
}

SamplerEnd sample_counters(CounterSet& counters, CsvOutput& output, double interval_s,
                           const std::function<bool()>& stop) {
  constexpr long long kLinkCheckEvery = 16;
  const auto interval_ns = static_cast<long long>(interval_s * 1e9);
  SamplerEnd end;
  SamplerStats& stats = end.stats;
  timespec deadline{};
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  double first = 0.0;
  double previous = 0.0;
  std::string rows;
  for (;;) {
    const bool last = stop();
    const double now = monotonic_seconds();
    rows.clear();
    end.failure = counters.read(rows, stats.reads % kLinkCheckEvery == 0);
    if (end.failure) break;
    try {
      output.write(rows);
    } catch (const InputError& error) {
      end.write_failure = error.what();
      break;
    }
    if (stats.reads == 0) {
      first = now;
    } else {
      stats.max_interval_s = std::max(stats.max_interval_s, now - previous);
    }
    previous = now;
    ++stats.reads;
    if (last) break;

    // The next deadline; one already passed is missed, not caught up in a burst.
    long long next_ns =
        static_cast<long long>(deadline.tv_sec) * 1'000'000'000LL + deadline.tv_nsec + interval_ns;
    const auto now_ns = static_cast<long long>(monotonic_seconds() * 1e9);
    if (now_ns > next_ns) {
      const long long behind = (now_ns - next_ns) / interval_ns + 1;
      stats.missed += behind;
      next_ns += behind * interval_ns;
    }
    deadline.tv_sec = static_cast<time_t>(next_ns / 1'000'000'000LL);
    deadline.tv_nsec = static_cast<long>(next_ns % 1'000'000'000LL);
    // A signal (EINTR) ends the sleep early so `stop` is asked at once.
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nullptr);
  }
  if (stats.reads > 0) {
    stats.span_s = previous - first;
    stats.mean_interval_s =
        stats.reads > 1 ? stats.span_s / static_cast<double>(stats.reads - 1) : 0.0;
  }
  return end;
}

}  // namespace tpnet::calibrate
