// A sweep of one bf16 collective over sizes, in nccl-tests' text layout
// (calibration/README.md), with NCCL on GPUs or MPI on CPUs (the same
// harness, testable without a GPU): what `tpnet-calibrate allreduce` and
// `tpnet-calibrate alltoall` run.

#include "sweep_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allreduce_sweep.hpp"
#include "alltoall_sweep.hpp"
#include "calibrate_command.hpp"
#include "process_group.hpp"
#include "sweep_runner.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/base/quantity.hpp"

namespace tpnet::calibrate {
namespace {

/// The options, checked and converted before any rank starts MPI or NCCL.
struct SweepGrid {
  std::vector<long long> sizes;
  long long min_bytes = 0;
  long long max_bytes = 0;
  double timeout_s = 0.0;
  std::optional<long long> stall_after;
};

/// nccl-tests' -b/-e spelling: a bare K, M or G (any case) is binary, 1M =
/// 1 MiB = 1,048,576 B, and a bare number is bytes, as nccl-tests reads it.
/// Everything else is tpnet's byte size (1MB = 10^6 B).
std::string nccl_tests_size(const std::string& text) {
  if (!text.empty() && text.back() >= '0' && text.back() <= '9') return text + "B";
  if (text.size() < 2) return text;
  const char suffix = text.back();
  const bool digit_before = text[text.size() - 2] >= '0' && text[text.size() - 2] <= '9';
  if (!digit_before) return text;
  switch (suffix) {
    case 'K':
    case 'k':
      return text.substr(0, text.size() - 1) + "KiB";
    case 'M':
    case 'm':
      return text.substr(0, text.size() - 1) + "MiB";
    case 'G':
    case 'g':
      return text.substr(0, text.size() - 1) + "GiB";
    default:
      return text;
  }
}

long long whole_even_bytes(const std::string& text, const std::string& flag) {
  const double bytes = parse_bytes(nccl_tests_size(text), InputLocation::for_key(flag)).count();
  if (bytes != std::floor(bytes) || bytes > 1e15) {
    throw InputError(fmt::format("'{}' is {} B, not a whole number of bytes", text, bytes),
                     InputLocation::for_key(flag));
  }
  const auto whole = static_cast<long long>(bytes);
  if (whole % kBf16Bytes != 0) {
    throw InputError(fmt::format("'{}' is {} B, an odd byte count: bf16 elements are 2 B, so use "
                                 "an even size such as {}",
                                 text, whole, whole + 1),
                     InputLocation::for_key(flag));
  }
  return whole;
}

void check_word(const std::string& value, const std::string& flag, const char* example) {
  if (value.find_first_of(" \t\n") != std::string::npos) {
    throw InputError(
        fmt::format("'{}' has spaces; give the NCCL value as one word such as {}", value, example),
        InputLocation::for_key(flag));
  }
}

SweepGrid plan_sweep(const SweepOptions& o) {
  if (o.backend != "nccl" && o.backend != "mpi") {
    throw InputError(fmt::format("'{}' is not a backend; use nccl or mpi", o.backend),
                     InputLocation::for_key("--backend"));
  }
  if (o.backend == "nccl" && TPNET_HAVE_CUDA == 0) {
    throw InputError(
        "built without CUDA: the nccl backend needs the CUDA toolkit and NCCL (reconfigure with "
        "-DTPNET_WITH_CUDA=ON where /usr/local/cuda has them), or use --backend mpi",
        InputLocation::for_key("--backend"));
  }
  if (o.backend == "mpi" && TPNET_HAVE_MPI == 0) {
    throw InputError(
        "built without MPI: the mpi backend needs an MPI library (install libopenmpi-dev and "
        "reconfigure with -DTPNET_WITH_MPI=ON)",
        InputLocation::for_key("--backend"));
  }
  if (o.backend == "mpi") {
    if (!o.algo.empty()) {
      throw InputError("applies to --backend nccl only (it sets NCCL_ALGO)",
                       InputLocation::for_key("--algo"));
    }
    if (!o.proto.empty()) {
      throw InputError("applies to --backend nccl only (it sets NCCL_PROTO)",
                       InputLocation::for_key("--proto"));
    }
  }
  if (!o.algo.empty()) check_word(o.algo, "--algo", "Ring");
  if (!o.proto.empty()) check_word(o.proto, "--proto", "Simple");
  SweepGrid grid;
  grid.min_bytes = whole_even_bytes(o.min_bytes, "--min-bytes");
  grid.max_bytes = whole_even_bytes(o.max_bytes, "--max-bytes");
  if (grid.max_bytes < grid.min_bytes) {
    throw InputError(fmt::format("{} B is below --min-bytes {} B", grid.max_bytes, grid.min_bytes),
                     InputLocation::for_key("--max-bytes"));
  }
  // MPI counts are ints: 2^31 - 1 bf16 elements at most.
  const long long limit = static_cast<long long>(std::numeric_limits<int>::max()) * kBf16Bytes;
  if (o.backend == "mpi" && grid.max_bytes > limit) {
    throw InputError(fmt::format("{} B is more than the MPI backend's {} B (2^31-1 elements)",
                                 grid.max_bytes, limit),
                     InputLocation::for_key("--max-bytes"));
  }
  if (!(o.factor > 1.0) || !std::isfinite(o.factor) || o.factor > 1024.0) {
    throw InputError(fmt::format("{} must lie above 1 and at most 1024 (each size is the last "
                                 "times the factor)",
                                 o.factor),
                     InputLocation::for_key("--factor"));
  }
  if (o.warmup < 0) {
    throw InputError(fmt::format("{} must not be negative", o.warmup),
                     InputLocation::for_key("--warmup"));
  }
  if (o.iters < 1) {
    throw InputError(fmt::format("{} must be at least 1", o.iters),
                     InputLocation::for_key("--iters"));
  }
  grid.timeout_s = parse_duration(o.timeout, InputLocation::for_key("--timeout")).value();
  if (o.stall_rank >= 0 || !o.stall_after.empty()) {
    if (o.stall_rank < 0 || o.stall_after.empty()) {
      throw InputError("--stall-rank and --stall-after go together (a test of the timeout)",
                       InputLocation::for_key(o.stall_rank < 0 ? "--stall-rank" : "--stall-after"));
    }
    grid.stall_after = whole_even_bytes(o.stall_after, "--stall-after");
  }
  grid.sizes = sweep_sizes(grid.min_bytes, grid.max_bytes, o.factor);
  return grid;
}

/// Where rank 0 writes the sweep: stdout (std::cout, whose writes main()
/// checks), or --out truncated at the start and appended to, flushed, after
/// each size: a killed run keeps the sizes it measured (read with --partial).
class SweepOutput {
 public:
  explicit SweepOutput(const std::string& path) {
    if (path.empty() || path == "-") {
      to_stdout_ = true;
    } else {
      file_ = std::fopen(path.c_str(), "w");
      owned_ = file_ != nullptr;
    }
  }
  SweepOutput(const SweepOutput&) = delete;
  SweepOutput& operator=(const SweepOutput&) = delete;
  SweepOutput(SweepOutput&&) = delete;
  SweepOutput& operator=(SweepOutput&&) = delete;
  ~SweepOutput() {
    if (owned_) std::fclose(file_);
  }
  [[nodiscard]] bool ok() const { return to_stdout_ || file_ != nullptr; }
  void write(const std::string& text) {
    if (to_stdout_) {
      std::cout << text << std::flush;
      return;
    }
    std::fputs(text.c_str(), file_);
    std::fflush(file_);
  }

