#include "tpnet/measured/doctor.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tpnet {
namespace {

// Each setting is one sentence split over source lines, not a missing comma.
// NOLINTBEGIN(bugprone-suspicious-missing-comma)
std::vector<std::string> settings_to_check() {
  return {
      "NCCL_IB_HCA lists both RDMA devices of the port (e.g. rocep1s0f0,roceP2p1s0f0): one "
      "gives ~109 Gb/s, both ~196 Gb/s",
      "RoCE v2: NCCL_IB_ROCE_VERSION_NUM=2",
      "NCCL_IB_GID_INDEX is the RoCE v2 GID of the fabric address; look it up in "
      "/sys/class/infiniband/<dev>/ports/1/gid_attrs/types/ on every node (not stable across "
      "nodes)",
      "MTU 9000 on the fabric interfaces and every switch port on the path",
      "NCCL_ALGO=Ring for a sweep the ring formula can be fitted to",
      "a single TCP stream (iperf3, ~12 Gb/s on the Arm cores) says nothing about the fabric; "
      "measure RDMA (ib_write_bw) or NCCL",
  };
}
// NOLINTEND(bugprone-suspicious-missing-comma)

}  // namespace

int resolve_sweep_ranks(const AllReduceSweep& sweep, std::optional<int> asked,
                        std::vector<std::string>& warnings) {
  int ranks = sweep.ranks;
  if (asked) {
    if (*asked < 2) {
      throw InputError(fmt::format("is {}; an all-reduce needs at least 2 ranks", *asked),
                       InputLocation::for_key("ranks"));
    }
    if (sweep.ranks != 0 && sweep.ranks != *asked) {
      warnings.push_back(fmt::format("`ranks` {} overrides the {} ranks {} lists", *asked,
                                     sweep.ranks, sweep.origin));
    }
    ranks = *asked;
  }
  if (ranks == 0) {
    throw InputError("does not list its ranks ('#  Rank' lines); give `ranks` N",
                     InputLocation::in_file(sweep.origin));
  }
  return ranks;
}

DoctorReport run_doctor(const DoctorRequest& request) {
  DoctorReport r;
  r.warnings = request.sweep.notes;
  r.ranks = resolve_sweep_ranks(request.sweep, request.ranks, r.warnings);
  r.fit = fit_allreduce(request.sweep, r.ranks, request.range);
  r.busbw = large_size_busbw(request.sweep);
  for (const auto& s : request.sweep.samples) {
    r.peak_busbw = std::max(r.peak_busbw, s.out_of_place.busbw);
  }
  r.diagnosis = diagnose_bus_bandwidth(r.busbw, request.link.rate);
  r.checks = settings_to_check();
  for (const auto& w : r.fit.warnings) r.warnings.push_back(w);
  return r;
}

}  // namespace tpnet
