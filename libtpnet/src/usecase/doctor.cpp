#include "tpnet/usecase/doctor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "tpnet/fabric/node.hpp"

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

/// What to check on hardware other than a DGX Spark: nothing port- or
/// CPU-specific, only what any NCCL fabric is checked by.
std::vector<std::string> settings_to_check_elsewhere() {
  return {
      "NCCL_DEBUG=INFO shows the transport NCCL picked ('Using network ...'): IB, or the "
      "fabric's plugin (AWS Libfabric for EFA and Slingshot); 'Socket' is a fallback to TCP",
      "NCCL_ALGO=Ring for a sweep the ring formula can be fitted to",
      "one rank per node (-g 1, one GPU per host) for a bus bandwidth that is the NIC's alone",
  };
}
// NOLINTEND(bugprone-suspicious-missing-comma)

/// Refuses a range that holds none of the log's sizes; the fit and the
/// judgement would otherwise rest on nothing.
void check_range(const AllReduceSweep& sweep, const FitRange& range, std::size_t in_range) {
  if (range.min_size && range.max_size && *range.min_size > *range.max_size) {
    throw InputError(
        fmt::format("{:.0f} B is above `fit.max_size` {:.0f} B: the range holds no size",
                    range.min_size->count(), range.max_size->count()),
        InputLocation::for_key("fit.min_size"));
  }
  if (in_range == 0) {
    double smallest = sweep.samples.front().size.count();
    double largest = smallest;
    for (const auto& s : sweep.samples) {
      smallest = std::min(smallest, s.size.count());
      largest = std::max(largest, s.size.count());
    }
    throw InputError(
        fmt::format("leaves none of the sizes of {} in the range ({:.0f} B to {:.0f} B)",
                    sweep.origin, smallest, largest),
        InputLocation::for_key(range.min_size ? "fit.min_size" : "fit.max_size"));
  }
}

/// The sizes are too small for the bus bandwidth to show: on DGX Sparks with
/// a measured range for this rank count, their latency is judged instead.
void judge_small_sizes(const AllReduceSweep& sweep, Bytes largest,
                       const std::optional<NodeSpec>& spark, DoctorReport& r) {
  const double fixed_us = r.fitted && r.fit.alpha.value() > 0.0 ? r.fit.alpha.value() * 1e6 : 0.0;
  const std::string why = fmt::format(
      "bandwidth not judged: a healthy link would show at most {:.0f}% of its rate at the "
      "largest size, {:.0f} B{}, under the {:.0f}% a healthy fabric reaches: the call's fixed "
      "cost hides its bytes",
      r.reachable_share * 100.0, largest.count(),
      fixed_us > 0.0 ? fmt::format(" (fixed cost {:.1f} us)", fixed_us) : std::string(),
      kHealthyShare * 100.0);
  const auto& latency =
      spark ? spark->small_allreduce_latency : std::optional<SmallAllReduceLatency>();
  if (!latency || latency->ranks != r.ranks || r.ranks_per_node > 1) {
    r.diagnosis.state = FabricState::not_judged;
    r.diagnosis.finding =
        why + (spark ? fmt::format("; the node catalog's measured small all-reduce latency is "
                                   "for {} ranks, one per node, not this run's {}",
                                   latency ? latency->ranks : 0, r.ranks)
                     : "; tpnet has no measured latency of this hardware to judge it by");
    r.diagnosis.advice =
        "rerun with sizes up to 1 GiB or more (-e 1G) to judge the link's bandwidth";
    return;
  }
  Seconds slowest;
  int rows = 0;
  for (const auto& s : sweep.samples) {
    if (s.size > latency->max_size) continue;
    slowest = std::max(slowest, s.out_of_place.time);
    ++rows;
  }
  if (rows == 0) {
    r.diagnosis.state = FabricState::not_judged;
    r.diagnosis.finding = fmt::format(
        "{}; no size is at or under the {:.0f} B the measured small all-reduce latency covers", why,
        latency->max_size.count());
    r.diagnosis.advice =
        "rerun with sizes up to 1 GiB or more (-e 1G) to judge the link's bandwidth";
    return;
  }
  r.small_latency = slowest;
  r.healthy_latency_max = latency->healthy_max;
  const double us = slowest.value() * 1e6;
  if (slowest <= latency->healthy_max) {
    r.diagnosis.state = FabricState::latency_healthy;
    r.diagnosis.finding = fmt::format(
        "{}. Latency healthy: the slowest of {} size(s) up to {:.0f} B took {:.2f} us, within "
        "the {:.0f}-{:.0f} us healthy {}-Spark runs take",
        why, rows, latency->max_size.count(), us, latency->healthy_min.value() * 1e6,
        latency->healthy_max.value() * 1e6, latency->ranks);
    r.diagnosis.advice =
        "nothing to fix in the latency; rerun with sizes up to 1 GiB or more (-e 1G) to judge "
        "the link's bandwidth";
  } else {
    r.diagnosis.state = FabricState::latency_slow;
    r.diagnosis.finding = fmt::format(
        "{}. Latency slow: the slowest of {} size(s) up to {:.0f} B took {:.2f} us, above the "
        "{:.0f}-{:.0f} us healthy {}-Spark runs take",
        why, rows, latency->max_size.count(), us, latency->healthy_min.value() * 1e6,
        latency->healthy_max.value() * 1e6, latency->ranks);
    r.diagnosis.advice =
        "a slow small all-reduce is a slow path or transport: check that NCCL uses RoCE "
        "(NCCL_DEBUG=INFO: 'Using network IB'), MTU 9000 on the path, and no software-forwarded "
        "bridge; rerun with sizes up to 1 GiB or more (-e 1G) to judge the bandwidth";
  }
}