 private:
  std::FILE* file_ = nullptr;
  bool owned_ = false;
  bool to_stdout_ = false;
};

[[noreturn]] void stall_forever() {
  for (;;) pause();  // until mpirun kills the job
}

std::unique_ptr<SweepRunner> make_runner(const std::string& backend, Collective collective,
                                         ProcessGroup& group, const RunnerSettings& settings) {
  const bool alltoall = collective == Collective::alltoall;
#if TPNET_HAVE_MPI
  if (backend == "mpi") {
    return alltoall ? make_mpi_alltoall_runner(group, settings)
                    : make_mpi_allreduce_runner(group, settings);
  }
#endif
#if TPNET_HAVE_CUDA
  if (backend == "nccl") {
    return alltoall ? make_nccl_alltoall_runner(group, settings)
                    : make_nccl_allreduce_runner(group, settings);
  }
#endif
  (void)alltoall;
  (void)group;
  (void)settings;
  throw MeasurementError("no backend: " + backend);  // plan_sweep refuses it first
}

}  // namespace

int run_sweep(const SweepOptions& options, Collective collective) {
  SweepGrid grid = plan_sweep(options);
#if TPNET_HAVE_MPI
  const std::unique_ptr<ProcessGroup> group = make_mpi_group();
#else
  const std::unique_ptr<ProcessGroup> group = make_single_process_group();
#endif
  if (options.stall_rank >= group->size()) {
    throw InputError(fmt::format("{} is not a rank of this run (ranks 0 to {})", options.stall_rank,
                                 group->size() - 1),
                     InputLocation::for_key("--stall-rank"));
  }
  if (collective == Collective::alltoall) {
    // Every peer's block holds whole bf16 elements: sizes are multiples of N x 2 B.
    grid.sizes = alltoall_sizes(grid.sizes, group->size());
    if (grid.sizes.empty()) {
      throw InputError(fmt::format("{} B is below one bf16 element for each of the {} ranks ({} B)",
                                   grid.max_bytes, group->size(), kBf16Bytes * group->size()),
                       InputLocation::for_key("--max-bytes"));
    }
  }
  const std::string command = sweep_command_name(collective);
  const bool in_place = times_in_place(collective);
  // Rank 0 opens the output; every rank learns whether it could.
  std::optional<SweepOutput> output;
  int opened = 1;
  if (group->rank() == 0) {
    output.emplace(options.out);
    opened = output->ok() ? 1 : 0;
  }
  try {
    group->broadcast(&opened, static_cast<int>(sizeof opened), grid.timeout_s,
                     "MPI broadcast of whether --out opened");
  } catch (const MeasurementError& e) {
    group->fail(e);
  }
  if (opened == 0) {
    throw InputError(fmt::format("cannot write '{}'", options.out),
                     InputLocation::for_key("--out"));
  }

  RunnerSettings settings;
  settings.max_bytes = grid.sizes.back();
  settings.timeout_s = grid.timeout_s;
  settings.algo = options.algo;
  settings.proto = options.proto;
  const bool is_root = group->rank() == 0;
  std::vector<SweepRow> rows;
  try {
    const std::unique_ptr<SweepRunner> runner =
        make_runner(options.backend, collective, *group, settings);
    const std::vector<std::string> rank_lines =
        group->gather(runner->rank_line(), grid.timeout_s, "MPI gather of each rank's device");
    if (is_root) {
      SweepProvenance provenance;
      provenance.collective = collective;
      provenance.backend = options.backend;
      provenance.date = utc_timestamp();
      for (const auto& line : rank_lines) {
        const auto on = line.find(" on ");
        if (on == std::string::npos) continue;
        std::string host = line.substr(on + 4);
        host = host.substr(host.find_first_not_of(' '));
        host = host.substr(0, host.find(' '));
        if (std::find(provenance.hosts.begin(), provenance.hosts.end(), host) ==
            provenance.hosts.end()) {
          provenance.hosts.push_back(host);
        }
      }
      provenance.ranks = group->size();
      provenance.nccl = runner->nccl_version();
      provenance.nccl_code = runner->nccl_code();
      provenance.algo = runner->algo();
      provenance.proto = runner->proto();
      output->write(sweep_header(provenance, rank_lines, grid.min_bytes, grid.max_bytes,
                                 options.factor, options.warmup, options.iters, options.check));
    }
    for (const long long bytes : grid.sizes) {
      if (grid.stall_after && bytes >= *grid.stall_after && group->rank() == options.stall_rank) {
        std::cerr << fmt::format("tpnet-calibrate: {}: {} stops before {} B (--stall-rank)\n",
                                 command, group->who(), bytes);
        stall_forever();
      }
      const std::string what = fmt::format("the timing reduction after {} B", bytes);
      SweepRow row;
      row.bytes = bytes;
      const RankMeasurement out_of_place =
          runner->measure(bytes, false, options.warmup, options.iters, options.check);
      row.out_of_place_s = group->max_over_ranks(out_of_place.mean_s, grid.timeout_s, what);
      if (options.check) {
        row.out_of_place_wrong = group->sum_over_ranks(out_of_place.wrong, grid.timeout_s, what);
      }
      if (in_place) {
        const RankMeasurement in_place_run =
            runner->measure(bytes, true, options.warmup, options.iters, options.check);
        row.in_place_s = group->max_over_ranks(in_place_run.mean_s, grid.timeout_s, what);
        if (options.check) {
          row.in_place_wrong = group->sum_over_ranks(in_place_run.wrong, grid.timeout_s, what);
        }
      }
      rows.push_back(row);
      if (is_root) {
        output->write(sweep_row(row, group->size(), collective));
        std::cerr << fmt::format("tpnet-calibrate: {} {} B: {:.2f} us, busbw {:.2f} GB/s, {}\n",
                                 command, bytes, row.out_of_place_s * 1e6,
                                 busbw_gbps(bytes, row.out_of_place_s, group->size(), collective),
                                 options.check
                                     ? fmt::format("{} wrong", row.out_of_place_wrong.value_or(0) +
                                                                   row.in_place_wrong.value_or(0))
                                     : std::string("unchecked"));
      }
    }
    if (is_root) output->write(sweep_footer(rows, group->size(), collective));
  } catch (const MeasurementError& error) {
    group->fail(error);
  }
  long long wrong = 0;
  for (const auto& row : rows) {
    wrong += row.out_of_place_wrong.value_or(0) + row.in_place_wrong.value_or(0);
  }
  if (wrong > 0) {
    if (is_root) {
      std::cerr << fmt::format(
          "tpnet-calibrate: measurement failed: {} elements differ from {} (see the #wrong "
          "columns); the sweep is written but must not be fitted\n",
          wrong,
          collective == Collective::alltoall ? "what their source rank sent" : "the expected sum");
    }
    return kExitMeasurementFailed;
  }
  return 0;
}

void add_sweep_flags(CLI::App& app, SweepOptions& options, Collective collective) {
  const std::string runs = collective == Collective::alltoall
                               ? "all-to-alls per size"
                               : "all-reduces per size and placement";
  app.add_option("--backend", options.backend,
                 collective == Collective::alltoall
                     ? "nccl (one GPU per rank) or mpi (CPU, MPI_Ialltoall on the host)"
                     : "nccl (one GPU per rank) or mpi (CPU, bf16 summed on the host)")
      ->capture_default_str();
  app.add_option("-b,--min-bytes", options.min_bytes,
                 "Smallest size: 8, 64K, 1M (K/M/G binary as in nccl-tests), 500MB, 512MiB; even")
      ->capture_default_str();
  app.add_option("-e,--max-bytes", options.max_bytes, "Largest size (even)")->capture_default_str();
  app.add_option("-f,--factor", options.factor, "Each size is the last times this")
      ->capture_default_str();
  app.add_option("--warmup", options.warmup, fmt::format("Untimed {}", runs))
      ->capture_default_str();
  app.add_option("--iters", options.iters, fmt::format("Timed {}", runs))->capture_default_str();
  app.add_flag("--check,!--no-check", options.check,
               collective == Collective::alltoall
                   ? "Compare every element with what its source rank sent (#wrong)"
                   : "Compare every element with the expected sum (#wrong)")
      ->capture_default_str();
  app.add_option("--timeout", options.timeout,
                 "Longest wait for one collective before every rank stops with exit 4")
      ->capture_default_str();
  app.add_option("--algo", options.algo,
                 "Set NCCL_ALGO (Ring, Tree, ...) before the communicator is created");
  app.add_option("--proto", options.proto,
                 "Set NCCL_PROTO (Simple, LL, LL128) before the communicator is created");
  app.add_option("--out", options.out,
                 "Write the sweep here (rank 0; rows appended and flushed as measured) instead "
                 "of stdout");
  // For tests of the timeout only: rank R sleeps forever before the first size >= SIZE.
  app.add_option("--stall-rank", options.stall_rank)->group("");
  app.add_option("--stall-after", options.stall_after)->group("");
}

}  // namespace tpnet::calibrate
