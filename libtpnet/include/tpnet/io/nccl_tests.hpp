#pragma once
/// Reading nccl-tests `all_reduce_perf` results: the text it prints and the
/// JSON file its `-J FILE` option writes (docs/calibration.md).

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/error.hpp"
#include "tpnet/units.hpp"

namespace tpnet {

/// One of the two measurements of a size: out-of-place or in-place.
struct AllReduceTiming {
  Seconds time;   ///< mean time of one all-reduce (nccl-tests prints us)
  BitRate algbw;  ///< S / time (nccl-tests prints GB/s)
  BitRate busbw;  ///< algbw x 2(N-1)/N
  /// Wrong elements found by the correctness check; nullopt when the run
  /// did not check (`N/A`, `-c 0`). Never nonzero: the reader refuses that.
  std::optional<double> wrong;
};

struct AllReduceSample {
  Bytes size;  ///< S, the buffer reduced on every rank
  long long count = 0;
  std::string type;  ///< "float", ...
  AllReduceTiming out_of_place;
  std::optional<AllReduceTiming> in_place;  ///< absent when the file has none
  InputLocation source;                     ///< file and line of the row
};

struct AllReduceSweep {
  std::vector<AllReduceSample> samples;  ///< in file order
  int ranks = 0;                         ///< from the `#  Rank` lines / `devices`; 0 = unknown
  std::string nccl_version;              ///< "2.21.5", or "" when the file does not say
  std::string origin;
  /// Hosts of the `#  Rank ... on HOST device` lines, each once, in file order.
  std::vector<std::string> hosts;
  /// The `# tpnet-calibrate allreduce key=value ...` line of a tpnet-calibrate
  /// sweep (backend, date, hosts, ranks, nccl, algo, proto, dtype, op); empty otherwise.
  std::map<std::string, std::string> provenance;
  /// False for a sweep read with `allow_truncated` that has no footer: a run
  /// that stopped (or was killed) before its last size.
  bool complete = true;
  /// What was tolerated: a missing footer, a cut-off last row.
  std::vector<std::string> notes;
};

struct NcclTestsReadOptions {
  /// Accepts a text log without the `# Avg bus bandwidth` footer and drops a
  /// cut-off last row, for a killed run (tpnet's `--partial`).
  bool allow_truncated = false;
};

/// Text output of `all_reduce_perf`: `#` header lines (`#  Rank` lines give
/// the rank count, `nccl-library=22105` or `NCCL version 2.21.5` the
/// version), a `# size count type redop root time algbw busbw #wrong ...`
/// header, then one row per size. Tolerates headers without `redop`/`root`,
/// `error` for `#wrong`, `cputime` for `time`, trailing timestamp columns and
/// lines that do not start with a digit (NCCL INFO logging). Requires the
/// `# Avg bus bandwidth` footer, so a truncated log is refused (unless
/// `options.allow_truncated`). A row whose size is not count x the element
/// size of its type (bf16/half 2 B, float 4 B, ...) is refused. Text starting
/// with `{` is read as the `-J` JSON file. Errors name the file and line.
AllReduceSweep parse_nccl_tests(std::string_view text, const std::string& origin,
                                const NcclTestsReadOptions& options = {});
AllReduceSweep load_nccl_tests(const std::string& path, const NcclTestsReadOptions& options = {});

}  // namespace tpnet
