#include "tpnet/measured/doctor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

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
  std::set<double> sizes;
  for (const auto& s : request.sweep.samples) {
    if ((!request.range.min_size || s.size >= *request.range.min_size) &&
        (!request.range.max_size || s.size <= *request.range.max_size)) {
      sizes.insert(s.size.count());
    }
  }
  if (sizes.size() >= 2) {
    r.fit = fit_allreduce(request.sweep, r.ranks, request.range);
    r.fitted = true;
  } else {
    // One size still shows the bus bandwidth; only the fit needs two.
    r.fit.ranks = r.ranks;
    r.fit.collective = request.sweep.collective;
    r.warnings.push_back(fmt::format(
        "{} has {} size(s) in the range fitted: no alpha-beta fit (it needs 2); the bus "
        "bandwidth is judged alone",
        request.sweep.origin, sizes.size()));
  }
  r.busbw = large_size_busbw(request.sweep);
  for (const auto& s : request.sweep.samples) {
    r.peak_busbw = std::max(r.peak_busbw, s.out_of_place.busbw);
  }
  const AllReduceSweep& sweep = request.sweep;
  // The one-PCIe-half state is a DGX Spark port's (two RDMA devices per
  // port); another GPU's log cannot be in it.
  const bool spark_port = sweep.gpu.empty() || sweep.gpu.find("GB10") != std::string::npos;
  r.diagnosis = diagnose_bus_bandwidth(r.busbw, request.link.rate, spark_port);
  r.ranks_per_node = sweep.ranks_per_node();
  if (r.ranks_per_node > 1) {
    // Inside a node the ranks talk over NVLink or PCIe; the log's bus
    // bandwidth mixes those links with the NICs and cannot tell them apart.
    r.diagnosis.state = FabricState::not_judged;
    r.diagnosis.finding = fmt::format(
        "not judged: the {} ranks run {} per node on {}, so links inside each node carry "
        "part of the {}; its {:.1f} Gb/s bus bandwidth is not the NIC's, and the log cannot show "
        "what the NIC carried",
        r.ranks, r.ranks_per_node,
        sweep.hosts.size() == 1 ? std::string("one node")
                                : fmt::format("{} nodes", sweep.hosts.size()),
        to_string(sweep.collective), r.busbw.bits_per_second() / 1e9);
    r.diagnosis.advice =
        "rerun with one rank per node (one GPU per host, e.g. mpirun -npernode 1 ... -g 1) to "
        "judge the link";
  } else if (sweep.hosts.empty()) {
    r.warnings.push_back(fmt::format(
        "{} does not say where its ranks ran ('#  Rank ... on HOST' lines); judged as one rank "
        "per node",
        sweep.origin));
  }
  if (sweep.collective != NcclCollective::all_reduce) {
    r.warnings.push_back(fmt::format(
        "{} measured {} ({}): its bus bandwidth (algbw x {:.3g}) answers the link question as "
        "an all-reduce's does; the fit is of {}'s ring",
        sweep.origin, to_string(sweep.collective), sweep.collective_from,
        busbw_factor(sweep.collective, r.ranks), to_string(sweep.collective)));
  }
  r.checks = settings_to_check();
  for (const auto& w : r.fit.warnings) r.warnings.push_back(w);
  return r;
}

}  // namespace tpnet