/// The profile's healthy bus bandwidth averaged over the sizes
/// large_size_busbw averages: the same three largest sizes.
BitRate judged_sizes_rate(const AllReduceSweep& sweep, const FabricProfile& profile) {
  std::vector<Bytes> sizes;
  sizes.reserve(sweep.samples.size());
  for (const auto& s : sweep.samples) sizes.push_back(s.size);
  std::stable_sort(sizes.begin(), sizes.end(), [](Bytes l, Bytes r) { return l > r; });
  const std::size_t n = std::min<std::size_t>(sizes.size(), 3);
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    sum += healthy_bus_bandwidth(profile, sizes[i]).bits_per_second();
  return BitRate(n == 0 ? 0.0 : sum / static_cast<double>(n));
}

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
  const AllReduceSweep& sweep = request.sweep;
  r.warnings = sweep.notes;
  r.ranks = resolve_sweep_ranks(sweep, request.ranks, r.warnings);
  std::set<double> sizes;
  for (const auto& s : sweep.samples) {
    if ((!request.range.min_size || s.size >= *request.range.min_size) &&
        (!request.range.max_size || s.size <= *request.range.max_size)) {
      sizes.insert(s.size.count());
    }
  }
  check_range(sweep, request.range, sizes.size());
  if (sizes.size() >= 2) {
    r.fit = fit_allreduce(sweep, r.ranks, request.range);
    r.fitted = true;
  } else {
    // One size still shows the bus bandwidth; only the fit needs two.
    r.fit.ranks = r.ranks;
    r.fit.collective = sweep.collective;
    r.warnings.push_back(fmt::format(
        "{} has {} size(s) in the range fitted: no alpha-beta fit (it needs 2); the bus "
        "bandwidth is judged alone",
        sweep.origin, sizes.size()));
  }
  r.busbw = large_size_busbw(sweep);
  for (const auto& s : sweep.samples) {
    r.peak_busbw = std::max(r.peak_busbw, s.out_of_place.busbw);
  }
  // The DGX Spark's bad states and measured latency apply to its ports
  // alone; a log that does not name its GPU is taken as tpnet's default node's.
  const bool spark_port = sweep.gpu.empty() || sweep.gpu.find("GB10") != std::string::npos;
  const std::optional<NodeSpec> spark = spark_port ? request.node : std::nullopt;
  FabricHardware hardware;
  hardware.faults = spark ? spark->bus_bandwidth_faults : std::nullopt;
  hardware.gpu = sweep.gpu;
  hardware.network = sweep.network;
  r.healthy_busbw = request.link.rate;
  r.healthy_from = "the link rate";
  // A measured profile of the node's path says what a healthy run shows at
  // the very sizes judged: a healthy 200G Spark pair reaches ~168 Gb/s at 1-4
  // GiB, not 200 (docs/calibration.md, "What doctor judges against").
  const bool measured_profile = request.fabric && request.fabric->source != FabricSource::nominal;
  if (measured_profile && (spark || request.fabric->source == FabricSource::calibration)) {
    hardware.healthy_rate = judged_sizes_rate(sweep, *request.fabric);
    hardware.healthy_from = fmt::format(
        "{}, {}", request.fabric->name,
        request.fabric->source == FabricSource::calibration ? "calibrated" : "measured");
    r.healthy_busbw = *hardware.healthy_rate;
    r.healthy_from = hardware.healthy_from;
  }
  r.diagnosis = diagnose_bus_bandwidth(r.busbw, request.link.rate, hardware);
  r.ranks_per_node = sweep.ranks_per_node();

  // A healthy link shows at most sent / (alpha + sent) of its rate at the
  // largest size, sent being that size's bytes at the link rate: alpha is
  // the fit's fixed cost, else the Spark's fastest measured small call.
  const AllReduceSample* largest = nullptr;
  for (const auto& s : sweep.samples) {
    if (largest == nullptr || s.size > largest->size) largest = &s;
  }
  Seconds fixed_cost;
  if (r.fitted && r.fit.alpha.value() > 0.0) {
    fixed_cost = r.fit.alpha;
  } else if (spark && spark->small_allreduce_latency) {
    fixed_cost = spark->small_allreduce_latency->healthy_min;
  }
  const Seconds bytes_at_link =
      Bytes(ring_sent_factor(sweep.collective, r.ranks) * largest->size.count()) /
      request.link.rate;
  r.reachable_share = bytes_at_link / (fixed_cost + bytes_at_link);
  r.bandwidth_judged = r.reachable_share >= kHealthyShare;

  const bool several_nodes = sweep.hosts.size() >= 2;
  if (!r.bandwidth_judged) {
    judge_small_sizes(sweep, largest->size, spark, r);
  } else if (r.ranks_per_node > 1 && several_nodes && r.diagnosis.share < kHealthyShare) {
    // A ring crosses each node boundary once per direction: every byte goes
    // through an inter-node step at the NIC's rate, while the steps inside a
    // node run faster, so a bus bandwidth under the link's is the inter-node
    // link's own.
    r.diagnosis.finding = fmt::format(
        "inter-node steps: the {} ranks run {} per node on {} nodes; the ring's inter-node "
        "steps carry every byte at the NIC's rate and the links inside a node are faster, so "
        "the {:.1f} Gb/s bus bandwidth is what the inter-node link carried. {}",
        r.ranks, r.ranks_per_node, sweep.hosts.size(), r.busbw.bits_per_second() / 1e9,
        r.diagnosis.finding);
  } else if (r.ranks_per_node > 1) {
    // At or above the link, links inside each node (NVLink, PCIe) or several
    // NICs per node may have carried part of it: the log cannot tell.
    r.diagnosis.state = FabricState::not_judged;
    r.diagnosis.finding = fmt::format(
        "not judged: the {} ranks run {} per node on {}, so links inside each node carry "
        "part of the {}; its {:.1f} Gb/s bus bandwidth is not the NIC's, and the log cannot show "
        "what the NIC carried",
        r.ranks, r.ranks_per_node,
        several_nodes ? fmt::format("{} nodes", sweep.hosts.size()) : std::string("one node"),
        to_string(sweep.collective), r.busbw.bits_per_second() / 1e9);
    r.diagnosis.advice =
        "rerun with one rank per node (one GPU per host, e.g. mpirun -npernode 1 ... -g 1) to "
        "judge the link";
  }
  if (sweep.hosts.empty()) {
    r.warnings.push_back(fmt::format(
        "{} does not say where its ranks ran ('#  Rank ... on HOST' lines); judged as one rank "
        "per node",
        sweep.origin));
  }
  if (sweep.collective != Collective::all_reduce) {
    r.warnings.push_back(fmt::format(
        "{} measured {} ({}): its bus bandwidth (algbw x {:.3g}) answers the link question as "
        "an all-reduce's does; the fit is of {}'s ring",
        sweep.origin, to_string(sweep.collective), sweep.collective_from,
        ring_sent_factor(sweep.collective, r.ranks), to_string(sweep.collective)));
  }
  r.checks = spark_port ? settings_to_check() : settings_to_check_elsewhere();
  for (const auto& w : r.fit.warnings) r.warnings.push_back(w);
  return r;
}

}  // namespace tpnet
