#pragma once
/// The RDMA port counter sampler of `tpnet-calibrate counters`: reads
/// port_xmit_data and port_rcv_data (cumulative, 64-bit, units of 4 bytes)
/// of every port of the chosen devices under /sys/class/infiniband at a fixed
/// interval, and writes the counters CSV of docs/traffic.md.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tpnet/io/output_file.hpp"

namespace tpnet::calibrate {

/// One port's two counter files, kept open and read with pread.
struct PortCounters {
  std::string device;  ///< rocep1s0f0
  std::string port;    ///< 1
  int xmit_fd = -1;
  int rcv_fd = -1;
};

/// The counters of the chosen devices. Bad input (no such directory, no
/// devices, a --device that is not there) throws tpnet::InputError naming
/// the directory.
class CounterSet {
 public:
  /// `devices` empty: every device under `root` that has port counters.
  CounterSet(const std::filesystem::path& root, const std::vector<std::string>& devices);
  CounterSet(const CounterSet&) = delete;
  CounterSet& operator=(const CounterSet&) = delete;
  CounterSet(CounterSet&&) = delete;
  CounterSet& operator=(CounterSet&&) = delete;
  ~CounterSet();

  [[nodiscard]] const std::vector<PortCounters>& ports() const { return ports_; }

  /// Reads every port once and appends one CSV row per port to `rows`
  /// (time_s from CLOCK_MONOTONIC, 6 decimals). Returns why a port could not
  /// be read (its device vanished, or the file holds no counter), or nullopt.
  /// `check_links`: also notice counter files that were deleted (fstat).
  std::optional<std::string> read(std::string& rows, bool check_links);

 private:
  std::vector<PortCounters> ports_;
};

/// How well the sampler kept its interval.
struct SamplerStats {
  long long reads = 0;  ///< reads of all ports
  double span_s = 0.0;  ///< first read to last
  double mean_interval_s = 0.0;
  double max_interval_s = 0.0;
  long long missed = 0;  ///< deadlines passed before the sampler woke
};

/// Where the CSV goes: to `out` through a tpnet::AtomicFile (a temporary
/// file beside it, unique to this run, renamed over it by finish()), or with
/// `out` empty or "-" to stdout. A target that exists and is not a regular
/// file is refused by the constructor (InputError), so before any command
/// runs; a failed write throws InputError with the system's reason.
class CsvOutput {
 public:
  explicit CsvOutput(std::string out);
  CsvOutput(const CsvOutput&) = delete;
  CsvOutput& operator=(const CsvOutput&) = delete;
  CsvOutput(CsvOutput&&) = delete;
  CsvOutput& operator=(CsvOutput&&) = delete;
  ~CsvOutput();

  /// Appends text; written out in blocks (a killed sampler loses at most one).
  void write(const std::string& text);
  /// Writes what is buffered and renames the temporary file over `out`.
  void finish();
  /// Drops the temporary file; `out` stays as it was.
  void discard();
  [[nodiscard]] const std::string& name() const { return out_; }
  [[nodiscard]] bool to_stdout() const { return out_.empty() || out_ == "-"; }
  /// The temporary file being written; empty for stdout or once finished.
  [[nodiscard]] std::string temp_path() const;

 private:
  void flush();
  std::string out_;
  std::unique_ptr<AtomicFile> file_;
  std::string buffer_;
};

/// Why sampling ended.
struct SamplerEnd {
  SamplerStats stats;
  std::optional<std::string> failure;        ///< a port could not be read: what happened
  std::optional<std::string> write_failure;  ///< the CSV could not be written: why
};

/// Reads `counters` every `interval_s`, sleeping to absolute deadlines
/// (clock_nanosleep TIMER_ABSTIME) so reads do not drift; a deadline already
/// passed on waking is counted as missed and skipped. `stop` is asked before
/// every read; when it says stop, one last read is taken and sampling ends.
/// A failed write of the output ends sampling too (`write_failure`).
SamplerEnd sample_counters(CounterSet& counters, CsvOutput& output, double interval_s,
                           const std::function<bool()>& stop);

/// `# tpnet-calibrate counters ...` comment and the CSV header line.
std::string counters_header(const CounterSet& counters, double interval_s);

/// CLOCK_MONOTONIC in seconds: the sampler's clock, which the counters command
/// also reads so that its report and the samples share one time base.
[[nodiscard]] double monotonic_seconds();

}  // namespace tpnet::calibrate
