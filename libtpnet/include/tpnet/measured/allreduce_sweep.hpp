#pragma once
/// A measured all-reduce sweep: one row per buffer size, as nccl-tests'
/// all_reduce_perf and tpnet-calibrate allreduce report them
/// (docs/calibration.md). Readers: tpnet/io/nccl_tests.hpp.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/traffic/collective.hpp"

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
  /// The collective the log measured (the name is historical: every
  /// nccl-tests collective reads into this sweep).
  Collective collective = Collective::all_reduce;
  /// How it was told: "the log's header", "the columns" or "asked".
  std::string collective_from = "the columns";
  std::vector<AllReduceSample> samples;  ///< in file order
  int ranks = 0;                         ///< from the `#  Rank` lines / `devices`; 0 = unknown
  std::string nccl_version;              ///< "2.21.5", or "" when the file does not say
  std::string origin;
  /// The GPU the first `#  Rank` line names ("NVIDIA GB10"); "" when not said.
  std::string gpu;
  /// The transport NCCL's INFO logging names ("NCCL INFO Using network
  /// Socket": "Socket", "IB", "AWS Libfabric", ...); "" when the log has no
  /// such line (run without NCCL_DEBUG=INFO).
  std::string network;
  /// Hosts of the `#  Rank ... on HOST device` lines, each once, in file order.
  std::vector<std::string> hosts;
  /// Ranks on each host when the `#  Rank` lines spread them evenly; 0 when
  /// the log does not say.
  [[nodiscard]] int ranks_per_node() const {
    if (hosts.empty() || ranks <= 0 || ranks % static_cast<int>(hosts.size()) != 0) return 0;
    return ranks / static_cast<int>(hosts.size());
  }
  /// The `# tpnet-calibrate allreduce key=value ...` (or `alltoall`) line of a
  /// tpnet-calibrate sweep (backend, date, hosts, ranks, nccl, algo, proto,
  /// dtype, op); empty otherwise.
  std::map<std::string, std::string> provenance;
  /// False for a sweep read with `allow_truncated` that has no footer: a run
  /// that stopped (or was killed) before its last size.
  bool complete = true;
  /// What was tolerated: a missing footer, a cut-off last row.
  std::vector<std::string> notes;
};

}  // namespace tpnet
