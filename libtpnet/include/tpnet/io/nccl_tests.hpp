#pragma once
/// Reading nccl-tests `all_reduce_perf` results: the text it prints and the
/// JSON file its `-J FILE` option writes (docs/calibration.md).

#include <optional>
#include <string>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/measured/allreduce_sweep.hpp"

namespace tpnet {

struct NcclTestsReadOptions {
  /// Accepts a text log without the `# Avg bus bandwidth` footer and drops a
  /// cut-off last row, for a killed run (tpnet's `--partial`).
  bool allow_truncated = false;
  /// The collective the log measured, when the log cannot tell it (its
  /// columns read the same for all_gather and alltoall, and for all_reduce
  /// and sendrecv on 2 ranks); checked against the rows.
  std::optional<Collective> collective;
};

/// Text output of any nccl-tests collective (`all_reduce_perf`,
/// `all_gather_perf`, `reduce_scatter_perf`, `alltoall_perf`,
/// `broadcast_perf`, `reduce_perf`, `sendrecv_perf`): the collective from
/// `# Collective test starting: NAME` when the log has it, else from the
/// columns (redop, root, and whether count is one rank's share of size).
/// Lines may carry an `srun --label` (`0: `) or `mpirun --tag-output`
/// (`[1,0]<stdout>:`) prefix; rows of size 0 are skipped with a note.
/// `#` header lines (`#  Rank` lines give
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
